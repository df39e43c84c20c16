/**
 * The turn e-mail's form takes an address whose domain is not ASCII (`ann@bücher.example`), in
 * real Chromium against a real server: the page's own form check lets it through (Chromium hands
 * the domain on in punycode itself; API clients and other browsers may send it as typed, which
 * tests/turn_email_idn_test.ts covers down to the SMTP server) and the server keeps it. An address
 * the browser's check passes but the server refuses (`ann@localhost`) gets the page's words.
 */
import { testConfig } from "../../lib/config.ts";
import { CATALOGUES } from "../../lib/i18n/catalogues.ts";
import { launchBrowser, serveApp } from "./helper.ts";

const en = CATALOGUES.en;

Deno.test({
  name: "the turn e-mail form takes an IDN address; the server's refusal is said on the page",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // An SMTP server is only named: nothing is sent while the visitor waits.
    const srv = await serveApp(testConfig({
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: 25,
      SMTP_TLS: "none",
      SMTP_FROM: "Tollgate <queue@example.test>",
    }));
    await srv.services.engine.setRate("default", 0.01);
    await srv.services.engine.join("default", null); // takes the instant slot: the page waits
    const browser = await launchBrowser();
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${srv.base}/wait`);
      await page.locator("#tg-wait[data-live='1']").waitFor({ timeout: 10_000 });
      await page.getByText(en["resume.mailOffer"]).click();
      const input = page.locator("input[type=email]");
      await input.fill("ann@localhost");
      await page.getByRole("button", { name: en["resume.mailSave"] }).click();
      await page.getByText(en["resume.mailBad"]).waitFor({ timeout: 10_000 });
      await input.fill("ann@bücher.example");
      await page.getByRole("button", { name: en["resume.mailSave"] }).click();
      await page.getByText(en["resume.mailSaved"]).waitFor({ timeout: 10_000 });
    } finally {
      await browser.close();
      await srv.close();
    }
  },
});
