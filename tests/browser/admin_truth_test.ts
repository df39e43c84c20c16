/**
 * A control room that tells the truth, in real Chromium against a real server (fake Cloudflare):
 * one human message per form error and the browser's own checks first, the recovery phrase kept
 * across a reload until confirmed, and every screen that used to say something false.
 */
import type { Browser, Page } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { ADMIN_PASSWORD, type AdminServer, startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

const T = { timeout: 15_000 };

const card = (page: Page, title: string) =>
  page.locator("section.card", { has: page.getByRole("heading", { name: title, exact: true }) });

/** Opens `#tab` of the control room (a reload, so the tab reads the state afresh). */
async function openTab(page: Page, base: string, tab: string) {
  await page.goto(`${base}/admin#${tab}`);
  await page.reload();
  await page.getByRole("tablist").waitFor(T);
}

Deno.test({
  name: "admin truth: forms, the phrase step and the screens that said false things",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    // Nobody answers on this port: the release feed cannot be reached.
    const dead = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const deadUrl = `http://127.0.0.1:${(dead.addr as Deno.NetAddr).port}/releases/latest`;
    dead.close();
    const s: AdminServer = await startAdminServer(["default"], { UPDATE_FEED_URL: deadUrl });
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const ctx = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const page = await ctx.newPage();
      let session = "";

      await t.step("account step: the browser checks first, one human message", async () => {
        await page.goto(`${s.base}/admin`);
        await page.getByText("data/token-secret").first().waitFor(T);
        let posts = 0;
        page.on("request", (r) => {
          if (r.method() === "POST" && r.url().endsWith("/api/admin/claim")) posts++;
        });
        await page.getByLabel("Setup secret (TOKEN_SECRET)").fill("not-the-secret");
        await page.getByLabel("Username").fill("admin");
        await page.getByLabel("Password").fill("short");
        await page.getByLabel("I accept the terms of service").check();
        await page.getByRole("button", { name: "Create account" }).click();
        const tooShort = await page.getByLabel("Password").evaluate((el) =>
          (el as HTMLInputElement).validity.tooShort
        );
        assert(tooShort, "the browser refuses a short password");
        assertEquals(posts, 0, "nothing was sent");

        await page.getByLabel("Password").fill(ADMIN_PASSWORD);
        await page.getByRole("button", { name: "Create account" }).click();
        // Said once, by the secret's field; the form's summary links to it.
        await page.locator("form .status.error").getByRole("link", { name: /Setup secret/ })
          .waitFor(T);
        const err = page.locator("form .field-error");
        await err.waitFor(T);
        const text = (await err.textContent())!;
        assert(text.includes("not this service's setup secret"), text);
        assert(text.includes("data/token-secret"), text);
        assert(!text.includes("Authorization"), `no raw header talk: ${text}`);
      });

      await t.step("recovery phrase: a reload before 'I saved it' keeps the step", async () => {
        await page.getByLabel("Setup secret (TOKEN_SECRET)").fill(s.config.TOKEN_SECRET);
        await page.getByRole("button", { name: "Create account" }).click();
        await page.getByRole("heading", { name: "Your recovery phrase" }).waitFor(T);
        const phrase = (await page.locator("code.phrase").textContent())!.trim();
        await page.reload();
        await page.getByRole("heading", { name: "Your recovery phrase" }).waitFor(T);
        assertEquals((await page.locator("code.phrase").textContent())!.trim(), phrase);
        await page.getByLabel("I saved my recovery phrase").check();
        await page.getByRole("button", { name: "Continue", exact: true }).click();
        await page.getByRole("heading", { name: /Step 2 of 5/ }).waitFor(T);
        await page.reload();
        await page.getByRole("heading", { name: /Step 2 of 5/ }).waitFor(T);
        assert(!(await page.content()).includes(phrase), "gone once confirmed");
        session = (await ctx.cookies()).find((c) => c.name === "tg_admin")!.value;
      });

      await t.step("a server validation error is one message, without 'invalid json'", async () => {
        await page.getByLabel("Cloudflare API token").fill("short");
        await page.getByRole("button", { name: "Verify token" }).click();
        const part = page.locator(".wz-part").nth(0);
        await part.locator(".status.error").getByRole("link", { name: "Cloudflare API token" })
          .waitFor(T);
        const err = part.locator(".field-error");
        await err.waitFor(T);
        const text = (await part.innerText())!;
        assert(!/invalid json|must match|token must/i.test(text), text);
        const once = text.split((await err.textContent())!).length - 1;
        assertEquals(once, 1, `said once: ${text}`);
      });

      await s.completeSetup(session);
      await s.services.engine.setPaused("default", true);

      await t.step("Live: no 'Open' beside Paused; 'Not monitored' is not green", async () => {
        await openTab(page, s.base, "live");
        const now = card(page, "Queue default now");
        await now.getByText("Paused", { exact: true }).waitFor(T);
        const opens = now.locator(".stat", { hasText: "Opens at" });
        assertEquals((await opens.locator(".n").textContent())?.trim(), "No opening time");
        const badge = card(page, "Origin health").locator(".live-badge");
        await badge.waitFor(T);
        assertEquals((await badge.textContent())?.trim(), "Not monitored");
        assert((await badge.getAttribute("class"))!.includes("neutral"), "a neutral badge");
      });

      await t.step("Admission: 'Admit now' while paused says why nobody came in", async () => {
        await s.services.engine.join("default", null);
        await openTab(page, s.base, "admission");
        const c = card(page, "Let people in now");
        await c.getByLabel("How many to admit").fill("3");
        await c.getByRole("button", { name: "Admit now" }).click();
        await page.getByRole("dialog").getByRole("button", { name: "Admit now" }).click();
        const st = c.locator(".status.error");
        await st.waitFor(T);
        const why = (await st.textContent()) ?? "";
        assert(why.includes("the queue is paused"), why);
        const pause = card(page, "Pause");
        await pause.getByText("waiting visitors are not told").waitFor(T);
        assert(!(await pause.textContent())!.includes("counting down"), "no countdown promised");
      });

      await t.step("Access: origin proxy form and health state say what is so", async () => {
        await openTab(page, s.base, "access");
        const o = card(page, "Origin proxy");
        await o.getByText("No proxy").waitFor(T);
        assert(await o.getByLabel("Off").isChecked(), "no proxy shows Off");
        await o.getByLabel("Proxy to this URL").check();
        await o.getByRole("button", { name: "Save origin" }).click();
        await o.locator(".status.error").filter({ hasText: "Enter the origin URL" }).waitFor(T);

        const h = card(page, "Origin health throttle");
        await h.getByText("not monitored").waitFor(T);
        await h.getByLabel("Probe the origin").check();
        // An origin that answers 500 (on its own port: the service does not probe itself).
        const origin = Deno.serve(
          { hostname: "127.0.0.1", port: 0, onListen() {} },
          () => new Response("down", { status: 500 }),
        );
        await h.getByLabel("Health URL").fill(`http://127.0.0.1:${origin.addr.port}/health`);
        await h.getByRole("button", { name: "Save health settings" }).click();
        await h.getByText("Saved.").waitFor(T);
        await h.getByText("not probed yet").waitFor(T);
        assert(!(await h.getByTestId("health-state").textContent())!.includes("healthy"));
        // A change made elsewhere shows without a reload (the card polls).
        await s.call("PUT", "/api/admin/health", { override: "unhealthy" }, session);
        await h.getByTestId("health-state").getByText("unhealthy").waitFor(T);
        await s.call("PUT", "/api/admin/health", { override: null }, session);
        await origin.shutdown();
      });

      await t.step("Edge: the checks show the zone's state and follow a change", async () => {
        await openTab(page, s.base, "edge");
        const c = card(page, "Checks and fixes");
        const geo = c.locator(".checks li", { hasText: "ip_geolocation" });
        await geo.getByText("IP geolocation is on").waitFor(T);
        await c.locator(".checks li", { hasText: "ssl" }).waitFor(T);
        await c.getByRole("button", { name: "Turn IP geolocation off" }).click();
        await page.getByRole("dialog").getByRole("button", { name: "Turn off" }).click();
        await geo.getByText("IP geolocation is off").waitFor(T);
        await page.screenshot({ path: screenshotPath("admin-edge.png"), fullPage: true });
      });

      await t.step("Team: a revoked invite's link is no longer shown", async () => {
        await openTab(page, s.base, "team");
        const c = card(page, "Invites");
        await c.getByRole("button", { name: "Create invite link" }).click();
        const link = c.locator(".once code");
        await link.waitFor(T);
        await c.getByRole("button", { name: /^Revoke the invite/ }).click();
        await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
        await c.getByText("Invite revoked.").waitFor(T);
        assertEquals(await link.count(), 0);
      });

      await t.step("System: a failed update check is not also 'Checked at'", async () => {
        await openTab(page, s.base, "system");
        const v = card(page, "Version");
        await v.getByRole("button", { name: "Check now" }).click();
        await v.getByText("The last check failed").waitFor(T);
        await page.waitForTimeout(300);
        assertEquals(await v.getByText(/Checked at/).count(), 0);
      });
      await ctx.close();
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
