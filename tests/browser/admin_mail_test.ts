/**
 * The System tab's "Turn e-mail" section in real Chromium: SMTP settings saved through the form
 * (the password never comes back), then a test e-mail received by Debian's aiosmtpd.
 */
import type { Browser } from "playwright-core";
import { haveAiosmtpd, startSmtpServer } from "../../testing/smtp_server.ts";
import { assert, assertEquals } from "../assert.ts";
import { launchBrowser } from "./helper.ts";
import { startAdminServer } from "./admin_helper.ts";

const T = { timeout: 10_000 };

Deno.test({
  name: "admin: the turn e-mail's SMTP settings and a test e-mail",
  ignore: !(await haveAiosmtpd()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const smtp = await startSmtpServer();
    const s = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      browser = await launchBrowser();
      const page = await (await s.signedIn(browser, session)).newPage();
      await page.goto(`${s.base}/admin#system`);
      const card = page.locator("section.card", {
        has: page.getByRole("heading", { name: "Turn e-mail", exact: true }),
      });
      await card.getByText("No SMTP server is set").waitFor(T);
      await card.getByLabel("SMTP server").fill("127.0.0.1");
      await card.getByLabel("Port", { exact: true }).fill(String(smtp.port));
      await card.getByRole("radio", { name: /^None/ }).check();
      await card.getByLabel("Password", { exact: true }).fill("smtp-secret-1");
      await card.getByLabel("Sender", { exact: true }).fill("Tollgate <queue@example.test>");
      await card.getByRole("button", { name: "Save e-mail settings" }).click();
      await card.getByText("These settings are saved here and used.").waitFor(T);
      assertEquals(await card.getByLabel("Password", { exact: true }).inputValue(), "");
      const r = await s.call("GET", "/api/admin/mail", undefined, session);
      assertEquals([r.json.host, r.json.port, r.json.tls, r.json.hasPassword], [
        "127.0.0.1",
        smtp.port,
        "none",
        true,
      ]);
      assert(!JSON.stringify(r.json).includes("smtp-secret-1"));
      await card.getByLabel("Test address").fill("ops@example.test");
      await card.getByRole("button", { name: "Send a test e-mail" }).click();
      await card.getByText("Sent to ops@example.test.").waitFor(T);
      assertEquals((await smtp.waitFor(1))[0].headers["to"], "ops@example.test");
    } finally {
      await browser?.close();
      await s.close();
      await smtp.stop();
    }
  },
});
