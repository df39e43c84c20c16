/**
 * Rooms in the control room, in real Chromium against a real server: the Live tab's queues card
 * (create with mode, rate and capacity; live waiting counts; delete with a confirmation, asked
 * again with the count when visitors wait), the queue picker following it, and per-queue
 * branding on the Branding tab (inherit per field, a preview that follows the form unsaved).
 */
import type { Browser, Page } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { type AdminServer, startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

const T = { timeout: 15_000 };

/** Answers the confirmation dialog that says `says` with `button`; returns its whole question. */
async function answer(page: Page, says: string, button: string): Promise<string> {
  const dialog = page.getByRole("dialog").filter({ hasText: says });
  await dialog.waitFor(T);
  const text = (await dialog.locator("p").textContent()) ?? "";
  await dialog.getByRole("button", { name: button, exact: true }).click();
  return text;
}

const card = (page: Page, title: string) =>
  page.locator("section.card", { has: page.getByRole("heading", { name: title, exact: true }) });

Deno.test({
  name: "admin rooms: queues card and per-queue branding",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s: AdminServer = await startAdminServer(["default"], { ADMIT_PER_SECOND: 0.1 });
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      browser = await launchBrowser();
      const ctx = await s.signedIn(browser, session);
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      const queues = async () =>
        (await s.call("GET", "/api/admin/queues", undefined, session)).json.queues as {
          queue: string;
          mode: string;
          admitPerSecond: number | null;
          capacity: number;
        }[];

      await t.step("create a queue with mode, rate and capacity", async () => {
        await page.goto(`${s.base}/admin#live`);
        const c = card(page, "Queues");
        await c.getByRole("row", { name: /default/ }).waitFor(T);
        // The browser checks the name first: nothing is sent for a bad one.
        await c.getByLabel("Name").fill("Bad Name");
        await c.getByRole("button", { name: "Create queue" }).click();
        await c.locator(".field-error").filter({ hasText: "Use lowercase letters" }).waitFor(T);
        await c.locator(".status.error").getByRole("link", { name: "Name" }).waitFor(T);
        assertEquals((await queues()).length, 1);

        await c.getByLabel("Name").fill("presale");
        await c.getByLabel("Lottery").check();
        await c.getByLabel("Admit per second (optional)").fill("2");
        await c.getByLabel("Capacity (optional)").fill("40");
        await c.getByRole("button", { name: "Create queue" }).click();
        await c.getByText("Queue presale created").waitFor(T);
        const q = (await queues()).find((x) => x.queue === "presale");
        assertEquals([q?.mode, q?.admitPerSecond, q?.capacity], ["lottery", 2, 40]);
        // The picker offers it at once.
        await page.locator("#queue-pick option", { hasText: "presale" }).waitFor({
          state: "attached",
          ...T,
        });
      });

      await t.step("the list shows live waiting counts", async () => {
        await s.services.engine.setPaused("presale", true);
        for (let i = 0; i < 2; i++) await s.services.engine.join("presale", null);
        const row = card(page, "Queues").getByRole("row", { name: /presale/ });
        await row.getByRole("cell", { name: "2", exact: true }).waitFor(T);
        await row.getByText("(paused)").waitFor(T);
        await page.screenshot({ path: screenshotPath("admin-queues.png"), fullPage: true });
      });

      await t.step("delete asks once, saying who waits, then removes it", async () => {
        // Picked in the header first: after the delete, no load may still ask for its figures.
        await page.locator("#queue-pick").selectOption("presale");
        const c = card(page, "Queues");
        await c.getByRole("button", { name: "Delete presale" }).click();
        await answer(page, "Delete the queue presale? 2 visitors wait in it", "Cancel");
        await page.getByRole("dialog").waitFor({ state: "hidden", ...T });
        assert((await queues()).some((x) => x.queue === "presale"), "cancel keeps it");
        await c.getByRole("button", { name: "Delete presale" }).click();
        await answer(
          page,
          "Delete the queue presale? 2 visitors wait in it",
          "Delete with its visitors",
        );
        await c.getByText("Queue presale deleted with 2 waiting visitor(s)").waitFor(T);
        assert(!await page.getByRole("dialog").isVisible(), "one dialog, not two");
        await c.getByText("Its name can be used again from").waitFor(T);
        assertEquals((await queues()).map((x) => x.queue), ["default"]);
        await page.locator("#queue-pick option", { hasText: "presale" }).waitFor({
          state: "detached",
          ...T,
        });
        assert(await c.getByRole("button", { name: "Delete default" }).isDisabled(), "last one");
        const missing: string[] = [];
        const on404 = (r: { status(): number; url(): string }) => {
          if (r.status() === 404) missing.push(r.url());
        };
        page.on("response", on404);
        await page.reload();
        await page.locator("#queue-pick option", { hasText: "default" }).waitFor({
          state: "attached",
          ...T,
        });
        await page.waitForTimeout(1500);
        page.off("response", on404);
        assertEquals(missing, [], "a deleted queue is no longer asked for");
      });

      await t.step(
        "branding: one queue overrides a field, the preview follows unsaved",
        async () => {
          const made = await s.call("POST", "/api/admin/queues", { name: "vip" }, session);
          assertEquals(made.status, 200, JSON.stringify(made.json));
          await page.goto(`${s.base}/admin#branding`);
          await page.reload(); // the picker reads the queue list when the app starts
          await page.locator("#queue-pick option", { hasText: "vip" }).waitFor({
            state: "attached",
            ...T,
          });
          await page.locator("#queue-pick").selectOption({ label: "vip" });
          // The queue picked at the top is the one edited, unless "All queues" is chosen.
          assert(await page.getByLabel(/^Queue vip only/).isChecked(), "scope: the picked queue");
          const title = page.getByLabel("Title", { exact: true });
          assert(await title.isDisabled(), "an inherited field follows all queues");
          await page.getByLabel("Title: inherit from all queues").uncheck();
          await title.fill("VIP presale");
          // Not saved yet, and already in the preview.
          const frame = page.frameLocator('iframe[title="Waiting page preview"]');
          await frame.getByRole("heading", { name: "VIP presale" }).waitFor(T);
          const before = (await s.call("GET", "/api/admin/branding?queue=vip", undefined, session))
            .json;
          assertEquals(before.overrides, {});
          await page.getByRole("button", { name: "Save branding" }).click();
          await page.getByText("Branding of queue vip saved.").waitFor(T);
          const after = (await s.call("GET", "/api/admin/branding?queue=vip", undefined, session))
            .json;
          assertEquals(after.overrides, { title: "VIP presale" });
          assert(after.service.title !== "VIP presale", "the service-wide title is untouched");
          await page.screenshot({
            path: screenshotPath("admin-branding-queue.png"),
            fullPage: true,
          });
          // Visitors of vip see it (paused, so they wait on the page); default's do not.
          await s.services.engine.setPaused("vip", true);
          await s.services.engine.setPaused("default", true);
          const vip = await (await fetch(`${s.base}/wait?queue=vip`)).text();
          assert(vip.includes("VIP presale"), "vip's page");
          const def = await (await fetch(`${s.base}/wait?queue=default`)).text();
          assert(!def.includes("VIP presale"), "default's page");
        },
      );

      await t.step(
        "the preview shows the background; 'Room full' keeps the queue's look",
        async () => {
          const colour = page.getByLabel("Background colour", { exact: true });
          await page.getByLabel("Background colour: inherit from all queues").uncheck();
          await colour.fill("#fde68a");
          const frame = page.frameLocator('iframe[title="Waiting page preview"]');
          // The frame reloads a moment after each edit: read its background until it shows.
          let bg = "";
          for (let i = 0; i < 100 && bg !== "rgb(253, 230, 138)"; i++) {
            await page.waitForTimeout(100);
            bg = await frame.locator("body").evaluate((b) => getComputedStyle(b).backgroundColor)
              .catch(() => "");
          }
          assertEquals(bg, "rgb(253, 230, 138)", "the preview shows the background colour");
          await page.getByRole("button", { name: "Save branding" }).click();
          await page.getByText("Branding of queue vip saved.").waitFor(T);
          // vip is full: one waiting (the page load above joined) at a cap of one.
          const lim = await s.call("GET", "/api/admin/queue-limits?queue=vip", undefined, session);
          const put = await s.call("PUT", "/api/admin/queue-limits", {
            queue: "vip",
            maxWaitingVisitors: 1,
            previousMaxWaitingVisitors: lim.json.maxWaitingVisitors,
            confirmChanges: true,
          }, session);
          assertEquals(put.status, 200, JSON.stringify(put.json));
          const full = await fetch(`${s.base}/wait?queue=vip`);
          const html = await full.text();
          assert(html.includes("The waiting room is full"), html.slice(0, 300));
          assert(html.includes("#fde68a"), "the full page keeps vip's background");
        },
      );
      assertEquals(errors, []);
      await ctx.close();
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
