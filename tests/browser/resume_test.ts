/**
 * Moving a place in real Chromium against a real server: the code, link and QR code on the wait
 * page; the link opened in a second browser context moves the place and the first is told; the
 * place moved back by typing a code; the turn e-mail received by Debian's aiosmtpd and its link
 * resuming (and entering) in a fresh context; the panel, the link's page and the moved page in
 * German.
 */
import type { Browser, Page } from "playwright-core";
import { testConfig } from "../../lib/config.ts";
import { CATALOGUES } from "../../lib/i18n/catalogues.ts";
import { t as fill } from "../../lib/i18n/format.ts";
import type { Catalogue } from "../../lib/i18n/messages/en.ts";
import { haveAiosmtpd, startSmtpServer } from "../../testing/smtp_server.ts";
import { freePort } from "../../testing/procs.ts";
import { assert, assertEquals } from "../assert.ts";
import { launchBrowser, screenshotPath, serveApp } from "./helper.ts";

/** The English words (the page speaks English to a browser that asks for nothing else). */
const en = CATALOGUES.en;

const TOLD_MS = 20_000;

/** The page the visitor asked for: a deep link with a query, kept wherever the place moves. */
const ASKED = "/demo?item=7&size=a%20b";

/** The `?return=` of a page's URL. */
function returnOf(page: Page): string | null {
  return new URL(page.url()).searchParams.get("return");
}

/** Opens "continue on another device" and returns the code and link the page shows. */
async function showCode(page: Page, m: Catalogue = en): Promise<{ code: string; link: string }> {
  await page.getByText(m["resume.offer"]).click();
  await page.getByRole("button", { name: m["resume.showCode"] }).click();
  const code = await page.locator("[data-code]").getAttribute("data-code", { timeout: 10_000 });
  const link = await page.locator("a.move-link").getAttribute("href");
  // The page draws the QR code itself, with the drawer it loads when a code is shown.
  await page.locator("svg.qr path").waitFor({ timeout: 10_000 });
  return { code: code!, link: link! };
}

