/**
 * The admin app for keyboard and screen-reader users, on every control-room tab: each form
 * control has an accessible name, each tab has a level-2 heading and (where it has forms) a live
 * region for results, and Tab moves through the page without getting stuck. Also at phone width: no
 * sideways scrolling on any tab.
 */
import type { Browser, Page } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { startAdminServer } from "./admin_helper.ts";
import { launchBrowser } from "./helper.ts";

const TABS = ["live", "admission", "branding", "access", "edge", "team", "system"];

/** Controls without an accessible name (label, aria-label, aria-labelledby or title). */
function unnamed(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (
      const el of document.querySelectorAll<HTMLElement>(
        "#admin-main input:not([type=hidden]), #admin-main select, #admin-main textarea, #admin-main button",
      )
    ) {
      const labels = (el as HTMLInputElement).labels;
      const named = (labels && labels.length > 0) || el.getAttribute("aria-label") ||
        el.getAttribute("aria-labelledby") || el.title ||
        (el.tagName === "BUTTON" && (el.textContent ?? "").trim());
      if (!named) out.push(el.outerHTML.slice(0, 120));
    }
    return out;
  });
}

Deno.test({
  name: "admin app: named controls, headings, live regions, keyboard and phone width on every tab",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      browser = await launchBrowser();
      for (
        const [label, viewport] of [["desktop", { width: 1100, height: 900 }], ["phone", {
          width: 390,
          height: 844,
        }]] as const
      ) {
        await t.step(label, async () => {
          const ctx = await s.signedIn(browser!, session, viewport);
          const page = await ctx.newPage();
          page.setDefaultTimeout(10_000);
          for (const tab of TABS) {
            await page.goto(`${s.base}/admin#${tab}`);
            const panel = page.locator(`#panel-${tab}`);
            await panel.locator("h2").first().waitFor();
            // Let the tab's first reads land (their forms are disabled until then).
            await page.waitForFunction(() => !document.querySelector("[aria-busy=true]"));
            assertEquals(await unnamed(page), [], `${tab}: every control is named`);
            // Tabs with forms announce results in a live region (Live only reads: its refresh
            // errors appear as role=alert when they happen).
            if (tab !== "live") {
              assert(
                await panel.locator("[aria-live], [role=status], [role=alert]").count() > 0,
                `${tab}: a live region for results`,
              );
            }
            const overflow = await page.evaluate(() =>
              document.documentElement.scrollWidth - document.documentElement.clientWidth
            );
            assert(overflow <= 1, `${tab} at ${label}: ${overflow}px of sideways scrolling`);
            // Tab walks forward through distinct elements (no trap) from the tab list.
            await page.locator(`#tab-${tab}`).focus();
            const seen = new Set<string>();
            let last = "";
            for (let i = 0; i < 16; i++) {
              await page.keyboard.press("Tab");
              const id = await page.evaluate(() => {
                const el = document.activeElement as HTMLElement | null;
                if (!el || el === document.body) return "body";
                const all = [...document.querySelectorAll("*")];
                return `${el.tagName}#${all.indexOf(el)}`;
              });
              if (id === "body") break;
              // A date-time input takes several presses (one per segment); a trap is coming back
              // to an element after others.
              if (id === last) continue;
              assert(!seen.has(id), `${tab}: focus came back to ${id} (a keyboard trap)`);
              seen.add(id);
              last = id;
            }
            assert(seen.size > 0, `${tab}: Tab reaches the tab's controls`);
          }
          await ctx.close();
        });
      }
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
