/**
 * "I need more time" in real Chromium: a click-to-enter hold near its end shows the warning in an
 * alert region and the button; pressed twice, the countdown goes up each time; then Enter now.
 */
import type { Browser } from "playwright-core";
import { CATALOGUES } from "../../lib/i18n/catalogues.ts";
import { t } from "../../lib/i18n/format.ts";
import { assert } from "../assert.ts";
import { launchBrowser, startServer } from "./helper.ts";

/** The English words (the page speaks English to a browser that asks for nothing else). */
const en = CATALOGUES.en;

/** Seconds of a "m:ss" countdown. */
function seconds(text: string): number {
  const [m, s] = text.split(":").map(Number);
  return m * 60 + s;
}

Deno.test({
  name: "a click-to-enter hold is extended twice, then entered",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const srv = await startServer(["hold"]);
    let browser: Browser | undefined;
    try {
      // The shortest hold: the warning (30 s before the end) shows from the start.
      await srv.setBranding({ clickToEnter: true, admitHoldSeconds: 10 });
      browser = await launchBrowser();
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${srv.base}/wait?queue=hold&return=/demo`);
      await page.locator(".place").waitFor({ timeout: 10_000 });
      await srv.admit("hold");
      await page.getByRole("button", { name: "Enter now" }).waitFor({ timeout: 20_000 });
      const alert = page.locator(".hold-warning[role=alert]");
      await alert.getByText(t(en, "resume.holdWarning", { button: en["resume.moreTime"] })).waitFor(
        { timeout: 5_000 },
      );
      const more = page.getByRole("button", { name: en["resume.moreTime"] });
      for (let i = 0; i < 2; i++) {
        const before = seconds((await page.locator(".countdown").textContent()) ?? "0:00");
        await more.click();
        await page.waitForFunction(
          (b) => {
            const t = document.querySelector(".countdown")?.textContent ?? "0:00";
            const [m, s] = t.split(":").map(Number);
            return m * 60 + s >= b + 8;
          },
          before,
          { timeout: 5_000 },
        );
      }
      assert(
        (await alert.textContent())?.includes(en["resume.moreTimeAdded"]),
        "the alert says so",
      );
      assert(seconds((await page.locator(".countdown").textContent())!) > 20, "two extensions");
      await page.getByRole("button", { name: "Enter now" }).click();
      await page.waitForURL(`${srv.base}/demo`, { timeout: 10_000 });
    } finally {
      await browser?.close();
      await srv.close();
    }
  },
});
