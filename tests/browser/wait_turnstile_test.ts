/**
 * Turnstile on join in real Chromium: a queue that picks Turnstile shows the (fake) widget on
 * /wait; solving it joins the line. The page is reached by the widget's hostname, mapped to
 * loopback, as Turnstile checks the hostname a challenge was solved on.
 */
import type { Browser } from "playwright-core";
import { writeJoinGuards } from "../../lib/guard/settings.ts";
import { assertEquals } from "../assert.ts";
import { EDGE_HOST, startAdminServer } from "./admin_helper.ts";
import { launchBrowser } from "./helper.ts";

const T = { timeout: 15_000 };

Deno.test({
  name: "the /wait check with Turnstile in Chromium",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const s = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      await s.services.engine.setPaused("default", true);
      await writeJoinGuards(s.kv, "default", { challenge: "on", provider: "turnstile" });
      browser = await launchBrowser([
        `--host-resolver-rules=MAP ${EDGE_HOST} 127.0.0.1`,
        "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable",
      ]);
      const page = await (await browser.newContext()).newPage();
      const port = new URL(s.base).port;
      await page.goto(`http://${EDGE_HOST}:${port}/wait`);
      const frame = page.frameLocator(".turnstile iframe");
      await frame.getByRole("button", { name: "Verify you are human" }).click(T);
      // 0.8: "About #1" until the tick numbered the join; exact at the next check-in.
      await page.locator(".place", { hasText: /^#1$/ }).waitFor({ timeout: 20_000 });
      const r = await s.call("GET", "/api/admin/join-guards", undefined, session);
      assertEquals(r.json.lastHour.challengesSolved, 1);
    } finally {
      await browser?.close();
      await s.services.guards.stats.idle();
      await s.close();
    }
  },
});
