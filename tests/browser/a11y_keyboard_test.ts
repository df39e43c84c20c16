/**
 * What axe cannot see, in real Chromium: the visitor flow by keyboard alone (Tab reaches every
 * control with a visible focus ring, the language menu opens with Enter, "Enter now" takes the
 * focus when it appears and Enter goes in); a changed place in line is not announced more than
 * once every 30 s (the live region keeps its words while the number on screen moves); with
 * reduced motion nothing moves; at 200% zoom and at 200% text nothing is cut off or needs
 * sideways scrolling.
 */
import type { Browser, Page } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { testConfig } from "../../lib/config.ts";
import { serveApp } from "../live_app.ts";
import { writeBranding } from "../helpers.ts";
import { launchBrowser } from "./helper.ts";

const T = { timeout: 20_000 };

/** The focused element: tag, text and whether a focus ring shows. */
function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return null;
    const cs = getComputedStyle(el);
    return {
      tag: el.tagName.toLowerCase(),
      text: (el.textContent ?? "").trim().slice(0, 40),
      ring: cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) >= 2,
    };
  });
}

/** Pixels of sideways scrolling, and elements whose text is cut off inside the card. */
function overflow(page: Page) {
  return page.evaluate(() => {
    const root = document.documentElement;
    const clipped = [...document.querySelectorAll<HTMLElement>("main *")].filter((el) =>
      el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "hidden" &&
      el.tagName !== "PROGRESS"
    ).map((el) => el.outerHTML.slice(0, 80));
    return { sideways: root.scrollWidth - root.clientWidth, clipped };
  });
}

Deno.test({
  name: "visitor pages: keyboard only, focus on Enter now, calm live region, reduced motion, 200%",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const queues = ["click", "line", "pre"];
    const { base, kv, services, close } = await serveApp(testConfig({ QUEUES: queues }));
    const e = services.engine;
    let browser: Browser | undefined;
    try {
      for (const q of queues) {
        await e.setRate(q, 0.01);
        await e.join(q, null);
      }
      await e.setOpensAt("pre", Date.now() + 3_600_000);
      await e.setPrequeue("pre", 120);
      await writeBranding(kv, e, { clickToEnter: true, admitHoldSeconds: 600 });
      browser = await launchBrowser();

      await t.step("keyboard only: every control reached with a ring, then Enter now", async () => {
        const ctx = await browser!.newContext();
        const page = await ctx.newPage();
        await page.goto(`${base}/wait?queue=click&return=/demo`);
        await page.locator(".place").waitFor(T);
        const seen: string[] = [];
        for (let i = 0; i < 12; i++) {
          await page.keyboard.press("Tab");
          const f = await focused(page);
          if (!f) break;
          assert(f.ring, `a visible focus ring on ${f.tag} "${f.text}"`);
          if (seen.includes(`${f.tag}:${f.text}`)) break;
          seen.push(`${f.tag}:${f.text}`);
        }
        assert(seen.some((s) => s.startsWith("summary:")), `the language menu: ${seen}`);
        assert(seen.some((s) => s.includes("How it works")), `the footer link: ${seen}`);
        // The language menu opens from the keyboard and its links are reachable.
        await page.locator(".langs summary").focus();
        await page.keyboard.press("Enter");
        await page.keyboard.press("Tab");
        assertEquals((await focused(page))?.text, "English");
        await page.keyboard.press("Escape");
        // The turn: "Enter now" appears and takes the focus by itself; Enter goes in.
        await e.admit("click", 5);
        const enter = page.getByRole("button", { name: "Enter now" });
        await enter.waitFor(T);
        await page.waitForFunction(() => document.activeElement?.textContent === "Enter now", T);
        await page.keyboard.press("Enter");
        await page.waitForURL(/\/demo$/, T);
        await ctx.close();
      });

      await t.step("a moving place is shown at once but announced at most every 30 s", async () => {
        const ctx = await browser!.newContext();
        const page = await ctx.newPage();
        // Two people ahead in line, so the place moves when one is let in.
        await e.join("line", null);
        await page.goto(`${base}/wait?queue=line`);
        await page.locator(".place").waitFor(T);
        const live = page.locator("[role=status][aria-live=polite]").first();
        // 0.8: the join's place is "About #N" until the tick numbered it; the exact place that
        // follows is news and announced at once. The 30 s rule is for moves of an exact place.
        await page.locator(".place", { hasText: /^#/ }).waitFor(T);
        await page.waitForFunction(
          () => !document.querySelector("[role=status]")?.textContent?.includes("about"),
          undefined,
          T,
        );
        const first = await live.textContent();
        const place = await page.locator(".place").textContent();
        assert(first?.includes("number"), first ?? "");
        await e.admit("line", 1);
        await page.waitForFunction(
          (was) => document.querySelector(".place")?.textContent !== was,
          place,
          T,
        );
        assertEquals(await live.textContent(), first, "the live region still says the old place");
        await ctx.close();
      });

      await t.step("reduced motion: nothing animates, the busy bar stands still", async () => {
        const ctx = await browser!.newContext({ reducedMotion: "reduce" });
        const page = await ctx.newPage();
        await page.goto(`${base}/wait?queue=pre`);
        await page.locator(".arrival").waitFor(T);
        const st = await page.locator("progress:not([value])").evaluate((el) => ({
          appearance: getComputedStyle(el).appearance,
          running: document.getAnimations().length,
        }));
        assertEquals(st, { appearance: "none", running: 0 });
        await ctx.close();
      });

      await t.step("200% zoom and 200% text: no sideways scrolling, nothing cut off", async () => {
        // A 1280 px window at 200% zoom lays out like 640 CSS px; at 400% like 320 (WCAG 1.4.10).
        for (const width of [640, 320]) {
          const ctx = await browser!.newContext({
            viewport: { width, height: 480 },
            deviceScaleFactor: 2,
          });
          const page = await ctx.newPage();
          for (const path of ["/wait?queue=line", "/wait?queue=pre", "/wait/how-it-works"]) {
            await page.goto(base + path);
            await page.locator("h1").waitFor(T);
            assertEquals(await overflow(page), { sideways: 0, clipped: [] }, `${path} at ${width}`);
            await page.evaluate(() => document.documentElement.style.fontSize = "200%");
            const big = await overflow(page);
            assertEquals(big, { sideways: 0, clipped: [] }, `${path} at ${width}, text 200%`);
          }
          await ctx.close();
        }
      });
    } finally {
      await browser?.close();
      await close();
    }
  },
});
