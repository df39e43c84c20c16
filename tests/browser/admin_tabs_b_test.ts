/**
 * The Access, Edge, Team and System tabs of the control room in real Chromium against a real
 * server (fake Cloudflare and Turnstile, a fake release feed, an HTTPS webhook receiver): every
 * change is made through the UI and checked through the API, the store or the fakes.
 */
import type { Browser, Page } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { startReceiver, verifySignature } from "../fixtures/https_receiver.ts";
import { ADMIN_PASSWORD, ADMIN_USER, EDGE_HOST, startAdminServer, ZONE } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

const T = { timeout: 10_000 };

/** A fake "latest release" feed in GitHub's shape; counts its lookups. */
function startFeed() {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits++;
    return Response.json({
      tag_name: "v99.1.0",
      html_url: "https://github.com/example/tollgate/releases/tag/v99.1.0",
      published_at: "2030-01-01T00:00:00Z",
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/repos/example/tollgate/releases/latest`,
    hits: () => hits,
    close: () => server.shutdown(),
  };
}

/** The card whose heading is `title`. */
const card = (page: Page, title: string) =>
  page.locator("section.card", { has: page.getByRole("heading", { name: title, exact: true }) });

/** Answers the confirmation dialog with the button named `name` (after checking its text). */
async function answer(page: Page, name: string, says?: RegExp) {
  const dialog = page.getByRole("dialog");
  await dialog.waitFor(T);
  if (says) assert(says.test(await dialog.innerText()), `dialog says ${await dialog.innerText()}`);
  await dialog.getByRole("button", { name, exact: true }).click();
  await dialog.waitFor({ state: "hidden", timeout: 5_000 });
}

async function openTab(page: Page, name: string) {
  await page.getByRole("tab", { name, exact: true }).click();
}

Deno.test({
  name: "admin tabs: Access, Edge, Team and System change settings through the UI",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const feed = startFeed();
    const rx = await startReceiver();
    const s = await startAdminServer(["default"], { UPDATE_FEED_URL: feed.url });
    // Webhook deliveries (and every other outbound call) trust the receiver's test certificate.
    s.services.fetch = rx.fetch;
    let browser: Browser | undefined;
    try {
      let { session, phrase } = await s.claim();
      const { siteKey } = await s.completeSetup(session);
      browser = await launchBrowser();
      const ctx = await s.signedIn(browser, session);
      const page = await ctx.newPage();
      page.setDefaultTimeout(10_000);
      const errors: string[] = [];
      // Later steps build on earlier ones: after a failure the rest are skipped, not timed out.
      let failed = false;
      const step = async (name: string, fn: () => Promise<void>) => {
        if (!failed && !await t.step(name, fn)) failed = true;
      };
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${s.base}/admin#access`);

      await step("Access: country block with a TTL, confirmed", async () => {
        const geo = card(page, "Country block");
        await geo.getByText("Off.").waitFor(T);
        await geo.getByLabel("Block these countries").check();
        await geo.getByLabel("Countries", { exact: true }).fill("RU\nkp");
        await geo.getByLabel("Duration in hours").fill("12");
        await geo.getByRole("button", { name: "Save country block" }).click();
        await answer(page, "Turn on", /12 hours/);
        await geo.getByText("Saved: the country block is on.").waitFor(T);
        const r = await s.call("GET", "/api/admin/geo-block", undefined, session);
        assertEquals(r.json.enabled, true);
        assertEquals(r.json.active, true);
        assertEquals(r.json.countries, ["KP", "RU"]);
        assertEquals(r.json.ttlHours, 12);
        const until = new Date(r.json.expiresAt).toLocaleString("en-US", {
          timeZoneName: "short",
        });
        const state = await geo.getByTestId("geo-state").innerText();
        assert(state.includes("KP, RU") && state.includes(until), state);
      });

      await step("Access: allowlist names the bad line, then saves a good one", async () => {
        const box = card(page, "IP allowlist");
        await box.getByLabel("Addresses and ranges").fill("203.0.113.7\nnot-an-ip\n10.0.0.0/8");
        await box.getByRole("button", { name: "Save allowlist" }).click();
        await box.locator(".field-error").getByText(/Line 2: "not-an-ip"/).waitFor(T);
        await box.getByRole("alert").waitFor(T);
        let r = await s.call("GET", "/api/admin/bypass", undefined, session);
        assertEquals(r.json.entries, 0);
        const good = "203.0.113.7\n10.0.0.0/8 # office";
        await box.getByLabel("Addresses and ranges").fill(good);
        await box.getByRole("button", { name: "Save allowlist" }).click();
        await box.getByText("Saved: 2 entries.").waitFor(T);
        assertEquals(await box.locator(".field-error").count(), 0);
        r = await s.call("GET", "/api/admin/bypass", undefined, session);
        assertEquals(r.json.allowlistText, good);
        assertEquals(r.json.entries, 2);
      });

      await step("Access: origin set, removal cancelled once, then removed", async () => {
        const box = card(page, "Origin proxy");
        await box.getByLabel("Proxy to this URL").check();
        await box.getByLabel("Origin URL").fill("https://shop.internal:8080");
        await box.getByRole("button", { name: "Save origin" }).click();
        await box.getByText("Admitted visitors are proxied to https://shop.internal:8080").waitFor(
          T,
        );
        let r = await s.call("GET", "/api/admin/origin", undefined, session);
        assertEquals([r.json.source, r.json.url], ["admin", "https://shop.internal:8080/"]);
        await box.getByRole("button", { name: "Remove override" }).click();
        await answer(page, "Cancel", /Remove the origin override/);
        r = await s.call("GET", "/api/admin/origin", undefined, session);
        assertEquals(r.json.source, "admin", "cancelled: nothing changed");
        await box.getByRole("button", { name: "Remove override" }).click();
        await answer(page, "Remove");
        await box.getByText("Override removed.").waitFor(T);
        r = await s.call("GET", "/api/admin/origin", undefined, session);
        assertEquals([r.json.override, r.json.enabled], [null, false]);
      });

      await step("Access: health override forced and cleared", async () => {
        const box = card(page, "Origin health throttle");
        await box.getByRole("button", { name: "Force unhealthy" }).click();
        await answer(page, "Force unhealthy", /Admissions pause/);
        await box.getByText("Forced unhealthy.").waitFor(T);
        let r = await s.call("GET", "/api/admin/health", undefined, session);
        assertEquals([r.json.override, r.json.snapshot.state], ["unhealthy", "unhealthy"]);
        await box.getByText("forced unhealthy by an operator").waitFor(T);
        await box.getByRole("button", { name: "Clear override" }).click();
        await box.getByText("Override cleared").waitFor(T);
        r = await s.call("GET", "/api/admin/health", undefined, session);
        assertEquals(r.json.override, null);
        // The config form saves too.
        await box.getByLabel("Probe every (seconds)").fill("15");
        await box.getByRole("button", { name: "Save health settings" }).click();
        await box.getByRole("status").filter({ hasText: "Saved." }).waitFor(T);
        r = await s.call("GET", "/api/admin/health", undefined, session);
        assertEquals(r.json.config.intervalSeconds, 15);
        await page.screenshot({ path: screenshotPath("admin-access.png"), fullPage: true });
      });

      await step("Edge: checks, a provider error, domains, IP geolocation off", async () => {
        await openTab(page, "Edge");
        const link = card(page, "Cloudflare link");
        await link.getByText("stored (never shown)").waitFor(T);
        assertEquals(await link.getByLabel("Zone").inputValue(), ZONE);
        assertEquals(await link.getByLabel("New API token").inputValue(), "");
        assertEquals(await link.getByLabel("New API token").getAttribute("type"), "password");

        const checks = card(page, "Checks and fixes");
        await checks.getByRole("button", { name: "Run checks" }).click();
        await checks.getByText(/Everything checks out\.|problems? found\./).waitFor(T);
        assert((await checks.locator("ul.checks li").count()) > 0, "check items listed");
        const audit = await s.call("GET", "/api/admin/audit", undefined, session);
        assert(audit.json.entries.some((e: { action: string }) => e.action === "edge.check"));

        // A Cloudflare refusal is shown next to the control that failed, with its code.
        s.cf.fail({ status: 403, code: 10000, message: "Authentication error" });
        await checks.getByRole("button", { name: "Set Full (strict) encryption" }).click();
        const err = checks.getByRole("alert").filter({ hasText: "Cloudflare" });
        await err.waitFor(T);
        assert((await err.innerText()).includes("10000"), await err.innerText());
        await checks.getByRole("button", { name: "Set Full (strict) encryption" }).click();
        await checks.getByText(/Encryption mode: strict/).waitFor(T);

        const doms = card(page, "Custom domains");
        await doms.getByText("No custom domains.").waitFor(T);
        await doms.getByLabel("Domain to attach").fill("shop.example.com");
        await doms.getByRole("button", { name: "Attach domain" }).click();
        await doms.getByText(/Attached shop\.example\.com/).waitFor(T);
        await doms.getByRole("cell", { name: "shop.example.com", exact: true }).waitFor(T);
        const cname = s.cf.recordsOf("shop.example.com");
        assertEquals(cname.map((r) => [r.type, r.content, r.proxied]), [[
          "CNAME",
          EDGE_HOST,
          true,
        ]]);
        let r = await s.call("GET", "/api/admin/edge/domains", undefined, session);
        assertEquals(r.json.domains.map((d: { domain: string }) => d.domain), ["shop.example.com"]);
        await doms.getByRole("button", { name: "Detach shop.example.com" }).click();
        await answer(page, "Detach", /Detach shop\.example\.com\?/);
        await doms.getByText(/Detached shop\.example\.com/).waitFor(T);
        await doms.getByText("No custom domains.").waitFor(T);
        assertEquals(s.cf.recordsOf("shop.example.com").length, 0);
        r = await s.call("GET", "/api/admin/edge/domains", undefined, session);
        assertEquals(r.json.domains, []);

        await checks.getByRole("button", { name: "Turn IP geolocation off" }).click();
        await answer(page, "Turn off", /country block will be cleared/);
        await checks.getByText(/IP geolocation is off\..*country block was cleared/).waitFor(T);
        assertEquals(s.cf.zone(ZONE).settings.ip_geolocation, "off");
        r = await s.call("GET", "/api/admin/geo-block", undefined, session);
        assertEquals([r.json.enabled, r.json.countries], [false, []]);
        await page.screenshot({ path: screenshotPath("admin-edge.png"), fullPage: true });
      });

      await step("Team: invite link shown once, revoked; a second admin removed", async () => {
        await openTab(page, "Team");
        const inv = card(page, "Invites");
        await inv.getByText("No pending invites.").waitFor(T);
        await inv.getByRole("button", { name: "Create invite link" }).click();
        const link = inv.getByLabel("Invite link");
        await link.waitFor(T);
        const url = await link.innerText();
        assert(url.startsWith(`${s.base}/admin?invite=`), url);
        let r = await s.call("GET", "/api/admin/invites", undefined, session);
        assertEquals(r.json.invites.length, 1);
        await page.reload();
        await inv.getByRole("button", { name: /^Revoke the invite/ }).waitFor(T);
        assertEquals(await inv.getByLabel("Invite link").count(), 0, "the link is shown once");
        assert(!(await page.content()).includes(url.split("=")[1]), "no token after a reload");
        await inv.getByRole("button", { name: /^Revoke the invite/ }).click();
        await answer(page, "Revoke", /Revoke the invite/);
        await inv.getByText("Invite revoked.").waitFor(T);
        await inv.getByText("No pending invites.").waitFor(T);
        r = await s.call("GET", "/api/admin/invites", undefined, session);
        assertEquals(r.json.invites, []);

        // A second admin joins through the API.
        const made = await s.call("POST", "/api/admin/invites", undefined, session);
        const boot = await s.call("GET", "/api/admin/bootstrap");
        assertEquals(boot.json.challengeSiteKey, siteKey);
        const joined = await s.call("POST", "/api/admin/invites/accept", {
          token: made.json.token,
          username: "bob",
          password: "bobs own long passphrase",
          acceptedTosVersion: boot.json.tosVersion,
          challengeResponse: s.turnstile.solve(siteKey, EDGE_HOST),
        });
        assertEquals(joined.status, 200, JSON.stringify(joined.json));

        await page.reload();
        const users = card(page, "Admins");
        await users.getByRole("cell", { name: "bob", exact: true }).waitFor(T);
        assertEquals(await users.getByRole("button", { name: `Remove ${ADMIN_USER}` }).count(), 0);
        await users.getByRole("button", { name: "Remove bob" }).click();
        await answer(page, "Remove", /Remove bob\?/);
        await users.getByText("bob removed.").waitFor(T);
        r = await s.call("GET", "/api/admin/users", undefined, session);
        assertEquals(r.json.users.map((u: { username: string }) => u.username), [ADMIN_USER]);

        const log = card(page, "Audit log");
        const rows = log.locator("tbody tr");
        await rows.first().getByText("Removed an admin").waitFor(T);
        const text = await log.innerText();
        for (
          const w of [
            "Created an invite",
            "Revoked an invite",
            "Joined by invite",
            "Attached a domain",
            "Detached a domain",
            "Saved the country block",
            "Saved the IP allowlist",
          ]
        ) assert(text.includes(w), `audit log shows "${w}"`);
        await page.screenshot({ path: screenshotPath("admin-team.png"), fullPage: true });

        const phone = await s.signedIn(browser!, session, { width: 390, height: 844 });
        const p2 = await phone.newPage();
        await p2.goto(`${s.base}/admin#team`);
        await card(p2, "Audit log").locator("tbody tr").first().waitFor(T);
        const wide = await p2.evaluate(() => document.documentElement.scrollWidth);
        assert(wide <= 390, `no sideways scrolling on a phone (${wide}px)`);
        await p2.screenshot({ path: screenshotPath("admin-team-phone.png"), fullPage: true });
        await phone.close();
      });

      await step("System: update check, webhooks with a test delivery", async () => {
        await openTab(page, "System");
        const ver = card(page, "Version");
        await ver.getByText("Update available: 99.1.0").waitFor(T);
        const before = feed.hits();
        await ver.getByRole("button", { name: "Check now" }).click();
        await ver.getByText(/Checked at/).waitFor(T);
        assertEquals(feed.hits(), before + 1, "Check now forces a lookup");

        const wh = card(page, "Webhooks");
        await wh.getByLabel("Send webhooks").check();
        await wh.getByLabel("Receiver URL").fill("http://hooks.example.net/x");
        await wh.getByLabel(/^Pause:/).check();
        await wh.getByLabel(/^Health:/).uncheck();
        await wh.getByLabel(/^Depth:/).uncheck();
        await wh.getByRole("button", { name: "Save webhooks" }).click();
        await wh.getByRole("alert").getByRole("link", { name: "Receiver URL" }).waitFor(T);
        await wh.locator(".field-error").filter({ hasText: "https://" }).waitFor(T);
        let r = await s.call("GET", "/api/admin/webhooks", undefined, session);
        assertEquals(r.json.url, "");

        await wh.getByLabel("Receiver URL").fill(rx.url);
        await wh.getByRole("button", { name: "Generate a secret" }).click();
        const secret = await wh.getByLabel("New signing secret").inputValue();
        assert(secret.length > 30, secret);
        await wh.getByRole("button", { name: "Save webhooks" }).click();
        await wh.getByText(/Copy the signing secret now/).waitFor(T);
        assertEquals(await wh.getByLabel("Webhook signing secret").innerText(), secret);
        r = await s.call("GET", "/api/admin/webhooks", undefined, session);
        assertEquals([r.json.enabled, r.json.url, r.json.events, r.json.hasSecret], [
          true,
          rx.url,
          ["pause"],
          true,
        ]);
        await wh.getByRole("button", { name: "Send test event" }).click();
        await wh.getByText("Delivered: the receiver answered HTTP 200.").waitFor(T);
        assertEquals(rx.received.length, 1);
        const got = rx.received[0];
        assert(await verifySignature(secret, got.body, got.headers.get("x-service-signature")));
        assertEquals(JSON.parse(got.body).event, "pause");
        await page.reload();
        await card(page, "Webhooks").getByText("set (never shown again).").waitFor(T);
        assertEquals(await page.getByLabel("Webhook signing secret").count(), 0);
      });

      await step("System: own password, recovery phrase, reset explained", async () => {
        const pw = card(page, "Your password");
        const fresh = "a brand new passphrase";
        await pw.getByLabel("Current password").fill(ADMIN_PASSWORD);
        await pw.getByLabel("New password", { exact: true }).fill(fresh);
        await pw.getByLabel("New password again").fill(fresh + "x");
        await pw.getByRole("button", { name: "Change password" }).click();
        await pw.getByText("The new passwords do not match.").waitFor(T);
        await pw.getByLabel("New password again").fill(fresh);
        await pw.getByRole("button", { name: "Change password" }).click();
        await pw.getByText(/Password changed/).waitFor(T);
        const login = (password: string) =>
          s.call("POST", "/api/admin/login", {
            username: ADMIN_USER,
            password,
            challengeResponse: s.turnstile.solve(siteKey, EDGE_HOST),
          });
        assertEquals((await login(ADMIN_PASSWORD)).status, 401, "the old password fails");
        const ok = await login(fresh);
        assertEquals(ok.status, 200, JSON.stringify(ok.json));
        session = ok.cookie!;

        const rec = card(page, "Recovery phrase");
        await rec.getByLabel("Current password").fill(fresh);
        await rec.getByRole("button", { name: "Make a new recovery phrase" }).click();
        await answer(page, "Make new phrase", /stops working/);
        const shown = rec.getByLabel("New recovery phrase");
        await shown.waitFor(T);
        const words = (await shown.innerText()).trim().split(/\s+/);
        assertEquals(words.length, 12);
        const recover = (recoveryPhrase: string) =>
          s.call("POST", "/api/admin/password/recover", {
            username: ADMIN_USER,
            recoveryPhrase,
            newPassword: "recovered passphrase ok",
            challengeResponse: s.turnstile.solve(siteKey, EDGE_HOST),
          });
        assertEquals((await recover(phrase)).status, 401, "the old phrase stopped working");
        assertEquals((await recover(words.join(" "))).status, 200, "the new phrase works");
        phrase = words.join(" ");

        const reset = card(page, "Factory reset");
        const cmd = await reset.getByLabel("Reset command").innerText();
        assertEquals(
          cmd,
          `curl -X POST -H "Authorization: Bearer $TOKEN_SECRET" ${s.base}/api/admin/reset`,
        );
        assertEquals(await page.getByRole("button", { name: /reset/i }).count(), 0);
        await page.screenshot({ path: screenshotPath("admin-system.png"), fullPage: true });
        assertEquals(errors, [], "no page errors");
      });
    } finally {
      await browser?.close();
      await s.close();
      await rx.close();
      await feed.close();
    }
  },
});
