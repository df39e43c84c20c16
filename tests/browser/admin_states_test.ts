/**
 * States that agree, in real Chromium against a real server: a paused queue shows no estimated
 * wait in the Live tab and promises none on the visitor's page, the Access tab's health line does
 * not claim admissions run, and an opening time in the past is refused (not shown as upcoming).
 */
import type { Browser } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { type AdminServer, startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

const T = { timeout: 15_000 };

Deno.test({
  name: "admin states: paused means no estimate anywhere, a past opening time is refused",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s: AdminServer = await startAdminServer(["default"], { ADMIT_PER_SECOND: 0.1 });
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      browser = await launchBrowser();
      const ctx = await s.signedIn(browser, session);
      const page = await ctx.newPage();
      await s.services.engine.setPaused("default", true);
      for (let i = 0; i < 3; i++) await s.services.engine.join("default", null);

      await t.step("Live: paused, and no estimated wait beside it", async () => {
        await page.goto(`${s.base}/admin#live`);
        await page.locator(".live-badge", { hasText: "Paused" }).waitFor(T);
        const stat = page.locator(".stat", { hasText: "Estimated wait" });
        await stat.getByText("None while paused").waitFor(T);
        await page.screenshot({ path: screenshotPath("admin-live-paused.png"), fullPage: true });
      });

      await t.step("Access: the health line does not say admissions run", async () => {
        await page.goto(`${s.base}/admin#access`);
        await page.getByRole("heading", { name: "Origin health" }).waitFor(T);
        const text = await page.locator("#panel-access").innerText();
        assert(!text.includes("admissions run"), text);
      });

      await t.step("the visitor's page promises no wait while paused", async () => {
        const visitor = await browser!.newContext();
        const wait = await visitor.newPage();
        await wait.goto(`${s.base}/wait?queue=default`);
        await wait.locator(".place").waitFor(T);
        const text = await wait.locator("main").innerText();
        assert(!/Estimated wait|less than a minute/.test(text), text);
        await wait.screenshot({ path: screenshotPath("wait-paused.png"), fullPage: true });
        await visitor.close();
      });

      await t.step("Admission: an opening time in the past is refused by its field", async () => {
        await page.goto(`${s.base}/admin#admission`);
        const card = page.locator("section.card", {
          has: page.getByRole("heading", { name: "Opening time", exact: true }),
        });
        await card.waitFor(T);
        await card.getByLabel(/Opens at/).fill("2020-01-01T10:00");
        await card.getByRole("button", { name: "Save opening time" }).click();
        await card.locator(".field-error", { hasText: "Pick a time in the future." }).waitFor(T);
        await card.getByRole("link", { name: /Opens at/ }).waitFor(T);
        const r = await s.call("GET", "/api/admin/queues", undefined, session);
        assertEquals(r.json.queues[0].opensAt ?? null, null);
      });
      await ctx.close();
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
