import { startAdminServer } from "./admin_helper.ts";
import { launchBrowser } from "./helper.ts";
const s = await startAdminServer(["default"]);
const browser = await launchBrowser();
try {
  const { session } = await s.claim();
  await s.completeSetup(session);
  const ctx = await s.signedIn(browser, session);
  const page = await ctx.newPage();
  await page.goto(`${s.base}/admin#admission`);
  await page.getByLabel("Visitors admitted per second").fill("5");
  await page.getByRole("button", { name: "Set rate" }).focus();
  await page.keyboard.press("Enter");
  await page.getByText("Rate set to 5").waitFor();
  await page.waitForTimeout(300);
  console.log(
    "after save:",
    await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80)),
  );
  await page.keyboard.press("Tab");
  console.log(
    "next tab:",
    await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80)),
  );
} finally {
  await browser.close();
  await s.close();
}
