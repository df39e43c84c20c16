/**
 * The Admission tab's join-guard cards in real Chromium against a real server: the bot check is
 * switched on and its puzzle size changed through the UI (checked through the API), and the last
 * hour's counts show a challenge a visitor was given.
 */
import type { Browser } from "playwright-core";
import { assertEquals } from "../assert.ts";
import { startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

Deno.test({
  name: "admin: bot check on join and its counts",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const s = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      browser = await launchBrowser();
      const ctx = await browser.newContext({ viewport: { width: 1100, height: 1400 } });
      await ctx.addCookies([{ name: "tg_admin", value: session, url: s.base, httpOnly: true }]);
      const page = await ctx.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${s.base}/admin#admission`);
      const card = page.locator("section.card", {
        has: page.getByRole("heading", { name: "Bot check on join", exact: true }),
      });
      await card.getByRole("radio", { name: "Always" }).check();
      const size = card.getByLabel("Puzzle size (tries a visitor needs on average)");
      await size.fill("20000");
      await card.getByRole("button", { name: "Save bot check" }).click();
      await card.locator("p.status").filter({ hasText: "the check is on now" }).waitFor();
      const r = await s.call("GET", "/api/admin/join-guards", undefined, session);
      assertEquals([r.json.challenge, r.json.difficulty], ["on", 20000]);
      // A visitor without a solution is given a challenge: the count shows it.
      const j = await fetch(`${s.base}/join`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ queue: "default" }),
      });
      assertEquals(j.status, 403);
      await j.body?.cancel();
      const counts = page.locator("section.card", {
        has: page.getByRole("heading", { name: /Refused and challenged joins/ }),
      });
      await counts.getByRole("row", { name: /Challenges issued 1/ }).waitFor({ timeout: 15_000 });
      await page.screenshot({ path: screenshotPath("admin-guards.png"), fullPage: true });
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
