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

/** A server with the queue's check on and everyone waiting, for `fn`; closed after. */
async function withCheck(
  config: Record<string, unknown>,
  fn: (b: Browser, base: string) => Promise<void>,
): Promise<void> {
  const srv = await serveApp(testConfig({ QUEUES: ["default"], ...config }));
  await srv.services.engine.setPaused("default", true); // everyone waits
  await writeJoinGuards(srv.kv, "default", { challenge: "on", difficulty: 200_000 });
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    await fn(browser, srv.base);
  } finally {
    await browser?.close();
    await srv.services.guards.stats.idle();
    await srv.close();
  }
}

/**
 * Opens `url` (a /wait with the check): solved in a worker, said so, joined, the place shown.
 * With `only`, requests outside that path prefix reach "the site" (a 404), as behind a proxy that
 * gives Tollgate only its prefix.
 */
async function solvesAndJoins(b: Browser, url: string, shot?: string, only?: string) {
  const ctx = await b.newContext({ viewport: { width: 420, height: 760 } });
  if (only) {
    await ctx.route(
      "**/*",
      (r) =>
        new URL(r.request().url()).pathname.startsWith(only)
          ? r.continue()
          : r.fulfill({ status: 404, body: "the site's own 404" }),
    );
  }
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
  await page.goto(url);
  await page.locator("#tg-check progress").waitFor({ timeout: 10_000 });
  if (shot) await page.screenshot({ path: screenshotPath(shot), fullPage: true });
  // 0.8: the /wait after the join may still show "About #1" (the tick numbers the join
  // within a second); the exact place follows at the next check-in.
  await page.locator(".place", { hasText: /^#1$/ }).waitFor({ timeout: 30_000 });
  assert(workers.some((u) => u.includes("/static/build/pow_worker-")), workers.join());
  assert(said.some((s) => s.startsWith("Checking that you are a person")), said.join("|"));
  assert(said.some((s) => s.startsWith("Check done")), said.join("|"));
  await ctx.close();
}

Deno.test({
  name: "the /wait check in Chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: (t) =>
    withCheck({}, async (b, base) => {
      await t.step("solves in a worker, says so, joins and shows the place", async () => {
        await solvesAndJoins(b, `${base}/wait`, "wait-check.png");
      });
      await t.step("without JavaScript the page says the check needs it", async () => {
        const ctx = await b.newContext({ javaScriptEnabled: false });
        const page = await ctx.newPage();
        await page.goto(`${base}/wait`);
        const text = await page.locator("main").textContent();
        assert(text?.includes("The check needs JavaScript"), text ?? "");
        assertEquals((await ctx.cookies()).length, 0);
        await ctx.close();
      });
    }),
});

// The check joined and asked for its status at `/join` and `/status` whatever BASE_PATH said:
// behind a proxy that gives Tollgate only `/_tollgate/`, those reached the site.
Deno.test({
  name: "the /wait check joins under BASE_PATH",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    withCheck({ BASE_PATH: "/_tollgate" }, async (b, base) => {
      await solvesAndJoins(b, `${base}/_tollgate/wait`, undefined, "/_tollgate/");
    }),
});
