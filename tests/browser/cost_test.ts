/** The cost calculator page (/cost) renders its comparison chart in real Chromium. */
import type { Browser } from "playwright-core";
import { assert } from "../assert.ts";
import { launchBrowser, screenshotPath, startServer } from "./helper.ts";

Deno.test({
  name: "the cost chart renders at /cost",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const srv = await startServer(["default"]);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const page = await (await browser.newContext({ viewport: { width: 900, height: 900 } }))
        .newPage();
      const res = await page.goto(`${srv.base}/cost`);
      assert(res?.ok(), `GET /cost answered ${res?.status()}`);
      const chart = page.locator('svg[role="img"], canvas[role="img"]').first();
      await chart.waitFor({ timeout: 10_000 });
      const box = await chart.boundingBox();
      assert(box && box.width > 100 && box.height > 50, `chart box ${JSON.stringify(box)}`);
      const label = (await chart.getAttribute("aria-label")) ??
        (await chart.locator("title").first().textContent().catch(() => null));
      assert(label && label.length > 0, "the chart has an accessible name");
      await page.screenshot({ path: screenshotPath("cost.png"), fullPage: true });
    } finally {
      await browser?.close();
      await srv.close();
    }
  },
});
