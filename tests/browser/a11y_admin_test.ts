/**
 * The admin app under axe-core (WCAG 2.2 A and AA): each step of the setup wizard and every tab of
 * the control room, light and dark, desktop and 390 px wide: no violations. The wizard's steps
 * are reached through the API (another test clicks through them), then shown in the browser.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals } from "../assert.ts";
import { CF_TOKEN, EDGE_HOST, startAdminServer, ZONE } from "./admin_helper.ts";
import { axeViolations, LOOKS } from "./axe.ts";
import { launchBrowser } from "./helper.ts";

const T = { timeout: 15_000 };
const TABS = ["live", "admission", "branding", "access", "edge", "team", "system"];

/** The page once its reads have landed (no busy region left). */
async function settled(page: Page) {
  await page.locator("h1, h2").first().waitFor(T);
  await page.waitForFunction(() => !document.querySelector("[aria-busy=true]"), null, T);
}

Deno.test({
  name: "admin app: 0 axe violations at WCAG 2.2 AA on every wizard step and tab, light and dark",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    const must = async (method: string, path: string, body: unknown, session: string) => {
      const r = await s.call(method, path, body, session);
      if (r.status >= 300) {
        throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
      }
      return r.json;
    };
    try {
      browser = await launchBrowser();
      /** Checks /admin as it is now, in every look, signed in with `session` when given. */
      const checkAll = async (name: string, session?: string, hash = "") => {
        for (const look of LOOKS) {
          const ctx = session
            ? await s.signedIn(browser!, session, look.viewport)
            : await browser!.newContext({ viewport: look.viewport });
          await ctx.route(() => true, (r) => r.continue());
          const page = await ctx.newPage();
          await page.emulateMedia({ colorScheme: look.colorScheme });
          try {
            await page.goto(`${s.base}/admin${hash}`);
            await settled(page);
            assertEquals(await axeViolations(page), [], `${name}, ${look.name}`);
          } finally {
            await ctx.close();
          }
        }
      };

      await t.step("wizard: the first step (no account yet)", () => checkAll("wizard 1"));
      const { session } = await s.claim();
      await t.step("wizard: the edge step", () => checkAll("wizard 2", session));
      await must("POST", "/api/admin/setup/edge/token-verify", { token: CF_TOKEN }, session);
      await must(
        "POST",
        "/api/admin/setup/edge/verify",
        { zone: ZONE, hostname: EDGE_HOST },
        session,
      );
      await must("POST", "/api/admin/setup/edge/fix", {}, session);
      await must("PUT", "/api/admin/setup/edge/ssl", { mode: "strict" }, session);
      await t.step("wizard: the bot check step", () => checkAll("wizard 3", session));
      const p = await must("POST", "/api/admin/setup/challenge/provision", {}, session);
      await must(
        "POST",
        "/api/admin/setup/challenge/verify",
        { response: s.turnstile.solve(p.siteKey, EDGE_HOST) },
        session,
      );
      await t.step("wizard: the queue step", () => checkAll("wizard 4", session));
      await must("POST", "/api/admin/setup/step", { step: "queue", queue: "default" }, session);
      await t.step("wizard: the branding step", () => checkAll("wizard 5", session));
      await must("POST", "/api/admin/setup", undefined, session);
      for (const tab of TABS) {
        await t.step(`tab ${tab}`, () => checkAll(`tab ${tab}`, session, `#${tab}`));
      }
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
