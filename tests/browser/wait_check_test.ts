/**
 * The check before joining, in real Chromium against a real server: while the queue's bot
 * challenge is on, /wait solves it in a Web Worker with an announced progress line, joins, and
 * shows the place in line; with JavaScript off it says the check needs JavaScript.
 */
import type { Browser } from "playwright-core";
import { writeJoinGuards } from "../../lib/guard/settings.ts";
import { testConfig } from "../../lib/config.ts";
import { assert, assertEquals } from "../assert.ts";
import { launchBrowser, screenshotPath, serveApp } from "./helper.ts";

Deno.test({
  name: "the /wait check in Chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const srv = await serveApp(testConfig({ QUEUES: ["default"] }));
    await srv.services.engine.setPaused("default", true); // everyone waits
    await writeJoinGuards(srv.kv, "default", { challenge: "on", difficulty: 200_000 });
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const b = browser;
      await t.step("solves in a worker, says so, joins and shows the place", async () => {
        const ctx = await b.newContext({ viewport: { width: 420, height: 760 } });
        const page = await ctx.newPage();
        const said: string[] = [];
        await page.exposeFunction("tgSaid", (s: string) => said.push(s));
        await page.addInitScript(() => {
          new MutationObserver(() => {
            const el = document.querySelector("[aria-live=polite]");
            // deno-lint-ignore no-explicit-any
            if (el) (globalThis as any).tgSaid(el.textContent ?? "");
          }).observe(document, { subtree: true, childList: true, characterData: true });
        });
        const workers: string[] = [];
        page.on("worker", (w) => workers.push(w.url()));
        await page.goto(`${srv.base}/wait`);
        await page.locator("#tg-check progress").waitFor({ timeout: 10_000 });
        await page.screenshot({ path: screenshotPath("wait-check.png"), fullPage: true });
        // 0.8: the /wait after the join may still show "About #1" (the tick numbers the join
        // within a second); the exact place follows at the next check-in.
        await page.locator(".place", { hasText: /^#1$/ }).waitFor({ timeout: 30_000 });
        assert(workers.some((u) => u.includes("/static/build/pow_worker-")), workers.join());
        assert(said.some((s) => s.startsWith("Checking that you are a person")), said.join("|"));
        assert(said.some((s) => s.startsWith("Check done")), said.join("|"));
        await ctx.close();
      });
      await t.step("without JavaScript the page says the check needs it", async () => {
        const ctx = await b.newContext({ javaScriptEnabled: false });
        const page = await ctx.newPage();
        await page.goto(`${srv.base}/wait`);
        const text = await page.locator("main").textContent();
        assert(text?.includes("The check needs JavaScript"), text ?? "");
        assertEquals((await ctx.cookies()).length, 0);
        await ctx.close();
      });
    } finally {
      await browser?.close();
      await srv.services.guards.stats.idle();
      await srv.close();
    }
  },
});
