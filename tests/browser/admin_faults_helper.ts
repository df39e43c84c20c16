/**
 * The set-up the admin fault tests share: a service with its fakes, claimed and set up, and a
 * browser context signed in as its admin (tests/browser/admin_faults_test.ts,
 * tests/browser/admin_two_tabs_test.ts).
 */
import type { Browser, BrowserContext } from "playwright-core";
import { type AdminServer, startAdminServer } from "./admin_helper.ts";
import { launchBrowser } from "./helper.ts";

/** How long a step may wait for the page. */
export const T = { timeout: 15_000 };

/** One test over a set-up service with `queues`, in a browser context signed in as its admin. */
export function faultTest(
  name: string,
  queues: string[],
  fn: (s: AdminServer, ctx: BrowserContext, session: string) => Promise<void>,
) {
  Deno.test({
    name: `admin faults: ${name}`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const s = await startAdminServer(queues);
      let browser: Browser | undefined;
      try {
        const { session } = await s.claim();
        await s.completeSetup(session);
        browser = await launchBrowser();
        await fn(s, await s.signedIn(browser, session), session);
      } finally {
        await browser?.close();
        await s.close();
      }
    },
  });
}
