/**
 * The admin app in the operator's locale and time zone (a German browser in New York): the
 * Admission tab's figures are grouped as the locale writes them (1.000.000, not 1000000), and the
 * opening time names its time zone where it is typed and where it is shown. Failed before the fix
 * (the Admission tab printed raw numbers; only the Live tab grouped them).
 */
import { assert, assertEquals } from "../assert.ts";
import { faultTest, T } from "./admin_faults_helper.ts";

faultTest(
  "figures and times in the operator's locale and zone",
  ["default"],
  async (s, ctx0, session) => {
    await ctx0.close();
    const browser = ctx0.browser()!;
    const ctx = await browser.newContext({ locale: "de-DE", timezoneId: "America/New_York" });
    await ctx.addCookies([{
      name: "tg_admin",
      value: session,
      url: s.base,
      httpOnly: true,
      sameSite: "Strict",
    }]);
    // 15:30 UTC on 1 Dec 2030 is 10:30 in New York.
    const opensAt = Date.UTC(2030, 11, 1, 15, 30);
    const put = await s.call("PUT", "/api/admin/schedule", { opensAt }, session);
    assertEquals(put.status, 200);
    const page = await ctx.newPage();
    await page.goto(`${s.base}/admin#admission`);
    const panel = page.locator("#panel-admission");
    await panel.getByText("Now 1.000.000.").waitFor(T);
    assert(
      (await panel.getByText(/0,1 to 100\.000/).count()) > 0,
      "the rate's bounds in the locale's digits",
    );
    // Typed in the operator's zone, and shown with it.
    await page.getByLabel("Opens at (your time zone: America/New_York)").waitFor(T);
    assertEquals(
      await page.getByLabel("Opens at (your time zone: America/New_York)").inputValue(),
      "2030-12-01T10:30",
    );
    const shown = await page.locator("section.card", {
      has: page.getByRole("heading", { name: "Opening time", exact: true }),
    }).locator("strong").first().innerText();
    assert(
      /10:30/.test(shown) && /GMT-5|EST/.test(shown),
      `the opening time names its zone: ${shown}`,
    );
    // A save's answer too.
    await page.getByLabel("Visitors on the site at once").fill("25000");
    await page.getByRole("button", { name: "Save capacity" }).click();
    await page.getByText("Capacity set to 25.000.").waitFor(T);
    await ctx.close();
  },
);
