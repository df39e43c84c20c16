/**
 * The waiting page under an operator's odd branding, in real Chromium: a light primary colour
 * (yellow, white) must not make the place or the links unreadable on the card (axe passes), a
 * dark one on a black page must not hide the focus ring outside the card, and a long word or URL
 * in the title or message must wrap instead of making a phone scroll sideways.
 */
import type { Browser } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { axeViolations, LOOKS } from "./axe.ts";
import { launchBrowser, startServer } from "./helper.ts";

const T = { timeout: 15_000 };

Deno.test({
  name: "odd branding: light primary colours read, long words wrap",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const srv = await startServer(["default"]);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const b = browser;

      for (const primaryColor of ["#ffcc00", "#ffffff"]) {
        await t.step(
          `primary ${primaryColor}: no axe violation, the place is readable`,
          async () => {
            await srv.setBranding({ primaryColor });
            for (const look of LOOKS) {
              const ctx = await b.newContext({
                colorScheme: look.colorScheme,
                viewport: look.viewport,
              });
              const page = await ctx.newPage();
              await page.goto(`${srv.base}/wait?queue=default`);
              await page.locator(".place").waitFor(T);
              assertEquals(await axeViolations(page), [], `${primaryColor}, ${look.name}`);
              // axe skips text exactly the colour of its surface: measure the place itself.
              const [fg, bg] = await page.evaluate(() => {
                const place = document.querySelector(".place")!;
                const card = document.querySelector(".card")!;
                return [getComputedStyle(place).color, getComputedStyle(card).backgroundColor];
              });
              assert(fg !== bg, `the place (${fg}) differs from the card (${bg}), ${look.name}`);
              await ctx.close();
            }
          },
        );
      }

      await t.step(
        "a dark brand colour on a black page: the focus ring outside the card shows",
        async () => {
          await srv.setBranding({ primaryColor: "#7f1d1d", backgroundColor: "#000000" });
          const ctx = await b.newContext({ colorScheme: "light" });
          const page = await ctx.newPage();
          await page.goto(`${srv.base}/wait?queue=default`);
          await page.locator(".place").waitFor(T);
          await page.keyboard.press("Tab");
          const ring = await page.evaluate(() => {
            const el = document.activeElement!;
            return [el.tagName, getComputedStyle(el).outlineColor];
          });
          assertEquals(ring[0], "SUMMARY", "the language menu is the first stop");
          const lum = (rgb: string) => {
            const [r, g, bl] = rgb.match(/\d+/g)!.slice(0, 3).map((v) => {
              const c = Number(v) / 255;
              return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
            });
            return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
          };
          const ratio = (lum(ring[1]) + 0.05) / (lum("rgb(0, 0, 0)") + 0.05);
          assert(
            ratio >= 3,
            `the ring ${ring[1]} on black: ${ratio.toFixed(2)}:1 (WCAG 1.4.11 asks 3:1)`,
          );
          await ctx.close();
        },
      );

      await t.step("a long unbroken title and message wrap on a 390 px phone", async () => {
        await srv.setBranding({
          primaryColor: "#2563eb",
          title: "W".repeat(120),
          message: "https://shop.example/" + "x".repeat(1500),
        });
        for (const embed of ["", "&embed=1"]) {
          const ctx = await b.newContext({ viewport: { width: 390, height: 844 } });
          const page = await ctx.newPage();
          await page.goto(`${srv.base}/wait?queue=default${embed}`);
          await page.locator(".place").waitFor(T);
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          assert(width <= 390, `no sideways scrolling${embed}: the page is ${width} px wide`);
          await ctx.close();
        }
      });
    } finally {
      await browser?.close();
      await srv.close();
    }
  },
});
