/**
 * The control room's Live, Admission and Branding tabs in real Chromium against a real server:
 * every change is made through the UI and checked through the API.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { type AdminServer, startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

const ZONE = "America/New_York";

/** A signed-in context in the New York time zone (proves the opening-time conversion). */
async function context(
  browser: Browser,
  s: AdminServer,
  session: string,
  viewport = { width: 1100, height: 900 },
): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport, timezoneId: ZONE, acceptDownloads: true });
  await ctx.addCookies([{
    name: "tg_admin",
    value: session,
    url: s.base,
    httpOnly: true,
    sameSite: "Strict",
  }]);
  return ctx;
}

/** Answers the confirmation dialog with `button`. */
async function answer(page: Page, button: string) {
  const dialog = page.getByRole("dialog");
  await dialog.waitFor();
  await dialog.getByRole("button", { name: button, exact: true }).click();
  await dialog.waitFor({ state: "hidden" });
}

/** The status line of the card headed `title`. */
const cardStatus = (page: Page, title: string) =>
  page.locator("section.card", { has: page.getByRole("heading", { name: title, exact: true }) })
    .locator("p.status");

Deno.test({
  name: "admin tabs: live, admission and branding",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    // A slow default rate: waiting visitors stay waiting until the test admits them.
    const s = await startAdminServer(["default"], { ADMIT_PER_SECOND: 0.1 });
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      const settings = async () => {
        const r = await s.call("GET", "/api/admin/queues", undefined, session);
        assertEquals(r.status, 200);
        return r.json.queues.find((q: { queue: string }) => q.queue === "default");
      };
      const waitingOf = async (): Promise<number> => {
        const r = await s.call("GET", "/api/admin/metrics", undefined, session);
        return r.json.queues.find((q: { queue: string }) => q.queue === "default").waiting;
      };
      browser = await launchBrowser();
      const ctx = await context(browser, s, session);
      const page = await ctx.newPage();
      page.setDefaultTimeout(10_000);

      await t.step("admission: mode switches to lottery", async () => {
        await page.goto(`${s.base}/admin#admission`);
        await page.getByRole("radio", { name: /Lottery/ }).check();
        await page.getByRole("button", { name: "Save mode" }).click();
        await cardStatus(page, "Admission mode").filter({ hasText: "lottery" }).waitFor();
        assertEquals((await settings()).mode, "lottery");
      });

      await t.step("admission: pause asks first; cancel changes nothing", async () => {
        await page.getByRole("button", { name: "Pause admissions" }).click();
        await answer(page, "Cancel");
        assertEquals((await settings()).paused, false);
        await page.getByRole("button", { name: "Pause admissions" }).click();
        await answer(page, "Pause admissions");
        await page.getByRole("button", { name: "Resume admissions" }).waitFor();
        assertEquals((await settings()).paused, true);
      });

      // While paused, every join waits.
      let joins = 5;
      for (let i = 0; i < joins; i++) {
        const r = await s.call("POST", "/join", { queue: "default" });
        assertEquals(r.status, 202, JSON.stringify(r.json));
      }

      await t.step("live: waiting count, chart and CSV", async () => {
        await page.goto(`${s.base}/admin#live`);
        const waiting = page.locator('.stat:has(> span:text-is("Waiting")) .n');
        await waiting.waitFor();
        assertEquals(await waiting.textContent(), String(joins));
        // The tiles follow the 5 s poll: one more join shows up without a reload.
        assertEquals((await s.call("POST", "/join", { queue: "default" })).status, 202);
        joins++;
        await page.locator(`.stat:has(> span:text-is("Waiting")) .n:text-is("${joins}")`)
          .waitFor({ timeout: 8_000 });
        const svg = page.locator('figure.live-chart svg[role="img"]');
        await svg.waitFor();
        assert((await svg.locator("path").count()) >= 2, "the chart draws its paths");
        const d = await svg.locator("path.in-line").getAttribute("d");
        assert(d && d.startsWith("M"), `inflow line: ${d}`);
        const summary = await page.locator(".live-summary").textContent();
        // The chart refreshes every minute: it counts at least the joins before the page opened.
        const joined = Number(/(\d+) joined/.exec(summary ?? "")?.[1]);
        assert(joined >= joins - 1, `summary: ${summary}`);
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("link", { name: /Download the last 24 hours as CSV/ }).click(),
        ]);
        const path = await download.path();
        const csv = await Deno.readTextFile(path!);
        assert(csv.startsWith("at,iso,inflow,outflow"), `csv starts: ${csv.slice(0, 40)}`);
        await page.screenshot({ path: screenshotPath("admin-live.png"), fullPage: true });
      });

      await t.step("live on a phone", async () => {
        const phone = await context(browser!, s, session, { width: 390, height: 844 });
        const p = await phone.newPage();
        await p.goto(`${s.base}/admin#live`);
        await p.locator('figure.live-chart svg[role="img"]').waitFor();
        await p.locator('.stat:has(> span:text-is("Waiting")) .n').waitFor();
        const overflow = await p.evaluate(() =>
          document.documentElement.scrollWidth > document.documentElement.clientWidth
        );
        assert(!overflow, "no sideways scrolling at 390 px");
        await p.screenshot({ path: screenshotPath("admin-live-phone.png"), fullPage: true });
        await phone.close();
      });

      await t.step("keyboard: Tab to the tablist, ArrowRight switches tabs", async () => {
        await page.goto(`${s.base}/admin#live`);
        await page.locator('[role="tab"][aria-selected="true"]').waitFor();
        let onTab = false;
        for (let i = 0; i < 25 && !onTab; i++) {
          await page.keyboard.press("Tab");
          onTab = await page.evaluate(() => document.activeElement?.getAttribute("role") === "tab");
        }
        assert(onTab, "Tab reaches the tablist");
        assertEquals(
          await page.evaluate(() => document.activeElement?.textContent),
          "Live",
        );
        await page.keyboard.press("ArrowRight");
        await page.getByRole("tab", { name: "Admission", selected: true }).waitFor();
        assertEquals(await page.evaluate(() => document.activeElement?.textContent), "Admission");
        assert(page.url().endsWith("#admission"), page.url());
        await page.getByRole("heading", { name: "Admission rate" }).waitFor();
      });

      await t.step("admission: rate set, bad rate refused, override cleared", async () => {
        const rate = page.getByLabel("Visitors admitted per second");
        await rate.fill("-1");
        await page.getByRole("button", { name: "Set rate" }).click();
        const st = cardStatus(page, "Admission rate");
        // The summary links to the field, which says what is wrong in words, once.
        await st.getByRole("link", { name: "Visitors admitted per second" }).waitFor();
        await page.locator("section.card", { has: page.locator("#adm-rate-h") })
          .locator(".field-error", { hasText: "At least 0.1 a second." }).waitFor();
        assertEquals(await st.getAttribute("role"), "alert");
        assertEquals((await settings()).admitPerSecond, null);

        await rate.fill("2.5");
        await page.getByRole("button", { name: "Set rate" }).click();
        await st.filter({ hasText: "Rate set to 2.5" }).waitFor();
        assertEquals((await settings()).admitPerSecond, 2.5);

        await page.getByRole("button", { name: "Clear override" }).click();
        const dialog = page.getByRole("dialog");
        await dialog.waitFor();
        assert((await dialog.textContent())?.includes("0.1 per second"), "names the fallback");
        await answer(page, "Clear override");
        await st.filter({ hasText: "back to 0.1" }).waitFor();
        assertEquals((await settings()).admitPerSecond, null);
      });

      await t.step("admission: opening time in the operator's zone is stored as UTC", async () => {
        const input = page.getByLabel(/Opens at \(your time zone: America\/New_York\)/);
        await input.fill("2031-07-04T09:30");
        await page.getByRole("button", { name: "Save opening time" }).click();
        await cardStatus(page, "Opening time").filter({ hasText: "Opens" }).waitFor();
        // 09:30 EDT (UTC-4) on 4 July 2031.
        assertEquals((await settings()).opensAt, Date.UTC(2031, 6, 4, 13, 30));
        await page.getByRole("button", { name: "Open now" }).click();
        await answer(page, "Open now");
        await cardStatus(page, "Opening time").filter({ hasText: "Open now." }).waitFor();
        assertEquals((await settings()).opensAt, null);
      });

      await t.step("admission: capacity", async () => {
        await page.getByLabel("Visitors on the site at once").fill("40");
        await page.getByRole("button", { name: "Save capacity" }).click();
        await cardStatus(page, "Capacity").filter({ hasText: "Capacity set to 40" }).waitFor();
        assertEquals((await settings()).capacity, 40);
      });

      await t.step("admission: the per-address limit on new places", async () => {
        const card = "New places per visitor address";
        await page.getByText("No join was refused by this limit in the last hour.").waitFor();
        await page.getByLabel("New places one address may take per minute").fill("7");
        await page.getByRole("button", { name: "Save limit" }).click();
        await cardStatus(page, card).filter({ hasText: "At most 7 new places" }).waitFor();
        const r = await s.call("GET", "/api/admin/join-limits", undefined, session);
        assertEquals([r.json.joinsPerClientPerMinute, r.json.default], [7, false]);
      });

      await t.step(
        "admission: a change made elsewhere shows live; an edited field is kept",
        async () => {
          const capacity = page.getByLabel("Visitors on the site at once");
          const rate = page.getByLabel("Visitors admitted per second");
          await capacity.fill("41"); // typed, not saved
          // Another operator changes mode, rate and capacity (the queue stays paused).
          const other = async (method: string, path: string, body?: unknown) => {
            const r = await s.call(method, path, body, session);
            assertEquals(r.status, 200, `${method} ${path}: ${JSON.stringify(r.json)}`);
          };
          await other("POST", "/api/admin/mode", { queue: "default", mode: "queue" });
          await other("PUT", "/api/admin/rate", { queue: "default", admitPerSecond: 3 });
          await other("PUT", "/api/admin/capacity", { queue: "default", capacity: 39 });
          // Within one refresh (5 s), without reopening the tab.
          await page.getByText("Override: 3 per second (default 0.1).").waitFor({ timeout: 8_000 });
          await page.getByText(/Now 39\./).waitFor();
          await page.getByRole("radio", { name: /^Queue/, checked: true }).waitFor();
          assertEquals(await rate.inputValue(), "3", "an untouched field follows");
          assertEquals(await capacity.inputValue(), "41", "the typed value is kept");
          // Back to what the next steps expect: lottery, the default rate, capacity 40.
          await other("POST", "/api/admin/mode", { queue: "default", mode: "lottery" });
          await other("DELETE", "/api/admin/rate?queue=default");
          await other("PUT", "/api/admin/capacity", { queue: "default", capacity: 40 });
          await page.getByText("Default: 0.1 per second (ADMIT_PER_SECOND).").waitFor({
            timeout: 8_000,
          });
          await page.getByRole("radio", { name: /^Lottery/, checked: true }).waitFor();
          assertEquals(await rate.inputValue(), "0.1");
          assertEquals(await capacity.inputValue(), "41");
          await capacity.fill("40");
        },
      );

      await t.step(
        "admission: typing during a save is kept; after a save the field follows",
        async () => {
          const capacity = page.getByLabel("Visitors on the site at once");
          // Hold the save's answer until the operator has typed again.
          let release!: () => void;
          const held = new Promise<void>((r) => release = r);
          const saves = "**/api/admin/capacity";
          await page.route(saves, async (route) => {
            await held;
            await route.continue();
          });
          try {
            await capacity.fill("42");
            await page.getByRole("button", { name: "Save capacity" }).click();
            await capacity.fill("43"); // while the save of 42 is in flight
            release();
            await cardStatus(page, "Capacity").filter({ hasText: "Capacity set to 42" }).waitFor();
            assertEquals((await settings()).capacity, 42);
            assertEquals(await capacity.inputValue(), "43", "typed during the save: kept");
          } finally {
            release();
            await page.unroute(saves);
          }
          await page.getByRole("button", { name: "Save capacity" }).click();
          await cardStatus(page, "Capacity").filter({ hasText: "Capacity set to 43" }).waitFor();
          // Saved and untouched since: a change made elsewhere shows in it again.
          const r = await s.call(
            "PUT",
            "/api/admin/capacity",
            { queue: "default", capacity: 40 },
            session,
          );
          assertEquals(r.status, 200);
          await page.getByText(/Now 40\./).waitFor({ timeout: 8_000 });
          assertEquals(await capacity.inputValue(), "40", "follows again after its save");
        },
      );

      await t.step("admission: lowering the waiting cap below the line asks first", async () => {
        const cap = page.getByLabel("Most visitors waiting at once");
        await cap.fill("3");
        await page.getByRole("button", { name: "Save waiting cap" }).click();
        const dialog = page.getByRole("dialog");
        await dialog.waitFor();
        assert((await dialog.textContent())?.includes(`${joins} people are waiting`));
        await answer(page, "Cancel");
        assertEquals((await settings()).maxWaitingVisitors, 1_000_000);
        await page.getByRole("button", { name: "Save waiting cap" }).click();
        await answer(page, "Lower the cap");
        await cardStatus(page, "Waiting-row cap").filter({ hasText: "cap set to 3" }).waitFor();
        const lim = await s.call(
          "GET",
          "/api/admin/queue-limits?queue=default",
          undefined,
          session,
        );
        assertEquals(lim.json.maxWaitingVisitors, 3);
        // Raising needs no question.
        await cap.fill("100");
        await page.getByRole("button", { name: "Save waiting cap" }).click();
        await cardStatus(page, "Waiting-row cap").filter({ hasText: "cap set to 100" }).waitFor();
        assertEquals((await settings()).maxWaitingVisitors, 100);
      });

      await t.step("admission: resume, then force-admit 2", async () => {
        await page.getByRole("button", { name: "Resume admissions" }).click();
        await page.getByRole("button", { name: "Pause admissions" }).waitFor();
        assertEquals((await settings()).paused, false);
        await page.getByLabel("How many to admit").fill("2");
        await page.getByRole("button", { name: "Admit now" }).click();
        await answer(page, "Admit now");
        await cardStatus(page, "Let people in now").filter({ hasText: "Admitted 2 visitors" })
          .waitFor();
        const m = await s.call("GET", "/api/admin/metrics", undefined, session);
        const q = m.json.queues[0];
        assert(q.admittedTotal >= 2 && q.waiting <= joins - 2, JSON.stringify(q));
        await page.screenshot({ path: screenshotPath("admin-admission.png"), fullPage: true });
      });

      await t.step(
        "branding: a bad colour is refused by name, a title shows in the preview",
        async () => {
          const waitingBefore = await waitingOf();
          await page.goto(`${s.base}/admin#branding`);
          // Every queue at once is an explicit choice (the picked queue is the default scope).
          await page.getByLabel(/^All queues/).check();
          const colour = page.getByLabel("Main colour", { exact: true });
          await colour.fill("#12");
          await page.getByRole("button", { name: "Save branding" }).click();
          const st = cardStatus(page, "Waiting page look");
          // The summary links to the field; the field says what is wrong, once.
          await st.getByRole("link", { name: "Main colour" }).waitFor();
          await page.locator(".field-error", { hasText: "Use a colour like #2563eb or #fff." })
            .waitFor();
          assertEquals(await colour.getAttribute("aria-invalid"), "true");
          const before = await s.call("GET", "/api/admin/state", undefined, session);
          assert(before.json.branding.primaryColor !== "#12");

          await colour.fill("#0a7d33");
          await page.getByLabel("Title").fill("Summer Sale Queue");
          await page.getByLabel("Show how many people are waiting").setChecked(false);
          await page.getByLabel("Seconds an admitted visitor's place is held").fill("90");
          await page.getByRole("button", { name: "Save branding" }).click();
          await st.filter({ hasText: "Branding saved" }).waitFor();
          assertEquals(await colour.getAttribute("aria-invalid"), null);
          const after = (await s.call("GET", "/api/admin/state", undefined, session)).json.branding;
          assertEquals(after.title, "Summer Sale Queue");
          assertEquals(after.primaryColor, "#0a7d33");
          assertEquals(after.showWaitingCount, false);
          assertEquals(after.admitHoldSeconds, 90);
          const frame = page.frameLocator('iframe[title="Waiting page preview"]');
          await frame.getByRole("heading", { name: "Summer Sale Queue" }).waitFor();
          // The preview shows sample figures and does not make the admin's browser a visitor.
          assertEquals(await waitingOf(), waitingBefore, "the preview joined nobody");
          assert(!(await ctx.cookies(s.base)).some((c) => c.name === "tg_ticket"), "no ticket");
          await page.screenshot({ path: screenshotPath("admin-branding.png"), fullPage: true });
        },
      );

      await t.step("admission: visit the site as an admitted visitor", async () => {
        await page.goto(`${s.base}/admin#admission`);
        const [site] = await Promise.all([
          ctx.waitForEvent("page"),
          page.getByRole("button", { name: "Visit the site as an admitted visitor" }).click(),
        ]);
        await site.waitForURL((u) => !u.pathname.includes("/admin") && u.href !== "about:blank");
        assert(page.url().includes("/admin#admission"), `the control room stays: ${page.url()}`);
        await page.getByText("The site opened in a new tab.").waitFor();
        const cookies = await ctx.cookies(s.base);
        assert(cookies.some((c) => c.name === "tg_access"), "the pass cookie is set");
      });
      await ctx.close();
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
