/**
 * The admin's first run and the screens outside the control room, in real Chromium against a
 * real server with fake Cloudflare and a fake, clickable Turnstile widget: the five-step wizard
 * from a fresh store (a reload resumes the step), the recovery phrase shown once, the control
 * room after Finish; then sign-out, sign-in with the widget (a wrong password shows the server's
 * error), an invite accepted in another browser context, and recovery with the phrase.
 *
 * The browser reaches the service AS the edge hostname (`--host-resolver-rules`), since the
 * server checks the hostname a challenge was solved on against the widget's hostnames.
 */
import { type Browser, type BrowserContext, type Page } from "playwright-core";
import { keys } from "../../lib/store/keys.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  ADMIN_PASSWORD,
  ADMIN_USER,
  type AdminServer,
  CF_TOKEN,
  EDGE_HOST,
  startAdminServer,
  ZONE,
} from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

const T = { timeout: 15_000 };

/** Chromium with the edge hostname mapped to loopback (the admin is reached as that host). */
function launch(): Promise<Browser> {
  return launchBrowser([
    `--host-resolver-rules=MAP ${EDGE_HOST} 127.0.0.1`,
    "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable",
  ]);
}

/** The session cookie the browser holds (for API checks as that admin). */
async function sessionOf(ctx: BrowserContext): Promise<string> {
  const c = (await ctx.cookies()).find((x) => x.name === "tg_admin");
  if (!c) throw new Error("no tg_admin cookie in the browser");
  return c.value;
}

/** Clicks the fake widget's button and waits until its frame says it is solved. */
async function solveWidget(page: Page) {
  const frame = page.frameLocator(".challenge-box iframe");
  await frame.getByRole("button", { name: "Verify you are human" }).click(T);
  // Solved when the frame says so, or when the page has already taken the token and removed the
  // widget (it may, as soon as the token arrives): either way the click was not lost.
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    if (await page.locator(".challenge-box iframe").count() === 0) return;
    if (await frame.getByText("Success!").isVisible().catch(() => false)) return;
    await page.waitForTimeout(100);
  }
  throw new Error("the fake widget never said Success! and was not taken away");
}

/** The heading of the wizard's current step. */
const stepHeading = (page: Page, n: number, name: string) =>
  page.getByRole("heading", { name: `Step ${n} of 5: ${name}` });

