/**
 * The waiting page in each of the 15 languages, in real Chromium: every text filled in (no
 * `{name}` left, nothing undefined), `lang` and `dir` set (Arabic right to left, laid out from
 * the right), the resume panel too, a screenshot per language under tests/screenshots/; `?lang=`
 * and the language menu switch the page and the choice sticks; an operator's wording typed in
 * the branding tab shows in the preview in the picked language, and on the page once saved.
 */
import type { Browser } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { LANG_NAMES, LANGS } from "../../lib/i18n/langs.ts";
import { CATALOGUES } from "../../lib/i18n/catalogues.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";
import { startAdminServer } from "./admin_helper.ts";

const T = { timeout: 15_000 };

Deno.test({
  name: "languages: 15 catalogues on the page, Arabic rtl, ?lang= and the menu stick, overrides",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      await s.services.engine.setRate("default", 0.01);
      await s.services.engine.join("default", null);
      browser = await launchBrowser();

      await t.step("each language: every text filled in, lang and dir, a screenshot", async () => {
        const ctx = await browser!.newContext({ viewport: { width: 390, height: 844 } });
        const page = await ctx.newPage();
        for (const lang of LANGS) {
          await page.goto(`${s.base}/wait?lang=${lang}`);
          await page.locator("#tg-wait[data-live='1'] .place").waitFor(T);
          const seen = await page.evaluate(() => {
            // What the page shows (not the props block; before any CSS text-transform).
            const body = document.body.cloneNode(true) as HTMLElement;
            body.querySelectorAll("script, noscript").forEach((el) => el.remove());
            return {
              lang: document.documentElement.lang,
              dir: document.documentElement.dir,
              text: body.textContent ?? "",
              title: document.title,
            };
          });
          assertEquals([seen.lang, seen.dir], [lang, lang === "ar" ? "rtl" : "ltr"]);
          assert(!/\{\w+\}|undefined|NaN/.test(seen.text), `${lang}: ${seen.text}`);
          const m = CATALOGUES[lang];
          for (
            const key of ["wait.placeLabel", "doc.footer", "page.title", "resume.offer"] as const
          ) {
            assert(seen.text.includes(m[key]), `${lang}: ${key} shown`);
          }
          assertEquals(seen.title, m["page.title"]);
          if (lang === "ar") {
            // Right to left: the heading starts at the card's right edge.
            const box = await page.locator("h1").evaluate((h) => {
              const r = document.createRange();
              r.selectNodeContents(h);
              const text = r.getBoundingClientRect(), own = h.getBoundingClientRect();
              return { gapRight: own.right - text.right, gapLeft: text.left - own.left };
            });
            assert(box.gapRight < box.gapLeft, `rtl: ${JSON.stringify(box)}`);
          }
          await page.screenshot({ path: screenshotPath(`wait-${lang}.png`) });
        }
        await ctx.close();
      });

      await t.step(
        "?lang= and the language menu switch the page, and the choice sticks",
        async () => {
          const ctx = await browser!.newContext({ locale: "de-DE" });
          const page = await ctx.newPage();
          await page.goto(`${s.base}/wait`);
          await page.locator(".place").waitFor(T);
          assertEquals(await page.evaluate(() => document.documentElement.lang), "de");
          await page.goto(`${s.base}/wait?lang=ja`);
          await page.goto(`${s.base}/wait`);
          assertEquals(await page.evaluate(() => document.documentElement.lang), "ja", "kept");
          await page.locator(".langs summary").click();
          await page.getByRole("link", { name: LANG_NAMES.fr }).click();
          await page.getByText(CATALOGUES.fr["wait.placeLabel"]).waitFor(T);
          // The menu's own words follow the language's punctuation (a space before the colon).
          assertEquals(await page.locator(".langs summary").textContent(), "Langue : Français");
          await page.goto(`${s.base}/wait/how-it-works`);
          await page.getByRole("heading", { name: CATALOGUES.fr["how.title"] }).waitFor(T);
          await ctx.close();
        },
      );

      await t.step(
        "an operator's wording: in the preview as typed, on the page once saved",
        async () => {
          const ctx = await s.signedIn(browser!, session);
          const page = await ctx.newPage();
          await page.goto(`${s.base}/admin#branding`);
          const panel = page.locator("#panel-branding");
          // The service-wide wording (the tab edits the picked queue unless told; issue 37).
          await page.getByLabel(/^All queues/).check();
          await panel.getByLabel("Language (also of the preview)").selectOption("de");
          await panel.getByLabel("Which message").selectOption("wait.placeLabel");
          await panel.getByLabel("Your wording (Deutsch)").fill("Ihre Nummer bei uns");
          const preview = page.frameLocator("iframe.branding-preview");
          await preview.getByText("Ihre Nummer bei uns").waitFor(T);
          assertEquals(await preview.locator("html").getAttribute("lang"), "de");
          await panel.getByRole("button", { name: "Save branding" }).click();
          await panel.getByText("Branding saved").waitFor(T);
          const visitor = await browser!.newContext();
          const v = await visitor.newPage();
          await v.goto(`${s.base}/wait?lang=de`);
          await v.getByText("Ihre Nummer bei uns").waitFor(T);
          await v.goto(`${s.base}/wait?lang=en`);
          await v.getByText(CATALOGUES.en["wait.placeLabel"]).waitFor(T);
          await visitor.close();
          await ctx.close();
        },
      );
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
