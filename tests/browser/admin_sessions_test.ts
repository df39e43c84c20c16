/**
 * Visitor sessions in the control room, in real Chromium against a real server: a queue created
 * on the Live tab gets sliding sessions unless the operator picks fixed ones, the Admission tab's
 * sessions card reads and saves them (a bad idle time is refused with the API's message), and the
 * Live tab shows how sessions end.
 */
import type { Browser, Page } from "playwright-core";
import { assertEquals } from "../assert.ts";
import { type AdminServer, startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

const T = { timeout: 15_000 };

const card = (page: Page, title: string) =>
  page.locator("section.card", { has: page.getByRole("heading", { name: title, exact: true }) });

Deno.test({
  name: "admin sessions: sliding suggested on create, the Admission card, the Live figures",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s: AdminServer = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      browser = await launchBrowser();
      const ctx = await s.signedIn(browser, session);
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      const sessions = async (q: string) =>
        (await s.call("GET", `/api/admin/sessions?queue=${q}`, undefined, session)).json;

      await t.step("a new queue gets sliding sessions unless fixed is picked", async () => {
        await page.goto(`${s.base}/admin#live`);
        const c = card(page, "Queues");
        await c.getByRole("row", { name: /default/ }).waitFor(T);
        await c.getByLabel("Name").fill("shop");
        await c.getByRole("button", { name: "Create queue" }).click();
        await c.getByText("Queue shop created").waitFor(T);
        assertEquals((await sessions("shop")).sessionMode, "sliding");
        await c.getByLabel("Name").fill("tickets");
        await c.getByLabel(/^Fixed/).check();
        await c.getByRole("button", { name: "Create queue" }).click();
        await c.getByText("Queue tickets created").waitFor(T);
        assertEquals((await sessions("tickets")).sessionMode, "fixed");
      });

      await t.step("the Admission tab's card saves mode, idle time and cap", async () => {
        await page.goto(`${s.base}/admin#admission`);
        const c = card(page, "Visitor sessions");
        await c.getByLabel(/^Fixed/).waitFor(T);
        assertEquals(await c.getByLabel(/^Fixed/).isChecked(), true, "default is fixed");
        await c.getByLabel(/^Sliding/).check();
        await c.getByLabel("Idle time (seconds)").fill("30");
        await c.getByRole("button", { name: "Save sessions" }).click();
        await c.locator(".status.error").waitFor(T);
        assertEquals((await sessions("default")).sessionMode, "fixed", "nothing saved");
        await c.getByLabel("Idle time (seconds)").fill("120");
        await c.getByLabel("Longest session (seconds, optional)").fill("1800");
        await c.getByRole("button", { name: "Save sessions" }).click();
        await c.getByText("Sliding sessions: a slot is freed 120 s").waitFor(T);
        const now = await sessions("default");
        assertEquals(
          [now.sessionMode, now.sessionIdleSeconds, now.sessionMaxSeconds],
          ["sliding", 120, 1800],
        );
        await page.screenshot({ path: screenshotPath("admin-sessions.png"), fullPage: true });
      });

      await t.step("the Live tab shows the session figures", async () => {
        await page.goto(`${s.base}/admin#live`);
        const stats = page.getByRole("group", { name: "Queue metrics" });
        await stats.getByText("Released by the site").waitFor(T);
        await stats.getByText("Sliding", { exact: true }).waitFor(T);
      });
      assertEquals(errors, []);
      await ctx.close();
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
