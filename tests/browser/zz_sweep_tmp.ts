// Exploratory keyboard walk of the wizard (not committed).
import { startAdminServer } from "./admin_helper.ts";
import { launchBrowser } from "./helper.ts";
import { ADMIN_PASSWORD } from "./admin_helper.ts";
const s = await startAdminServer(["default"]);
const browser = await launchBrowser();
const log = (...a: unknown[]) => console.log(...a);
try {
  const ctx = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => log("PAGEERROR", e.message));
  await page.goto(`${s.base}/admin`);
  await page.getByRole("heading", { name: /Step 1/ }).waitFor();
  const who = () =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const lab = (el as HTMLInputElement).labels?.[0]?.textContent ??
        el.getAttribute("aria-label") ?? el.textContent;
      const cs = getComputedStyle(el);
      return `${el.tagName}[${(el as HTMLInputElement).type ?? ""}] "${
        (lab ?? "").trim().slice(0, 40)
      }" outline=${cs.outlineStyle}`;
    });
  const walk = async (n: number) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      await page.keyboard.press("Tab");
      out.push(await who());
    }
    return out;
  };
  log("step1 start focus:", await who());
  log((await walk(8)).join("\n"));
  // Fill by keyboard: focus the secret field via Tab order already walked; restart.
  await page.getByLabel("Setup secret (TOKEN_SECRET)").focus();
  await page.keyboard.type(s.config.TOKEN_SECRET);
  await page.keyboard.press("Tab");
  await page.keyboard.type("admin");
  await page.keyboard.press("Tab");
  await page.keyboard.type(ADMIN_PASSWORD);
  await page.keyboard.press("Tab");
  await page.keyboard.press("Space");
  await page.keyboard.press("Tab");
  log("on:", await who());
  await page.keyboard.press("Enter");
  await page.waitForTimeout(3000);
  log("after create focus:", await who());
  log((await page.locator("main").innerText()).slice(0, 300));
  await page.getByLabel("I saved my recovery phrase").focus();
  await page.keyboard.press("Space");
  await page.keyboard.press("Tab");
  log("continue?", await who());
  await page.keyboard.press("Enter");
  await page.waitForTimeout(2500);
  for (let step = 0; step < 9; step++) {
    const h = await page.locator("main h2").first().innerText().catch(() => "?");
    log("=== heading:", h, "focus:", await who());
    log((await walk(6)).join("\n"));
    await page.screenshot({ path: `/tmp/sw_wz${step}.png` });
    // try the primary action
    const primary = page.locator(
      "main button.primary:not([disabled]), main button[type=submit]:not([disabled])",
    ).first();
    if (await primary.count() === 0) {
      log("no primary button");
      break;
    }
    log("pressing:", await primary.innerText());
    await primary.focus();
    await page.keyboard.press("Enter");
    await page.waitForTimeout(2500);
  }
} finally {
  await browser.close();
  await s.close();
}
