/**
 * The pre-queue in real Chromium against a real server: the waiting page before the draw (words,
 * arrival number, no place), the place after the draw at the opening time, and the draw checked
 * on /draw/verify in the browser.
 */
import type { Browser } from "playwright-core";
import { testConfig } from "../../lib/config.ts";
import { keys } from "../../lib/store/keys.ts";
import { assert, assertEquals } from "../assert.ts";
import { launchBrowser, screenshotPath, serveApp } from "./helper.ts";

const Q = "pre";

Deno.test({
  name: "pre-queue and draw check in Chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const srv = await serveApp(testConfig({ QUEUES: [Q] }));
    let browser: Browser | undefined;
    try {
      await srv.services.engine.setOpensAt(Q, Date.now() + 8_000);
      await srv.services.engine.setPrequeue(Q, 1);
      await srv.kv.set(keys.drawPublished(Q), true);
      browser = await launchBrowser();
      const ctx = await browser.newContext({ viewport: { width: 420, height: 800 } });
      const page = await ctx.newPage();
      await page.goto(`${srv.base}/wait?queue=${Q}`);
      const words = await page.locator(".lottery").textContent();
      assert(words?.includes("ahead of everyone who arrives later"), `${words}`);
      // The arrival number comes with the first check-in after the tick numbered the join.
      await page.locator(".arrival").waitFor({ timeout: 10_000 });
      assert((await page.locator(".arrival").textContent())?.includes("#1"));
      assert(await page.locator(".place").count() === 0, "no place before the draw");
      await page.locator("#tg-wait[data-live='1']").waitFor({ timeout: 10_000 });
      await page.screenshot({ path: screenshotPath("wait-prequeue.png"), fullPage: true });
      // The draw at the opening time; the page learns its place at a check-in after it.
      await page.locator(".place").waitFor({ timeout: 30_000 });
      assert((await page.locator(".place").textContent()) === "#1");
      assert(page.url().includes("arrival=1"), page.url());
      assert(
        (await page.locator(".hint", { hasText: "arrival number was" }).textContent())
          ?.includes("#1"),
      );

      // The page's link carries the arrival number: the place shows as soon as the draw checks.
      const link = page.getByRole("link", { name: "Check the opening draw" });
      const href = (await link.getAttribute("href"))!;
      assert(href.includes(`queue=${Q}`) && href.includes("arrival=1"), href);
      const check = await ctx.newPage();
      await check.goto(new URL(href, srv.base).href);
      await check.getByRole("button", { name: "Check the published draw" }).click();
      await check.locator("#tg-verify-out", { hasText: "The draw checks out" }).waitFor({
        timeout: 10_000,
      });
      assertEquals(await check.getByLabel("Your arrival number").inputValue(), "1");
      await check.locator("#tg-verify-place", { hasText: "drawn to place 1 of 1" }).waitFor();
      await check.screenshot({ path: screenshotPath("draw-verify.png"), fullPage: true });
      // A tampered record pasted in fails.
      const rec = await (await fetch(`${srv.base}/draw?queue=${Q}`)).json();
      await check.locator("#tg-verify summary").click();
      await check.locator("#tg-verify-text").fill(JSON.stringify({ ...rec, seed: "1".repeat(64) }));
      await check.getByRole("button", { name: "Check this record" }).click();
      await check.locator("#tg-verify-out", { hasText: "does NOT check out" }).waitFor();
      await ctx.close();
    } finally {
      await browser?.close();
      await srv.close();
    }
  },
});