Deno.test({
  name: "a place moves between browsers by link, by code and by the turn e-mail",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    // Without python3-aiosmtpd only the e-mail step is skipped (and says so).
    const smtp = await haveAiosmtpd() ? await startSmtpServer() : null;
    // The e-mail's link names PUBLIC_URL (never a request's Host): the server's own address.
    const port = freePort();
    const srv = await serveApp(
      testConfig({
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        SMTP_HOST: "127.0.0.1",
        SMTP_PORT: smtp?.port ?? 25,
        SMTP_TLS: "none",
        SMTP_FROM: "Tollgate <queue@example.test>",
      }),
      { port },
    );
    // The per-second mail job, wired as main.ts wires it.
    const timer = setInterval(() => void srv.services.mailJob(), 1000);
    const engine = srv.services.engine;
    await engine.setRate("default", 0.01);
    await engine.join("default", null); // takes the instant slot: browsers below wait
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const b = browser;
      const first = await (await b.newContext()).newPage();
      const second = await (await b.newContext()).newPage();

      await t.step("the link moves the place to a second browser; the first is told", async () => {
        await first.goto(`${srv.base}/wait?return=${encodeURIComponent(ASKED)}`);
        await first.locator("#tg-wait[data-live='1']").waitFor({ timeout: 10_000 });
        const { code, link } = await showCode(first);
        assert(/^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/.test(code), code);
        await first.screenshot({ path: screenshotPath("wait-move.png"), fullPage: true });
        await second.goto(link);
        // Each page's title says where the visitor is: asked to move the place here ...
        const title = en["page.title"];
        assertEquals(await second.title(), fill(en, "page.moveTitle", { title }));
        // The link asks first: nothing moved until the button is pressed.
        assertEquals(await second.locator("input[name=code]").inputValue(), code.replace("-", ""));
        await second.getByRole("button", { name: en["resume.takePlace"] }).click();
        // 0.8: exact once the tick numbered the place (a moved place keeps its number).
        await second.locator(".place", { hasText: /^#1$/ }).waitFor({ timeout: 20_000 });
        await first.getByText(en["resume.moved"]).waitFor({ timeout: TOLD_MS });
        assertEquals(await first.locator(".place").count(), 0);
        // ... and, on the first device, that the place moved away (not still "in line").
        assertEquals(await first.title(), fill(en, "page.movedTitle", { title }));
        // The moved place still goes where the visitor asked, not to the site's front page.
        assertEquals(returnOf(second), ASKED, "the link carries the page asked for");
      });

      await t.step("a code typed in the first browser takes the place back", async () => {
        await second.locator("#tg-wait[data-live='1']").waitFor({ timeout: 10_000 });
        const { code } = await showCode(second);
        await first.locator("input[name=code]").fill(code.toLowerCase());
        await first.getByRole("button", { name: en["resume.takePlace"] }).click();
        await first.locator(".place").waitFor({ timeout: 10_000 });
        assertEquals(returnOf(first), ASKED, "the typed code keeps the page asked for");
        await second.getByText(en["resume.moved"]).waitFor({ timeout: TOLD_MS });
      });

      await t.step({
        name: "the turn e-mail arrives and its link resumes in a fresh context",
        ignore: smtp === null,
        fn: async () => {
          await first.locator("#tg-wait[data-live='1']").waitFor({ timeout: 10_000 });
          await first.getByText(en["resume.mailOffer"]).click();
          await first.locator("input[type=email]").fill("ann@example.test");
          await first.getByRole("button", { name: en["resume.mailSave"] }).click();
          await first.getByText(en["resume.mailSaved"]).waitFor({ timeout: 10_000 });
          // The visitor walks away, counting on the e-mail (an open page would enter at once).
          await first.context().close();
          await second.context().close();
          const res = await fetch(`${srv.base}/admit`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${srv.services.config.TOKEN_SECRET}`,
              "content-type": "application/json",
            },
            body: JSON.stringify({ queue: "default", count: 1 }),
          });
          assertEquals((await res.json()).admitted, 1);
          const [mail] = await smtp!.waitFor(1, 20_000);
          assert(mail, "the e-mail arrived");
          assertEquals(mail.headers["to"], "ann@example.test");
          const link = /https?:\/\/\S+resume=[2-9A-Z]{8}\S*/.exec(mail.text)?.[0];
          assert(link, mail.text);
          const phone = await (await b.newContext()).newPage();
          await phone.goto(link);
          await phone.getByRole("button", { name: en["resume.takePlace"] }).click();
          // Admitted: the page sends it on to the destination with its access token.
          await phone.waitForURL((u) => !u.pathname.startsWith("/wait"), { timeout: 15_000 });
          // ... to the page the visitor asked for, query and all.
          const at = new URL(phone.url());
          assertEquals(at.pathname + at.search, ASKED, `the e-mail's link: ${link}`);
          const cookies = await phone.context().cookies();
          assert(cookies.some((c) => c.name === "tg_access"), "the phone holds the access token");
        },
      });
    } finally {
      clearInterval(timer);
      await browser?.close();
      await srv.close();
      await smtp?.stop();
    }
  },
});

Deno.test({
  name: "the resume panel speaks German: code, link, hint, the link's page and the moved words",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const de = CATALOGUES.de;
    const srv = await serveApp(testConfig());
    await srv.services.engine.setRate("default", 0.01);
    await srv.services.engine.join("default", null); // takes the instant slot: browsers wait
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${srv.base}/wait?lang=de`);
      await page.locator("#tg-wait[data-live='1']").waitFor({ timeout: 10_000 });
      const { link } = await showCode(page, de);
      await page.getByText(fill(de, "resume.codeHint", { offer: de["resume.offer"] })).waitFor();
      await page.getByRole("button", { name: de["resume.copyLink"] }).waitFor();
      await page.getByRole("img", { name: de["resume.qrLabel"] }).waitFor();
      assert((await page.locator(".move-code").textContent())?.includes("Link: http"));
      await page.screenshot({ path: screenshotPath("wait-move-de.png"), fullPage: true });
      // A German phone (its browser asks for German) opens the link: the page asks in German.
      const phone = await (await browser.newContext({ locale: "de-DE" })).newPage();
      await phone.goto(link);
      await phone.getByText(de["resume.confirmMove"]).waitFor();
      await phone.getByRole("button", { name: de["resume.takePlace"] }).click();
      await phone.locator(".place").waitFor({ timeout: 20_000 });
      await page.getByText(de["resume.moved"]).waitFor({ timeout: TOLD_MS });
      await page.getByRole("button", { name: de["resume.takePlace"] }).waitFor();
    } finally {
      await browser?.close();
      await srv.close();
    }
  },
});
