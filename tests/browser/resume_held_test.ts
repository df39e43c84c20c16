/**
 * A page showing a resume code learns that its place ended, in real Chromium against a real
 * server: the place dropped on the server (its ticket kept: `/resume/held` answers 404) and the
 * place left in another tab of the same browser (its ticket cleared: 401). Either way the code
 * goes, the page says the place ended and offers to join again. Before, `/resume/held` said
 * `held: true` for an ended place and the page kept a dead code on screen. The title says so too.
 */
import type { Page } from "playwright-core";
import { testConfig } from "../../lib/config.ts";
import { CATALOGUES } from "../../lib/i18n/catalogues.ts";
import { assertEquals } from "../assert.ts";
import { t as fill } from "../../lib/i18n/format.ts";
import { launchBrowser, serveApp } from "./helper.ts";

const en = CATALOGUES.en;

/** Waits in line and shows a code; the visitor's id. */
async function showCode(page: Page, base: string): Promise<string> {
  await page.goto(`${base}/wait`);
  await page.locator("#tg-wait[data-live='1']").waitFor({ timeout: 10_000 });
  await page.getByText(en["resume.offer"]).click();
  await page.getByRole("button", { name: en["resume.showCode"] }).click();
  await page.locator("[data-code]").waitFor({ timeout: 10_000 });
  const ticket = (await page.context().cookies()).find((c) => c.name === "tg_ticket")!.value;
  return JSON.parse(atob(ticket.split(".")[0].replace(/-/g, "+").replace(/_/g, "/"))).sub;
}

/** The page drops its code, says the place ended and offers to join again. */
async function toldEnded(page: Page) {
  await page.getByText(en["live.ended"]).waitFor({ timeout: 10_000 });
  assertEquals(await page.locator("[data-code]").count(), 0, "the dead code is gone");
  await page.getByRole("link", { name: en["wait.joinAgain"] }).waitFor();
  // ... and its title no longer says "You're in line".
  assertEquals(await page.title(), fill(en, "page.endedTitle", { title: en["page.title"] }));
}

Deno.test({
  name: "a page showing a code says when its place ended: dropped, or left in another tab",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    // Check-ins a minute apart: the code's check (every 3 s) learns of the end first.
    const srv = await serveApp(testConfig({ WAITING_ROOM_POLL_INTERVAL_MS: 60_000 }));
    const engine = srv.services.engine;
    await engine.setRate("default", 0.01);
    await engine.join("default", null); // takes the instant slot: browsers below wait
    const browser = await launchBrowser();
    try {
      await t.step("ended on the server, the ticket kept: 404", async () => {
        const page = await (await browser.newContext()).newPage();
        const id = await showCode(page, srv.base);
        const signer = srv.services.signer;
        const cookie = (await page.context().cookies()).find((c) => c.name === "tg_ticket")!;
        await engine.leave("default", await signer.verifyTicket(cookie.value), id);
        await toldEnded(page);
      });
      await t.step("left in another tab, the ticket cleared: 401", async () => {
        const context = await browser.newContext();
        const page = await context.newPage();
        const id = await showCode(page, srv.base);
        const other = await context.newPage();
        await other.goto(`${srv.base}/health`);
        const left = await other.evaluate(async (visitorId) => {
          const r = await fetch("/leave", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ queue: "default", visitorId }),
          });
          return r.status;
        }, id);
        assertEquals(left, 200);
        await toldEnded(page);
      });
    } finally {
      await browser.close();
      await srv.close();
    }
  },
});
