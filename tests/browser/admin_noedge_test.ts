/**
 * An operator without Cloudflare, in real Chromium: the wizard's edge step goes on without an
 * edge network, the challenge step takes the built-in check, Finish opens the control room, and
 * sign-in then runs the built-in check. And with Turnstile live but unreachable, sign-in says so
 * plainly and names the way out.
 */
import type { Browser, Page } from "playwright-core";
import { keys } from "../../lib/store/keys.ts";
import { assert, assertEquals } from "../assert.ts";
import { ADMIN_PASSWORD, ADMIN_USER, type AdminServer, startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

const T = { timeout: 15_000 };

const stepHeading = (page: Page, n: number, name: string) =>
  page.getByRole("heading", { name: `Step ${n} of 5: ${name}` });

Deno.test({
  name: "setup without Cloudflare, with the built-in check, in Chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s: AdminServer = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const { session } = await s.claim();
      const ctx = await s.signedIn(browser, session);
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      const progress = async () =>
        (await s.call("GET", "/api/admin/setup", undefined, session)).json;

      await t.step("edge step: I don't use Cloudflare", async () => {
        await page.goto(`${s.base}/admin`);
        await stepHeading(page, 2, "Edge").waitFor(T);
        const part = page.locator(".wz-noedge");
        await part.getByText("I don't use Cloudflare").waitFor(T);
        await part.getByText("GEO_COUNTRY_HEADER").waitFor(T);
        await page.getByRole("button", { name: "Continue without Cloudflare" }).click();
        await stepHeading(page, 3, "Bot challenge").waitFor(T);
        assertEquals((await progress()).edge.none, true);
      });

      await t.step("challenge step: the built-in check (Turnstile needs the link)", async () => {
        const ts = page.locator("fieldset", { hasText: "Cloudflare Turnstile" });
        await ts.getByText("Needs the Cloudflare link").waitFor(T);
        assert(
          await ts.getByRole("button", { name: "Create the widget" }).isDisabled(),
          "Turnstile is not offered without the Cloudflare link",
        );
        const go = page.getByRole("button", { name: "Continue", exact: true });
        assert(await go.isDisabled());
        await page.getByRole("button", { name: "Use the built-in check" }).click();
        await page.getByText("Built-in check solved").waitFor(T);
        assertEquals((await progress()).challenge.builtin, true);
        await page.screenshot({
          path: screenshotPath("admin-wizard-challenge-builtin.png"),
          fullPage: true,
        });
        await go.click();
        await stepHeading(page, 4, "Queue").waitFor(T);
        await page.getByText("Existing: default").waitFor(T);
        await page.getByRole("button", { name: "Use this queue and continue" }).click();
        await stepHeading(page, 5, "Branding").waitFor(T);
      });

      await t.step("Finish with the default branding opens the control room", async () => {
        const finish = page.getByRole("button", { name: "Finish setup" });
        assert(!(await finish.isDisabled()), "the defaults are fine");
        await finish.click();
        await page.getByRole("tablist").waitFor(T);
        const boot = (await s.call("GET", "/api/admin/bootstrap")).json;
        assertEquals([boot.setupComplete, boot.challengeKind], [true, "builtin"]);
        assert((await s.kv.get(keys.edgeNone())).value, "no edge network is live");
        assertEquals((await s.kv.get(keys.edge())).value, null);
      });

      await t.step(
        "Access: the country block names the proxy's header, not Cloudflare",
        async () => {
          await page.goto(`${s.base}/admin#access`);
          const source = page.getByTestId("geo-source");
          await source.filter({ hasText: "GEO_COUNTRY_HEADER" }).waitFor(T);
          const text = (await source.textContent())!;
          assert(!text.includes("Cloudflare adds"), text);
        },
      );

      await t.step("sign-in runs the built-in check", async () => {
        const fresh = await browser!.newContext();
        const p2 = await fresh.newPage();
        await p2.goto(`${s.base}/admin`);
        await p2.getByRole("heading", { name: "Sign in" }).waitFor(T);
        await p2.getByText("A built-in bot check runs in this browser").waitFor(T);
        await p2.getByLabel("Username").fill(ADMIN_USER);
        await p2.getByLabel("Password").fill(ADMIN_PASSWORD);
        await p2.getByRole("button", { name: "Sign in" }).click();
        await p2.getByRole("tablist").waitFor(T);
        await fresh.close();
      });
      assertEquals(errors, []);
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});

Deno.test({
  name: "Turnstile unreachable: sign-in says so and names the way out",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // The widget script's host refuses connections (a port nobody listens on).
    const dead = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (dead.addr as Deno.NetAddr).port;
    dead.close();
    const s = await startAdminServer(["default"], {
      TURNSTILE_SCRIPT_URL: `http://127.0.0.1:${port}/turnstile/v0/api.js`,
    });
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      browser = await launchBrowser();
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${s.base}/admin`);
      await page.getByRole("heading", { name: "Sign in" }).waitFor(T);
      const alert = page.getByRole("alert").filter({ hasText: "could not be reached" });
      await alert.waitFor(T);
      const text = (await alert.textContent())!;
      assert(text.includes("signing in is not possible right now"), text);
      assert(text.includes("POST /api/admin/challenge/use-builtin"), text);
      assert(text.includes("Bearer <TOKEN_SECRET>"), text);
      await page.screenshot({ path: screenshotPath("admin-login-unreachable.png") });
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
