/**
 * axe-core (from npm) in a page under test: the WCAG 2.2 A and AA rules, as violations that name
 * the rule and the first elements, so a failing assertion says what to fix.
 */
import axe from "axe-core";
import type { Frame, Page } from "playwright-core";

/** The rule sets the pages must pass: WCAG 2.0, 2.1 and 2.2 at levels A and AA. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/**
 * The axe violations of the page as it is now. The engine is put in through the DevTools
 * protocol, so the page's strict CSP (no inline script) applies to it as to any extension.
 */
export async function axeViolations(page: Page | Frame): Promise<string[]> {
  await page.evaluate(`${axe.source};undefined`);
  return await page.evaluate(async (tags) => {
    // deno-lint-ignore no-explicit-any
    const engine = (globalThis as any).axe;
    const r = await engine.run(document, { runOnly: { type: "tag", values: tags } });
    // deno-lint-ignore no-explicit-any
    return r.violations.map((v: any) =>
      `${v.id} (${v.impact}): ${v.help} — ${
        // deno-lint-ignore no-explicit-any
        v.nodes.slice(0, 3).map((n: any) => n.target.join(" ")).join(" | ")}`
    );
  }, WCAG_TAGS);
}

/** The two themes and the two widths every page is checked in. */
export const LOOKS = [
  { name: "light desktop", colorScheme: "light", viewport: { width: 1280, height: 900 } },
  { name: "dark desktop", colorScheme: "dark", viewport: { width: 1280, height: 900 } },
  { name: "light 390px", colorScheme: "light", viewport: { width: 390, height: 844 } },
  { name: "dark 390px", colorScheme: "dark", viewport: { width: 390, height: 844 } },
] as const;