Deno.test({
  name: "admin setup wizard and sign-in screens in Chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s: AdminServer = await startAdminServer(["default"]);
    const port = new URL(s.base).port;
    const base = `http://${EDGE_HOST}:${port}`;
    let browser: Browser | undefined;
    try {
      browser = await launch();
      const ctx = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const page = await ctx.newPage();
      const pageErrors: string[] = [];
      page.on("pageerror", (e) => pageErrors.push(e.message));
      let phrase = "";
      let session = "";
      const progress = async () =>
        (await s.call("GET", "/api/admin/setup", undefined, session)).json;

      await t.step("step 1: the account is claimed with the setup secret", async () => {
        await page.goto(`${base}/admin`);
        await stepHeading(page, 1, "Account").waitFor(T);
        const current = page.locator(".wz-steps [aria-current=step]");
        assertEquals((await current.textContent())?.trim(), "1 Account");
        assertEquals(await page.locator(".wz-steps li").count(), 5);
        await page.screenshot({ path: screenshotPath("admin-wizard-account.png"), fullPage: true });

        // A wrong secret: the server's refusal next to the form, nothing claimed.
        await page.getByLabel("Setup secret (TOKEN_SECRET)").fill("not-the-secret");
        await page.getByLabel("Username").fill(ADMIN_USER);
        await page.getByLabel("Password").fill(ADMIN_PASSWORD);
        await page.getByLabel("I accept the terms of service").check();
        await page.getByRole("button", { name: "Create account" }).click();
        const err = page.locator("form .status.error");
        await err.waitFor(T);
        assert((await err.textContent())!.length > 5, "the server's message is shown");
        assertEquals((await s.call("GET", "/api/admin/bootstrap")).json.claimed, false);

        await page.getByLabel("Setup secret (TOKEN_SECRET)").fill(s.config.TOKEN_SECRET);
        await page.getByRole("button", { name: "Create account" }).click();
        await page.getByRole("heading", { name: "Your recovery phrase" }).waitFor(T);
        phrase = (await page.locator("code.phrase").textContent())!.trim();
        assertEquals(phrase.split(" ").length, 12, phrase);
        const go = page.getByRole("button", { name: "Continue", exact: true });
        assert(await go.isDisabled(), "Continue waits for 'I saved it'");
        await page.getByLabel("I saved my recovery phrase").check();
        await go.click();
        await stepHeading(page, 2, "Edge").waitFor(T);
        session = await sessionOf(ctx);
        const boot = (await s.call("GET", "/api/admin/bootstrap", undefined, session)).json;
        assertEquals([boot.claimed, boot.signedIn, boot.me.username], [true, true, ADMIN_USER]);
        assert(!(await page.content()).includes(phrase), "the phrase is gone from the page");
      });

      await t.step("step 2: the edge is linked, and a reload resumes the step", async () => {
        await page.screenshot({ path: screenshotPath("admin-wizard-edge.png"), fullPage: true });
        assertEquals(
          (await page.locator(".wz-steps [aria-current=step]").textContent())?.trim(),
          "2 Edge",
        );
        // A malformed token: the validation message next to the token form.
        await page.getByLabel("Cloudflare API token").fill("short");
        await page.getByRole("button", { name: "Verify token" }).click();
        await page.locator(".wz-part").nth(0).locator(".status.error").waitFor(T);
        assertEquals((await progress()).edge.token, false);

        await page.getByLabel("Cloudflare API token").fill(CF_TOKEN);
        await page.getByRole("button", { name: "Verify token" }).click();
        await page.getByText("Token verified.").waitFor(T);
        assertEquals((await progress()).edge.token, true);

        await page.getByLabel("Zone (domain)").fill(ZONE);
        await page.getByLabel("Hostname of the waiting room").fill(EDGE_HOST);
        await page.getByRole("button", { name: "Find zone" }).click();
        await page.getByText("Zone found; the hostname lies in it.").waitFor(T);
        await page.getByText(`A ${EDGE_HOST} → 203.0.113.7 (not proxied)`).waitFor(T);
        const mid = await progress();
        assertEquals([mid.edge.zone, mid.edge.hostname, mid.edge.fix], [true, EDGE_HOST, false]);

        // Reload in the middle: the same step, its done parts marked, the next one open.
        await page.reload();
        await stepHeading(page, 2, "Edge").waitFor(T);
        assertEquals(await page.locator(".wz-part.done").count(), 2);
        assert(
          await page.getByRole("button", { name: "Proxy DNS and turn on geolocation" }).isEnabled(),
        );
        assertEquals(await page.getByLabel("Zone (domain)").inputValue(), ZONE);

        await page.getByRole("button", { name: "Proxy DNS and turn on geolocation" }).click();
        await page.getByText(/DNS proxied through Cloudflare/).waitFor(T);
        await page.getByRole("button", { name: "Set Full (strict)" }).click();
        await page.getByText("SSL set to Full (strict).").waitFor(T);
        await page.getByLabel("Custom domain").fill("shop.example.com");
        await page.getByRole("button", { name: "Attach domain" }).click();
        await page.getByText("shop.example.com attached.").waitFor(T);
        const e = (await progress()).edge;
        assertEquals([e.token, e.zone, e.fix, e.ssl, e.domains], [
          true,
          true,
          true,
          true,
          ["shop.example.com"],
        ]);
        await page.getByRole("button", { name: "Continue", exact: true }).click();
        await stepHeading(page, 3, "Bot challenge").waitFor(T);
      });

      await t.step("step 3: the widget is created and solved by a click", async () => {
        assert(await page.getByRole("button", { name: "Continue", exact: true }).isDisabled());
        await page.getByRole("button", { name: "Create the widget" }).click();
        await page.getByText("Widget created.").waitFor(T);
        const p = await progress();
        assertEquals([p.challenge.provisioned, p.challenge.verified], [true, false]);
        assert(s.turnstile.widgets.has(p.challenge.siteKey), "the widget exists at the fake");
        await page.frameLocator(".challenge-box iframe")
          .getByRole("button", { name: "Verify you are human" }).waitFor(T);
        await page.screenshot({
          path: screenshotPath("admin-wizard-challenge.png"),
          fullPage: true,
        });
        await solveWidget(page);
        await page.getByText("Challenge verified: sign-in will be protected by it.").waitFor(T);
        assertEquals((await progress()).challenge.verified, true);
        const v = s.turnstile.verifies().at(-1)!;
        assertEquals(v.body?.secret, s.turnstile.widgets.get(p.challenge.siteKey)!.secret);
        await page.getByRole("button", { name: "Continue", exact: true }).click();
        await stepHeading(page, 4, "Queue").waitFor(T);
      });

      await t.step("step 4: a new queue in lottery mode", async () => {
        await page.getByText("Existing: default").waitFor(T);
        assertEquals(await page.getByLabel("Queue name").inputValue(), "default");
        await page.getByLabel("Queue name").fill("launch");
        await page.getByLabel(/^Lottery/).check();
        await page.screenshot({ path: screenshotPath("admin-wizard-queue.png"), fullPage: true });
        // Back shows the challenge step as done; forward again.
        await page.getByRole("button", { name: "Back" }).click();
        await stepHeading(page, 3, "Bot challenge").waitFor(T);
        await page.getByText("Verified.", { exact: true }).waitFor(T);
        await page.getByRole("button", { name: "Continue", exact: true }).click();
        await stepHeading(page, 4, "Queue").waitFor(T);
        // The step reads the queues when it opens; fill only after that, or the read resets it.
        await page.getByText("Existing: default").waitFor(T);
        await page.getByLabel("Queue name").fill("launch");
        await page.getByLabel(/^Lottery/).check();
        await page.getByRole("button", { name: "Create queue and continue" }).click();
        await stepHeading(page, 5, "Branding").waitFor(T);
        const qs = (await s.call("GET", "/api/admin/queues", undefined, session)).json.queues;
        const q = qs.find((x: { queue: string }) => x.queue === "launch");
        assertEquals(q?.mode, "lottery");
        // A new queue gets the suggested sliding sessions.
        const sessions = await s.call(
          "GET",
          "/api/admin/sessions?queue=launch",
          undefined,
          session,
        );
        assertEquals(sessions.json.sessionMode, "sliding");
        assertEquals((await progress()).steps, {
          queue: true,
          branding: false,
          queueName: "launch",
        });
      });

      await t.step("step 5: branding with a live preview, then Finish", async () => {
        // A reload resumes here (queue recorded server-side).
        await page.reload();
        await stepHeading(page, 5, "Branding").waitFor(T);
        const finish = page.getByRole("button", { name: "Finish setup" });
        assert(!(await finish.isDisabled()), "the defaults are fine: Finish works unsaved");
        await page.getByLabel("Title").fill("Big launch today");
        await page.getByLabel("Message").fill("Hang on, the doors open soon.");
        await page.getByLabel("Main colour", { exact: true }).fill("#aa3300");
        await page.getByLabel("Show how many people are waiting").check();
        await page.getByRole("button", { name: "Save branding" }).click();
        await page.getByText("Branding saved").waitFor(T);
        const preview = page.frameLocator('iframe[title="Waiting page preview"]');
        await preview.getByText("Big launch today").first().waitFor(T);
        const b = (await s.call("GET", "/api/admin/state", undefined, session)).json.branding;
        assertEquals([b.title, b.message, b.primaryColor, b.showWaitingCount], [
          "Big launch today",
          "Hang on, the doors open soon.",
          "#aa3300",
          true,
        ]);
        assertEquals((await progress()).steps.branding, true);
        // The preview follows the form: the picked queue, with the form's values as a draft.
        const src = await page.locator('iframe[title="Waiting page preview"]').getAttribute("src");
        assert(src!.startsWith("/wait?embed=1&preview=1&queue=launch&draft="), src!);
        await page.screenshot({
          path: screenshotPath("admin-wizard-branding.png"),
          fullPage: true,
        });
        await page.setViewportSize({ width: 390, height: 844 });
        await page.screenshot({ path: screenshotPath("admin-wizard-phone.png"), fullPage: true });
        const overflow = await page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assert(overflow <= 0, `no sideways scrolling at 390 px (${overflow} px)`);
        await page.setViewportSize({ width: 1100, height: 900 });

        assertEquals((await s.kv.get(keys.edge())).value, null, "nothing live before Finish");
        await finish.click();
        await page.getByRole("tablist").waitFor(T);
        const boot = (await s.call("GET", "/api/admin/bootstrap", undefined, session)).json;
        assertEquals([boot.setupComplete, boot.challengeRequired], [true, true]);
        assert((await s.kv.get(keys.edge())).value !== null, "the edge link is live");
        assert((await s.kv.get(keys.challenge())).value !== null, "the challenge is live");
        assert(!(await page.content()).includes(phrase), "the phrase is never shown again");
      });

      await t.step(
        "sign out, a wrong password shows the server's error, then sign in",
        async () => {
          await page.getByRole("button", { name: "Sign out" }).click();
          await page.getByRole("heading", { name: "Sign in" }).waitFor(T);
          await page.frameLocator(".challenge-box iframe")
            .getByRole("button", { name: "Verify you are human" }).waitFor(T);
          await page.screenshot({ path: screenshotPath("admin-login.png"), fullPage: true });
          assertEquals((await s.call("GET", "/api/admin/setup", undefined, session)).status, 401);

          // What the server says to a wrong password (same answer through the API).
          const siteKey = (await s.call("GET", "/api/admin/bootstrap")).json.challengeSiteKey;
          const api = await s.call("POST", "/api/admin/login", {
            username: ADMIN_USER,
            password: "wrong password 123",
            challengeResponse: s.turnstile.solve(siteKey, EDGE_HOST),
          });
          assertEquals(api.status, 401);

          await page.getByLabel("Username").fill(ADMIN_USER);
          await page.getByLabel("Password").fill("wrong password 123");
          await solveWidget(page);
          await page.getByRole("button", { name: "Sign in" }).click();
          const err = page.locator("form .status.error");
          await err.waitFor(T);
          assertEquals((await err.textContent())?.trim(), api.json.error.message);

          // The used token was dropped: the widget asks again.
          await page.frameLocator(".challenge-box iframe").getByText("Success!").waitFor({
            state: "detached",
            ...T,
          });
          await page.getByLabel("Password").fill(ADMIN_PASSWORD);
          await solveWidget(page);
          await page.getByRole("button", { name: "Sign in" }).click();
          await page.getByRole("tablist").waitFor(T);
          session = await sessionOf(ctx);
          const boot = (await s.call("GET", "/api/admin/bootstrap", undefined, session)).json;
          assertEquals([boot.signedIn, boot.me.username], [true, ADMIN_USER]);
        },
      );

      await t.step("an invite is accepted in another browser context", async () => {
        const inv = await s.call("POST", "/api/admin/invites", undefined, session);
        assertEquals(inv.status, 200, JSON.stringify(inv.json));
        const ctx2 = await browser!.newContext({ viewport: { width: 800, height: 900 } });
        try {
          const p2 = await ctx2.newPage();
          await p2.goto(base + inv.json.acceptUrl);
          await p2.getByRole("heading", { name: "Join this Tollgate" }).waitFor(T);
          await p2.getByLabel("Username").fill("bob");
          await p2.getByLabel("Password").fill("bobs long password");
          await p2.getByLabel("I accept the terms of service").check();
          await solveWidget(p2);
          await p2.getByRole("button", { name: "Create my account" }).click();
          await p2.getByRole("heading", { name: "Your recovery phrase" }).waitFor(T);
          const bobPhrase = (await p2.locator("code.phrase").textContent())!.trim();
          assertEquals(bobPhrase.split(" ").length, 12);
          await p2.getByLabel("I saved my recovery phrase").check();
          await p2.getByRole("button", { name: "Continue", exact: true }).click();
          await p2.getByRole("tablist").waitFor(T);
          assertEquals(new URL(p2.url()).search, "", "the invite token left the address bar");
          const bob = await sessionOf(ctx2);
          const me = (await s.call("GET", "/api/admin/bootstrap", undefined, bob)).json.me;
          assertEquals(me.username, "bob");
          const users = (await s.call("GET", "/api/admin/users", undefined, session)).json.users;
          assertEquals(users.map((u: { username: string }) => u.username).sort(), ["admin", "bob"]);
        } finally {
          await ctx2.close();
        }
      });

      await t.step("recovery with the phrase gives a new phrase, shown once", async () => {
        const ctx3 = await browser!.newContext({ viewport: { width: 800, height: 900 } });
        try {
          const p3 = await ctx3.newPage();
          await p3.goto(`${base}/admin`);
          await p3.getByRole("link", { name: "Forgot password?" }).click();
          await p3.getByRole("heading", { name: "Reset your password" }).waitFor(T);
          await p3.getByLabel("Username").fill(ADMIN_USER);
          await p3.getByLabel("Recovery phrase").fill(phrase);
          await p3.getByLabel("New password").fill("a brand new password");
          await solveWidget(p3);
          await p3.getByRole("button", { name: "Reset password" }).click();
          await p3.getByRole("heading", { name: "Your recovery phrase" }).waitFor(T);
          const fresh = (await p3.locator("code.phrase").textContent())!.trim();
          assert(fresh !== phrase, "a new phrase");
          assertEquals(fresh.split(" ").length, 12);
          await p3.getByLabel("I saved my recovery phrase").check();
          await p3.getByRole("button", { name: "Continue", exact: true }).click();
          await p3.getByRole("tablist").waitFor(T);
          const siteKey = (await s.call("GET", "/api/admin/bootstrap")).json.challengeSiteKey;
          const login = await s.call("POST", "/api/admin/login", {
            username: ADMIN_USER,
            password: "a brand new password",
            challengeResponse: s.turnstile.solve(siteKey, EDGE_HOST),
          });
          assertEquals(login.status, 200, JSON.stringify(login.json));
          // The first browser's session ended with the recovery.
          assertEquals((await s.call("GET", "/api/admin/setup", undefined, session)).status, 401);
        } finally {
          await ctx3.close();
        }
      });

      assertEquals(pageErrors, [], "no script errors on the page");
      await ctx.close();
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
