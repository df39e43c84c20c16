/**
 * Moving a place while the queue is over its budget of wrong resume codes, in real Chromium: the
 * resume link's form answers the check page, which solves the proof-of-work challenge in a Web
 * Worker, sends the form again with the solution and lands on /wait holding the moved place.
 */
import type { Browser } from "playwright-core";
import { countAttempt, RATE_LIMITS } from "../../lib/admin/rate_limit.ts";
import { testConfig } from "../../lib/config.ts";
import { assert } from "../assert.ts";
import { launchBrowser, screenshotPath, serveApp } from "./helper.ts";

const Q = "default";

Deno.test({
  name: "the resume form solves the check in Chromium when the queue asks for it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const srv = await serveApp(testConfig({ QUEUES: [Q] }));
    await srv.services.engine.setPaused(Q, true); // everyone waits
    let browser: Browser | undefined;
    try {
      // A place held elsewhere, and its code's link.
      const joined = await fetch(`${srv.base}/join`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ queue: Q }),
      });
      const { visitorId } = await joined.json();
      const ticket = joined.headers.getSetCookie().find((c) => c.startsWith("tg_ticket="))!
        .split(";")[0];
      const made = await fetch(`${srv.base}/resume/code`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: ticket },
        body: JSON.stringify({ queue: Q }),
      });
      const { link } = await made.json();
      // The queue's wrong codes are over its budget (guessers from many addresses).
      for (let i = 0; i < RATE_LIMITS.resumeQueue.max; i++) {
        await countAttempt(srv.kv, srv.services.clock, "resumeQueue", Q);
      }
      browser = await launchBrowser();
      const ctx = await browser.newContext({ viewport: { width: 420, height: 760 } });
      const page = await ctx.newPage();
      const workers: string[] = [];
      page.on("worker", (w) => workers.push(w.url()));
      const path = new URL(link).pathname + new URL(link).search;
      await page.goto(`${srv.base}${path}`);
      await page.getByRole("button", { name: "Continue here" }).click();
      await page.locator("#tg-check").waitFor({ timeout: 10_000 });
      await page.screenshot({ path: screenshotPath("resume-check.png"), fullPage: true });
      await page.waitForURL((u) => u.pathname === "/wait", { timeout: 30_000 });
      await page.locator("#tg-wait[data-live='1']").waitFor({ timeout: 10_000 });
      assert(workers.some((u) => u.includes("/static/build/pow_worker-")), workers.join());
      const held = await page.evaluate(async (q) => {
        const r = await fetch(`/status?queue=${q}`);
        return (await r.json()).visitorId as string;
      }, Q);
      assert(held === visitorId, `the moved place is held here: ${held} vs ${visitorId}`);
      await ctx.close();
    } finally {
      await browser?.close();
      await srv.close();
    }
  },
});
