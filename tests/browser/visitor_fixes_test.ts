/**
 * The visitor pages, in real Chromium: the footer's "How it works" opens a public explanation
 * (no queue, no lost `?return=`), error pages are titled for what they say, the dark theme's
 * empty progress track is dark, the documented 420x360 embed shows the Notify button, a refused
 * notification permission is said, click-to-enter moves focus to "Enter now" and announces the
 * hold, and /cost on a phone says its table scrolls.
 */
import type { Browser } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { launchBrowser, screenshotPath, startServer } from "./helper.ts";

const T = { timeout: 15_000 };
const TURN_MS = 20_000;

Deno.test({
  name: "visitor pages: explanation link, titles, dark track, embed, notify, click-to-enter, cost",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const srv = await startServer(["default", "embed", "click"]);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const b = browser;

      await t.step("'How it works' is public and keeps the visitor's line", async () => {
        const ctx = await b.newContext();
        const page = await ctx.newPage();
        await page.goto(`${srv.base}/wait?queue=default&return=/shop`);
        await page.locator(".place").waitFor(T);
        const link = page.getByRole("link", { name: "How it works" });
        assertEquals(await link.getAttribute("href"), "/wait/how-it-works");
        await link.click();
        await page.getByRole("heading", { name: "How this waiting room works" }).waitFor(T);
        assertEquals(new URL(page.url()).pathname, "/wait/how-it-works");
        await page.goBack();
        assert(decodeURIComponent(page.url()).includes("return=/shop"), "the ?return= is kept");
        // The not-found page is titled for what it says, and links to the same page.
        await page.goto(`${srv.base}/wait?queue=nope`);
        assertEquals(await page.title(), "Not found");
        assertEquals(
          await page.getByRole("link", { name: "How it works" }).getAttribute("href"),
          "/wait/how-it-works",
        );
        await ctx.close();
      });

      await t.step("dark theme: an empty progress track is dark, not white", async () => {
        const ctx = await b.newContext({ colorScheme: "dark" });
        const page = await ctx.newPage();
        await page.goto(`${srv.base}/wait?queue=default`);
        const bar = page.locator("progress[value]");
        await bar.waitFor(T);
        const st = await bar.evaluate((el) => {
          const cs = getComputedStyle(el);
          return { appearance: cs.appearance, bg: cs.backgroundColor };
        });
        assertEquals(st.appearance, "none", "the page draws the track itself");
        const [r, g, bl] = st.bg.match(/\d+/g)!.map(Number);
        assert(0.2126 * r + 0.7152 * g + 0.0722 * bl < 110, `a dark track: ${st.bg}`);
        await page.screenshot({ path: screenshotPath("wait-dark.png"), fullPage: true });
        await ctx.close();
      });

      await t.step("the documented 420x360 embed shows the Notify button", async () => {
        // The embed page in a 420x360 window: what the documented iframe shows. (Chromium asks
        // no notification permission from a framed page, so the frame itself would hide the
        // button; the layout is the same.)
        const ctx = await b.newContext({ viewport: { width: 420, height: 360 } });
        const page = await ctx.newPage();
        await page.goto(`${srv.base}/wait?queue=embed&embed=1`);
        const notify = page.getByRole("button", { name: "Notify me" });
        await notify.waitFor(T);
        const n = (await notify.boundingBox())!;
        assert(n.y + n.height <= 360, `Notify ends at ${n.y + n.height} px of 360`);
        const tall = await page.evaluate(() => document.documentElement.scrollHeight);
        assert(tall <= 360, `nothing below the frame (${tall} px)`);
        await page.screenshot({ path: screenshotPath("wait-embed.png") });
        await ctx.close();
      });

      await t.step("a refused notification permission is said, not silent", async () => {
        const ctx = await b.newContext();
        // The visitor answers the browser's question with "Block".
        await ctx.addInitScript(() => {
          Notification.requestPermission = () => Promise.resolve("denied");
        });
        const page = await ctx.newPage();
        await page.goto(`${srv.base}/wait?queue=default`);
        await page.getByRole("button", { name: "Notify me" }).click();
        await page.getByText("Notifications are blocked for this site").waitFor(T);
        await ctx.close();
      });

      await t.step(
        "click-to-enter: focus moves to 'Enter now' and the hold is announced",
        async () => {
          await srv.setBranding({ clickToEnter: true, admitHoldSeconds: 120 });
          const ctx = await b.newContext();
          const page = await ctx.newPage();
          await page.goto(`${srv.base}/wait?queue=click`);
          await page.locator(".place").waitFor(T);
          await srv.admit("click");
          const button = page.getByRole("button", { name: "Enter now" });
          await button.waitFor({ timeout: TURN_MS });
          await page.waitForFunction(
            () => document.activeElement?.textContent === "Enter now",
            null,
            T,
          );
          const live = (await page.locator("[role=status][aria-live]").first().textContent())!;
          assert(
            /held for (2 minutes|about 1 minute|\d+ seconds): press Enter now/.test(live),
            live,
          );
          await ctx.close();
          await srv.setBranding({});
        },
      );

      await t.step("/cost on a phone says its table scrolls sideways", async () => {
        const ctx = await b.newContext({ viewport: { width: 390, height: 844 } });
        const page = await ctx.newPage();
        await page.goto(`${srv.base}/cost`);
        const hint = page.getByText("scroll it sideways").first();
        await hint.waitFor(T);
        assert(await hint.isVisible(), "the hint shows at 390 px");
        const region = page.getByRole("region", { name: "Monthly cost comparison" });
        const wide = await region.evaluate((el) => el.scrollWidth > el.clientWidth);
        assert(wide, "the table really is wider (the hint is not a false alarm)");
        await page.screenshot({ path: screenshotPath("cost-phone.png"), fullPage: true });
        await ctx.close();
      });
    } finally {
      await browser?.close();
      await srv.close();
    }
  },
});

Deno.test({
  name: "deno task demo: a newcomer sees a line in one command",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const free = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (free.addr as Deno.NetAddr).port;
    free.close();
    const demo = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/demo.ts", "--people=12", `--port=${port}`],
      cwd: new URL("../..", import.meta.url).pathname,
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    let browser: Browser | undefined;
    try {
      // The demo says what to open once it listens.
      const reader = demo.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let said = "";
      while (!said.includes("/wait")) said += (await reader.read()).value ?? "";
      assert(said.includes("12 people wait"), said);
      browser = await launchBrowser();
      const page = await (await browser.newContext()).newPage();
      await page.goto(`http://localhost:${port}/wait`);
      // 0.8: "about number 13" until the tick numbered the join, then exactly 13.
      await page.getByText(/You are (about )?number 13 in line/).waitFor(T);
      await page.screenshot({ path: screenshotPath("demo-line.png"), fullPage: true });
      reader.releaseLock();
    } finally {
      await browser?.close();
      demo.kill();
      await demo.status;
      await demo.stdout.cancel().catch(() => {});
    }
  },
});
