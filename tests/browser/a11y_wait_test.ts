/**
 * The visitor pages under axe-core (WCAG 2.2 A and AA): /wait in each state (waiting, pre-queue,
 * lottery, the bot check, admitted, click-to-enter, paused line, full line, error, the priority
 * code field and a refused code), the
 * how-it-works page, the draw check, /demo and /cost, light and dark, desktop and 390 px wide: no
 * violations.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals } from "../assert.ts";
import { testConfig } from "../../lib/config.ts";
import { serveApp } from "../live_app.ts";
import { writeBranding } from "../helpers.ts";
import { writeJoinGuards } from "../../lib/guard/settings.ts";
import { saveLanes } from "../../lib/priority/store.ts";
import { axeViolations, LOOKS } from "./axe.ts";
import { launchBrowser } from "./helper.ts";

const T = { timeout: 15_000 };

Deno.test({
  name: "visitor pages: 0 axe violations at WCAG 2.2 AA in every state, light and dark, 390 px",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const queues = ["default", "pre", "paused", "full", "click", "lottery", "check"];
    const { base, kv, services, close } = await serveApp(testConfig({ QUEUES: queues }));
    const e = services.engine;
    let browser: Browser | undefined;
    try {
      for (const q of queues) {
        await e.setRate(q, 0.01);
        await e.join(q, null);
      }
      await e.setOpensAt("pre", Date.now() + 3_600_000);
      await e.setPrequeue("pre", 120);
      await e.setPaused("paused", true);
      await e.setMode("lottery", "lottery");
      // The hardest check, so it is still running while axe looks at it.
      await writeJoinGuards(kv, "check", {
        challenge: "on",
        provider: "builtin",
        difficulty: 100_000_000,
      });
      await e.join("full", null);
      const s = await e.settings("full");
      await e.setMaxWaiting("full", 1, s.maxWaitingVisitors);
      // Priority lanes on the default queue: its page offers the code field.
      await saveLanes(kv, services.clock, "default", [{ name: "members", share: 0.3 }]);
      browser = await launchBrowser();

      /** Opens `path` in a fresh context of `look`, runs `ready`, and checks it with axe. */
      const check = async (
        look: (typeof LOOKS)[number],
        name: string,
        path: string,
        ready: (p: Page) => Promise<unknown>,
        before?: (p: Page) => Promise<unknown>,
      ) => {
        const ctx = await browser!.newContext({
          colorScheme: look.colorScheme,
          viewport: look.viewport,
        });
        const page = await ctx.newPage();
        try {
          await before?.(page);
          await page.goto(base + path);
          await ready(page);
          assertEquals(await axeViolations(page), [], `${name}, ${look.name}`);
        } finally {
          await ctx.close();
        }
      };

      for (const look of LOOKS) {
        await t.step(look.name, async () => {
          await check(
            look,
            "waiting",
            "/wait?queue=default",
            (p) => p.locator(".place").waitFor(T),
          );
          await check(
            look,
            "pre-queue",
            "/wait?queue=pre",
            (p) => p.locator(".arrival").waitFor(T),
          );
          await check(look, "paused", "/wait?queue=paused", (p) => p.locator(".place").waitFor(T));
          await check(look, "full", "/wait?queue=full", (p) => p.locator("h1").waitFor(T));
          await check(look, "lottery", "/wait?queue=lottery", (p) => p.locator(".eta").waitFor(T));
          await check(
            look,
            "bot check",
            "/wait?queue=check",
            (p) => p.locator(".check").waitFor(T),
          );
          await check(look, "error", "/wait?queue=nope", (p) => p.locator("h1").waitFor(T));
          await check(
            look,
            "bad link",
            "/wait?queue=bad%20name",
            (p) => p.locator("h1").waitFor(T),
          );
          await check(
            look,
            "how it works",
            "/wait/how-it-works",
            (p) => p.locator("h1").waitFor(T),
          );
          await check(
            look,
            "draw check",
            "/draw/verify?queue=pre",
            (p) => p.locator("h1").waitFor(T),
          );
          await check(look, "cost", "/cost", (p) => p.locator("h1").waitFor(T));
          await check(
            look,
            "arabic",
            "/wait?queue=default&lang=ar",
            (p) => p.locator(".place").waitFor(T),
          );
          await check(look, "priority code field open", "/wait?queue=default", async (p) => {
            await p.locator(".place").waitFor(T);
            await p.getByText("Have a priority code?").click();
            await p.getByLabel("Priority code").waitFor(T);
          });
          await check(
            look,
            "priority code refused",
            "/wait?queue=lottery&code=AAAAA-BBBBB-CCCCC",
            (p) => p.locator("h1").waitFor(T),
          );
          await check(look, "language menu open", "/wait?queue=default", async (p) => {
            await p.locator(".place").waitFor(T);
            await p.locator(".langs summary").click();
          });
        });
      }

      await t.step("click-to-enter and admitted, light and dark", async () => {
        await writeBranding(kv, e, { clickToEnter: true, admitHoldSeconds: 600 });
        for (const look of LOOKS) {
          await check(
            look,
            "click-to-enter",
            "/wait?queue=click",
            async (p) => {
              await e.admit("click", 5);
              await p.reload();
              await p.getByRole("button", { name: "Enter now" }).waitFor(T);
            },
          );
        }
        await writeBranding(kv, e, { clickToEnter: false });
        for (const look of LOOKS) {
          // Admitted and entered: "It's your turn", with the way on held back (the browser's
          // move to the destination is stopped, so the page stays to be checked).
          await check(
            look,
            "admitted",
            "/wait?queue=click&embed=1&return=/demo",
            async (p) => {
              await p.locator(".place").waitFor(T);
              await e.admit("click", 5);
              await p.reload();
              await p.getByRole("link", { name: "Continue" }).waitFor(T);
            },
            (p) => p.route((u) => u.pathname === "/demo", (r) => r.fulfill({ status: 204 })),
          );
          await check(look, "demo", "/wait?queue=click&return=/demo", async (p) => {
            await e.admit("click", 5);
            await p.reload();
            await p.waitForURL(/\/demo/, T);
            await p.locator("h1").waitFor(T);
          });
        }
      });
    } finally {
      await browser?.close();
      await close();
    }
  },
});
