/**
 * A setup that keeps what you typed, in real Chromium: a wrong setup secret is said by its field
 * and goes once the secret is changed; the recovery phrase survives a reload and needs "I saved
 * it"; a tab without the phrase can generate a new one; every step survives a reload; and Finish
 * keeps the branding typed but not saved.
 */
import type { Browser, Page } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { ADMIN_PASSWORD, ADMIN_USER, type AdminServer, startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

const T = { timeout: 15_000 };

const stepHeading = (page: Page, n: number, name: string) =>
  page.getByRole("heading", { name: `Step ${n} of 5: ${name}` });

/** Reloads and checks the wizard comes back on the same step. */
async function reloadAt(page: Page, n: number, name: string) {
  await page.reload();
  await stepHeading(page, n, name).waitFor(T);
}

Deno.test({
  name: "setup wizard: nothing typed is lost, a reload at every step resumes it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s: AdminServer = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const ctx = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const page = await ctx.newPage();
      let phrase = "";

      await t.step("a wrong secret is said by its field, and goes once it is changed", async () => {
        await page.goto(`${s.base}/admin`);
        const secret = page.getByLabel("Setup secret (TOKEN_SECRET)");
        await secret.fill("not-the-secret");
        await page.getByLabel("Username").fill(ADMIN_USER);
        await page.getByLabel("Password").fill(ADMIN_PASSWORD);
        await page.getByLabel("I accept the terms of service").check();
        await page.getByRole("button", { name: "Create account" }).click();
        const wrong = page.locator(".field-error", { hasText: "not this service's setup secret" });
        await wrong.waitFor(T);
        await page.locator(".status.error").getByRole("link", { name: /Setup secret/ }).waitFor(T);
        await secret.fill(s.config.TOKEN_SECRET);
        await wrong.waitFor({ state: "detached", ...T });
        assertEquals(await page.locator(".status.error").count(), 0, "no stale error");
      });

      await t.step("the recovery phrase survives a reload and needs 'I saved it'", async () => {
        await page.getByRole("button", { name: "Create account" }).click();
        await page.getByRole("heading", { name: "Your recovery phrase" }).waitFor(T);
        phrase = (await page.locator("code.phrase").textContent())!.trim();
        await page.reload();
        await page.getByRole("heading", { name: "Your recovery phrase" }).waitFor(T);
        assertEquals((await page.locator("code.phrase").textContent())!.trim(), phrase);
        const go = page.getByRole("button", { name: "Continue", exact: true });
        assert(await go.isDisabled(), "Continue waits for 'I saved it'");
        await page.getByLabel("I saved my recovery phrase").check();
        await go.click();
        await stepHeading(page, 2, "Edge").waitFor(T);
        await reloadAt(page, 2, "Edge");
      });

      await t.step("a tab without the phrase can generate a new one", async () => {
        await page.getByRole("button", { name: "Back" }).click();
        await stepHeading(page, 1, "Account").waitFor(T);
        await page.getByRole("button", { name: "Generate a new phrase" }).click();
        await page.getByLabel("Your password").fill(ADMIN_PASSWORD);
        await page.getByRole("button", { name: "Generate a new phrase" }).click();
        await page.getByRole("heading", { name: "Your recovery phrase" }).waitFor(T);
        const fresh = (await page.locator("code.phrase").textContent())!.trim();
        assert(fresh !== phrase && fresh.split(" ").length === 12, fresh);
        await page.getByLabel("I saved my recovery phrase").check();
        await page.getByRole("button", { name: "Continue", exact: true }).click();
        await stepHeading(page, 2, "Edge").waitFor(T);
      });

      await t.step("edge, bot check and queue steps each survive a reload", async () => {
        await page.getByRole("button", { name: "Continue without Cloudflare" }).click();
        await stepHeading(page, 3, "Bot challenge").waitFor(T);
        await reloadAt(page, 3, "Bot challenge");
        await page.getByRole("button", { name: "Use the built-in check" }).click();
        await page.getByText("Built-in check solved").waitFor(T);
        await page.getByRole("button", { name: "Continue", exact: true }).click();
        await stepHeading(page, 4, "Queue").waitFor(T);
        await reloadAt(page, 4, "Queue");
        await page.getByRole("button", { name: "Use this queue and continue" }).click();
        await stepHeading(page, 5, "Branding").waitFor(T);
        await reloadAt(page, 5, "Branding");
      });

      await t.step("Finish keeps the branding typed but not saved", async () => {
        await page.getByLabel("Title").fill("Launch day line");
        await page.getByTestId("unsaved-branding").waitFor(T);
        await page.screenshot({ path: screenshotPath("admin-wizard-unsaved.png"), fullPage: true });
        await page.getByRole("button", { name: "Finish setup" }).click();
        await page.getByRole("tablist").waitFor(T);
        const session = (await ctx.cookies(s.base)).find((c) => c.name === "tg_admin")!.value;
        const boot = (await s.call("GET", "/api/admin/bootstrap")).json;
        assertEquals(boot.setupComplete, true);
        const b = (await s.call("GET", "/api/admin/branding", undefined, session)).json;
        assertEquals(b.title, "Launch day line");
      });
      await ctx.close();
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
