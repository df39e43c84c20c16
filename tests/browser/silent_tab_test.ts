/**
 * A place nobody loses (issue 32) in real Chromium: a waiting tab that goes silent (its phone in a
 * train tunnel: the browser is offline; a tab the browser froze is the same to the room) stops
 * checking in. Past its
 * check-in window it is silent: the room's ticks pass over it (the next visitor is admitted
 * instead, no slot is given to a tab that cannot learn of it) and keep its place for the queue's return
 * grace. Back online within the grace, the same tab checks in again, and since its turn has passed it
 * is admitted by the next tick and lands on the site, without doing anything.
 *
 * Real time: the check-in window is two periods (5 s) plus 30 s, so the tab stays offline about
 * 45 s; the grace is the shortest an operator may set (30 s).
 */
import type { Browser, Page } from "playwright-core";
import { testConfig } from "../../lib/config.ts";
import { assert, assertEquals } from "../assert.ts";
import { serveApp } from "../live_app.ts";
import { launchBrowser } from "./helper.ts";

const Q = "grace";

/** Waits until `ok` holds, polling every 500 ms, for at most `ms`. */
async function until(ok: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Opens the wait page of `Q` in a fresh context and waits for its place. */
async function waiting(browser: Browser, base: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${base}/wait?queue=${Q}&return=/demo`);
  await page.locator(".place").waitFor({ timeout: 10_000 });
  return page;
}

Deno.test({
  name: "a tab that went silent keeps its place through the grace and goes in when it is back",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const srv = await serveApp(testConfig({ QUEUES: [Q] }));
    const { engine } = srv.services;
    let browser: Browser | undefined;
    try {
      // A tiny rate after one visitor took the instant slot: nobody else goes in unless admitted.
      await engine.setRate(Q, 0.01);
      await engine.join(Q, null);
      await engine.updateSettings(Q, (s) => void (s.returnGraceSeconds = 30));
      browser = await launchBrowser();
      const silentTab = await waiting(browser, srv.base);
      const behind = await waiting(browser, srv.base);
      const metrics = () => engine.metrics(Q);

      await silentTab.context().setOffline(true);
      await until(
        async () => {
          engine.ctx.invalidate(Q);
          return (await metrics()).silent >= 1;
        },
        70_000,
        "the silent tab to be counted",
      );

      // Admission passes over the silent tab: with the rate up, the tick admits the one behind
      // it, and two more ticks later the silent tab still waits (silent, its place kept).
      await engine.setRate(Q, 10);
      await behind.waitForURL(`${srv.base}/demo`, { timeout: 20_000 });
      await new Promise((r) => setTimeout(r, 2_000));
      engine.ctx.invalidate(Q);
      const kept = await metrics();
      assertEquals([kept.waiting, kept.silent, kept.abandoned], [1, 1, 0], JSON.stringify(kept));

      // Back within the grace: it checks in, and the next tick admits it (its turn has passed).
      await silentTab.context().setOffline(false);
      await silentTab.waitForURL(`${srv.base}/demo`, { timeout: 25_000 });
      // The silent count is listed at most every 5 s.
      await until(
        async () => {
          engine.ctx.invalidate(Q);
          return (await metrics()).silent === 0;
        },
        10_000,
        "the silent count to clear",
      );
      const m = await metrics();
      assert(m.returned >= 1, `counted as returned: ${JSON.stringify(m)}`);
      assertEquals(m.abandoned, 0, "nobody lost a place");
    } finally {
      await browser?.close();
      await srv.close();
    }
  },
});
