/**
 * The waiting room in real Chromium against a real server: wait, admission by /admit, the
 * destination, click-to-enter, a background tab, embed, lottery wording and the no-JS refresh.
 * Admitted visitors learn it at their next check-in (front of line: every 5 s), so the waits
 * below are on the UI with generous timeouts, never fixed sleeps.
 */
import type { Browser, Page } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { launchBrowser, screenshotPath, startHostPage, startServer } from "./helper.ts";

const TURN_MS = 20_000;
const QUEUES = ["default", "click", "hidden", "embed", "xsite", "theme", "lottery", "nojs"];

async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).first().textContent({ timeout: 10_000 })) ?? "";
}

Deno.test({
  name: "waiting room in Chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const srv = await startServer(QUEUES);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const b = browser;

      await t.step("a visitor waits, is admitted by /admit and lands on /demo", async () => {
        const ctx = await b.newContext({ viewport: { width: 420, height: 760 } });
        const page = await ctx.newPage();
        const checks: number[] = [];
        page.on("request", (r) => r.url().includes("/status?") && checks.push(Date.now()));
        await page.goto(`${srv.base}/wait?return=/demo`);
        // 0.8: the join's place is provisional until the tick numbered it, and says so.
        assertEquals(await text(page, ".place"), "About #1");
        assert((await text(page, ".eta")).startsWith("Estimated wait: about"));
        assertEquals(await page.locator("[aria-live=polite]").count(), 1);
        // The island took over: the no-JS refresh is inert, the bundle ran.
        await page.locator("#tg-wait[data-live='1']").waitFor({ timeout: 10_000 });
        assert(page.url().endsWith("&start=1"), `the baseline is kept in ${page.url()}`);
        // The first check-in after the tick brings the exact place (and the count).
        await page.locator(".place", { hasText: /^#1( of 1)?$/ }).waitFor({ timeout: TURN_MS });
        await page.screenshot({ path: screenshotPath("wait-waiting.png"), fullPage: true });
        assertEquals(await srv.admit("default"), 1);
        await page.waitForURL(`${srv.base}/demo`, { timeout: TURN_MS });
        // Timeslots, not a fast loop: the front of the line checks in about every 5 s.
        assert(checks.length >= 1 && checks.length <= 4, `${checks.length} status calls`);
        for (let i = 1; i < checks.length; i++) assert(checks[i] - checks[i - 1] >= 900);
        assertEquals(await text(page, "[data-claim=queue]"), "default");
        assert((await text(page, "[data-claim=sub]")).length >= 8);
        // The screenshot shows sample claims: the real ones (a random id, today's times) would
        // change the committed image on every run.
        await page.evaluate(() => {
          const sample: Record<string, string> = {
            sub: "3kQ9xV2mLr8TfWb1Yc7NpZ0aHs4Ue6Jd",
            iat: "2026-01-01T12:00:00Z",
            exp: "2026-01-01T12:15:00Z (in about 15 minutes)",
          };
          for (const el of document.querySelectorAll<HTMLElement>("[data-claim]")) {
            el.textContent = sample[el.dataset.claim!] ?? el.textContent;
          }
        });
        await page.screenshot({ path: screenshotPath("demo.png"), fullPage: true });
        await ctx.close();
      });

      await t.step("click-to-enter: an Enter now button with the countdown", async () => {
        await srv.setBranding({ clickToEnter: true, admitHoldSeconds: 60, title: "Big sale" });
        const ctx = await b.newContext({ viewport: { width: 420, height: 760 } });
        // Records the countdown's first text: it must be right from its first render.
        await ctx.addInitScript(() => {
          const w = globalThis as unknown as { __first?: string };
          new MutationObserver(() => {
            const el = document.querySelector(".countdown");
            if (el && w.__first === undefined) w.__first = el.textContent ?? "";
          }).observe(document, { subtree: true, childList: true, characterData: true });
        });
        const page = await ctx.newPage();
        await page.goto(`${srv.base}/wait?queue=click&return=/demo`);
        await page.locator(".place").waitFor();
        // A few check-ins pass first, so the page's render time is seconds old at admission.
        for (let i = 0; i < 3; i++) {
          await page.waitForResponse((r) => r.url().includes("/status?"), { timeout: TURN_MS });
        }
        await srv.admit("click");
        const button = page.getByRole("button", { name: "Enter now" });
        await button.waitFor({ timeout: TURN_MS });
        assert(/^[01]:\d\d$/.test(await text(page, ".countdown")), "a m:ss countdown");
        // Held 60 s from the check-in that told the visitor (seconds after the page loaded):
        // counted from the page load instead, it would first show 1:03 or more.
        const first = await page.evaluate(() => (globalThis as { __first?: string }).__first);
        const [m, sec] = (first ?? "9:99").split(":").map(Number);
        assert(m * 60 + sec <= 62, `the countdown started at ${first}`);
        assert((await page.title()).startsWith("✅ It's your turn — Big sale"));
        await page.screenshot({ path: screenshotPath("wait-admitted.png"), fullPage: true });
        await button.click();
        await page.waitForURL(`${srv.base}/demo`, { timeout: 10_000 });
        assertEquals(await text(page, "[data-claim=queue]"), "click");
        await ctx.close();
        await srv.setBranding({});
      });

      await t.step("background tab: the title changes and a notification is shown", async () => {
        const ctx = await b.newContext();
        // Stand-ins the test controls: a hidden tab and a granted Notification permission.
        await ctx.addInitScript(() => {
          const w = globalThis as unknown as Record<string, unknown>;
          w.__hidden = false;
          w.__notes = [];
          Object.defineProperty(Document.prototype, "hidden", {
            configurable: true,
            get: () => w.__hidden,
          });
          class FakeNotification {
            static permission = "granted";
            static requestPermission = () => Promise.resolve("granted");
            onclick: unknown = null;
            constructor(title: string) {
              (w.__notes as string[]).push(title);
            }
            close() {}
          }
          w.Notification = FakeNotification;
        });
        const page = await ctx.newPage();
        await page.goto(`${srv.base}/wait?queue=hidden&return=/demo`);
        await page.locator(".place").waitFor();
        await page.evaluate(() => (globalThis as unknown as { __hidden: boolean }).__hidden = true);
        await srv.admit("hidden");
        await page.waitForFunction(() => document.title.startsWith("✅ It's your turn"), null, {
          timeout: TURN_MS,
        });
        assert(page.url().startsWith(`${srv.base}/wait?queue=hidden`), "stays while hidden");
        assertEquals(
          await page.evaluate(() => (globalThis as unknown as { __notes: string[] }).__notes),
          ["It's your turn"],
        );
        await page.evaluate(() => {
          (globalThis as unknown as { __hidden: boolean }).__hidden = false;
          document.dispatchEvent(new Event("visibilitychange"));
        });
        await page.waitForURL(`${srv.base}/demo`, { timeout: 10_000 });
        await ctx.close();
      });

      await t.step(
        "embed: compact, framed by another origin, Continue opens the window",
        async () => {
          const host = startHostPage(`${srv.base}/wait?queue=embed&embed=1&return=/demo`);
          try {
            const ctx = await b.newContext();
            const page = await ctx.newPage();
            await page.goto(host.base);
            const frame = page.frameLocator("iframe");
            await frame.locator(".place").waitFor({ timeout: 10_000 });
            assertEquals(await frame.locator("body.embed").count(), 1);
            assertEquals(await frame.locator("footer").count(), 0, "no page chrome");
            await srv.admit("embed");
            // Same-site embedding may move the whole window by itself; elsewhere the browser
            // asks for a click, and the Continue link (target=_top) is there for it.
            const go = frame.getByRole("link", { name: "Continue" });
            go.waitFor({ timeout: TURN_MS }).then(() => go.click()).catch(() => {});
            await page.waitForURL(`${srv.base}/demo`, { timeout: TURN_MS });
            assertEquals(await text(page, "[data-claim=queue]"), "embed");
            await ctx.close();
          } finally {
            await host.close();
          }
        },
      );

      await t.step(
        "embed on another SITE (no cookie kept): at most one rejoin, then its own window",
        async () => {
          const src = `${srv.base}/wait?queue=xsite&embed=1&return=/demo`;
          const host = startHostPage(src, "localhost");
          try {
            const ctx = await b.newContext();
            const page = await ctx.newPage();
            const joins: string[] = [];
            page.on("request", (r) => {
              const u = new URL(r.url());
              if (u.pathname === "/join" || (u.pathname === "/wait" && r.method() === "GET")) {
                joins.push(`${r.method()} ${u.pathname}`);
              }
            });
            await page.goto(host.base);
            const frame = page.frameLocator("iframe");
            await frame.locator(".place").waitFor({ timeout: 10_000 });
            const link = frame.getByRole("link", {
              name: "Open the waiting room in its own window",
            });
            await link.waitFor({ timeout: 30_000 });
            assertEquals(joins, ["GET /wait", "POST /join"], "the page load and one rejoin");
            assertEquals(await link.getAttribute("target"), "_blank");
            assertEquals(await link.getAttribute("href"), "/wait?queue=xsite&return=%2Fdemo");
            const said = await frame.locator("[aria-live=polite]").textContent();
            assert(said?.includes("cookie"), `${said}`);
            // The loop has stopped: no timer is left to join again (checked on the server too).
            const m = await fetch(`${srv.base}/metrics?queue=xsite`, {
              headers: { authorization: `Bearer ${srv.config.TOKEN_SECRET}` },
            });
            const rows = (await m.json()).waiting;
            assert(rows <= 2, `${rows} waiting rows: the page load and one rejoin at most`);
            await ctx.close();
          } finally {
            await host.close();
          }
        },
      );

      await t.step("a dark branding background keeps page and card readable", async () => {
        await srv.setBranding({ backgroundColor: "#111111" });
        for (const colorScheme of ["light", "dark"] as const) {
          const ctx = await b.newContext({ colorScheme });
          const page = await ctx.newPage();
          await page.goto(`${srv.base}/wait?queue=theme`);
          const colours = await page.evaluate(() => {
            const c = (sel: string, prop: "color" | "backgroundColor") =>
              getComputedStyle(document.querySelector(sel)!)[prop];
            return {
              body: c("body", "backgroundColor"),
              footer: c("footer", "color"),
              card: c(".card", "backgroundColor"),
              h1: c("h1", "color"),
              eta: c(".eta", "color"),
            };
          });
          assertEquals(colours.body, "rgb(17, 17, 17)", colorScheme);
          assert(colours.footer !== colours.body, `footer on the page: ${JSON.stringify(colours)}`);
          assert(colours.h1 !== colours.card && colours.eta !== colours.card, colorScheme);
          assertEquals(
            [colours.card, colours.h1],
            colorScheme === "light"
              ? ["rgb(255, 255, 255)", "rgb(15, 23, 42)"]
              : ["rgb(17, 24, 39)", "rgb(229, 231, 235)"],
          );
          await ctx.close();
        }
        await srv.setBranding({});
      });

      await t.step("lottery: no position, a draw decides, odds with showWaitingCount", async () => {
        await srv.setBranding({ showWaitingCount: true });
        const res = await fetch(`${srv.base}/mode`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${srv.config.TOKEN_SECRET}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ queue: "lottery", mode: "lottery" }),
        });
        assertEquals(res.status, 200);
        await res.body?.cancel();
        const ctx = await b.newContext();
        const page = await ctx.newPage();
        await page.goto(`${srv.base}/wait?queue=lottery`);
        assert(
          (await text(page, ".lottery")).includes(
            "a random draw picks who goes in among everyone waiting",
          ),
        );
        assertEquals(await page.locator(".place").count(), 0);
        assert((await text(page, ".odds")).includes("your chance at the next draw"));
        await ctx.close();
        await srv.setBranding({});
      });

      await t.step("no JavaScript: the page refreshes at its timeslot and gets in", async () => {
        const ctx = await b.newContext({ javaScriptEnabled: false });
        const page = await ctx.newPage();
        await page.goto(`${srv.base}/wait?queue=nojs&return=/demo`);
        // 0.8: provisional until the tick numbered the join; the refresh at the timeslot is exact.
        assertEquals(await text(page, ".place"), "About #1");
        await page.locator(".place", { hasText: /^#1( of 1)?$/ }).waitFor({ timeout: TURN_MS });
        await srv.admit("nojs");
        await page.waitForURL(`${srv.base}/demo`, { timeout: TURN_MS });
        assertEquals(await text(page, "[data-claim=queue]"), "nojs");
        await ctx.close();
      });
    } finally {
      await browser?.close();
      await srv.close();
    }
  },
});
