/**
 * The Admission tab's opening card in real Chromium against a real server: a pre-queue refused
 * without an opening time, turned on with its window, the live participant count and commitment
 * while the window is open (the form then locked), and the draw record published.
 */
import type { Browser } from "playwright-core";
import { keys } from "../../lib/store/keys.ts";
import { assert, assertEquals } from "../assert.ts";
import { startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

Deno.test({
  name: "admin opening card: pre-queue, participants, commitment, publication",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const s = await startAdminServer(["default"], { ADMIT_PER_SECOND: 0.1 });
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      browser = await launchBrowser();
      const ctx = await s.signedIn(browser, session, { width: 1100, height: 1400 });
      const page = await ctx.newPage();
      await page.goto(`${s.base}/admin#admission`);
      const card = page.locator("section.card", {
        has: page.getByRole("heading", { name: "Fair opening (pre-queue)" }),
      });
      await card.waitFor({ timeout: 15_000 });
      // Without an opening time: refused in the card, nothing saved.
      await card.getByRole("radio", { name: /^Pre-queue: shuffle/ }).check();
      await card.getByRole("button", { name: "Save pre-queue" }).click();
      await card.locator("p.status", { hasText: "Set an opening time first" }).waitFor();
      // With one, 30 minutes ahead: a window of 60 minutes is open at once.
      const opensAt = Date.now() + 30 * 60_000;
      await s.services.engine.setOpensAt("default", opensAt);
      // The tab follows the change made elsewhere within its 5 s refresh.
      await page.locator("section.card", {
        has: page.getByRole("heading", { name: "Opening time", exact: true }),
      }).getByText(/^Opens (?!at \()/).waitFor({ timeout: 15_000 });
      await card.getByLabel("Window before the opening time (minutes)").fill("60");
      await card.getByRole("button", { name: "Save pre-queue" }).click();
      await card.locator("p.status", { hasText: "Pre-queue on: 60 minutes" }).waitFor();
      assertEquals((await s.services.engine.settings("default")).prequeueMinutes, 60);
      for (let i = 0; i < 3; i++) await s.services.engine.join("default", null);
      // 0.8: the joins are numbered, and the round's commitment published with the window's
      // first numbering, by the tick's sequencer. main.ts ticks every second; this server ticks
      // on visitor requests only and none come here, so the sequencer runs now.
      await s.services.engine.sequence("default");
      await card.getByText(/Window open until .*: 3 waiting for the draw/).waitFor({
        timeout: 15_000,
      });
      const commitment = (await s.services.engine.metrics("default")).prequeue.commitment!;
      await card.getByText(commitment).waitFor();
      assert(await card.getByRole("button", { name: "Save pre-queue" }).isDisabled());
      await card.getByRole("button", { name: "Publish the draw record" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByText(/number of participants/).waitFor();
      await dialog.getByRole("button", { name: "Publish", exact: true }).click();
      await card.locator("p.status", { hasText: "Published." }).waitFor();
      assertEquals((await s.kv.get(keys.drawPublished("default"))).value, true);
      await page.screenshot({ path: screenshotPath("admin-opening.png"), fullPage: true });
      await ctx.close();
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
