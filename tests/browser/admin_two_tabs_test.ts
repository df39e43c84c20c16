/**
 * Two tabs (or two admins) saving the same settings, in real Chromium against a real server: a
 * save never puts back, unseen, what the other tab saved in other fields, and a field changed in
 * both is named and replaced only when confirmed (client/admin/stale.ts). Each test failed before
 * its fix: branding, webhooks, health probe and e-mail settings.
 */
import type { Page } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { faultTest, T } from "./admin_faults_helper.ts";

faultTest(
  "two tabs editing the branding do not undo each other's saves unseen",
  ["default"],
  async (s, ctx, session) => {
    const [a, b] = [await ctx.newPage(), await ctx.newPage()];
    for (const p of [a, b]) {
      await p.goto(`${s.base}/admin#branding`);
      await p.getByLabel(/^All queues/).check(T);
      await p.getByLabel("Title", { exact: true }).waitFor(T);
    }
    const stored = async () =>
      (await s.call("GET", "/api/admin/branding", undefined, session)).json;
    /** Types `value` into `field` of tab `p`, saves, and waits for the store to hold it. */
    const save = async (p: Page, field: "Title" | "Message", value: string) => {
      await p.bringToFront(); // a tab in the background runs its timers late
      await p.getByLabel(field, { exact: true }).fill(value);
      await p.getByRole("button", { name: "Save branding" }).click();
      const key = field === "Title" ? "title" : "message";
      for (let i = 0; i < 100 && (await stored())[key] !== value; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      await p.locator(".status").filter({ hasText: "Branding saved" }).waitFor(T);
    };

    // Different fields: both saves stand.
    await save(a, "Title", "Title from A");
    await save(b, "Message", "Message from B");
    assertEquals([(await stored()).title, (await stored()).message], [
      "Title from A",
      "Message from B",
    ]);

    // The same field: the later save names the clash, and cancelling keeps the other save.
    await save(b, "Title", "Title from B");
    await a.bringToFront();
    await a.getByLabel("Title", { exact: true }).fill("Title again from A");
    await a.getByRole("button", { name: "Save branding" }).click();
    const dialog = a.getByRole("dialog");
    await dialog.getByText("Title: saved by someone else").waitFor(T);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await a.locator(".status").filter({ hasText: "Not saved" }).waitFor(T);
    assertEquals((await stored()).title, "Title from B");
    assertEquals(await a.getByLabel("Title", { exact: true }).inputValue(), "Title again from A");
    // Saying "Replace" saves it.
    await a.getByRole("button", { name: "Save branding" }).click();
    await dialog.getByRole("button", { name: "Replace" }).click();
    await a.locator(".status").filter({ hasText: "Branding saved" }).waitFor(T);
    assertEquals((await stored()).title, "Title again from A");
  },
);

faultTest(
  "two tabs saving the webhooks keep each other's fields",
  ["default"],
  async (s, ctx, session) => {
    const [a, b] = [await ctx.newPage(), await ctx.newPage()];
    const card = (p: Page) =>
      p.locator("section.card", { has: p.getByRole("heading", { name: "Webhooks", exact: true }) });
    for (const p of [a, b]) {
      await p.goto(`${s.base}/admin#system`);
      await card(p).getByLabel("Depth threshold").waitFor(T);
      await p.waitForFunction(() => !document.querySelector("fieldset[aria-busy=true]"));
    }
    const stored = async () =>
      (await s.call("GET", "/api/admin/webhooks", undefined, session)).json;
    const saved = async (p: Page) => {
      await card(p).getByRole("button", { name: "Save webhooks" }).click();
      await card(p).locator(".status").filter({ hasText: "Saved" }).waitFor(T);
    };
    // Tab A stops the pause event; tab B, opened before, changes the depth threshold.
    await a.bringToFront();
    await card(a).getByLabel(/^Pause:/).uncheck();
    await saved(a);
    assertEquals((await stored()).events, ["health", "depth"]);
    await b.bringToFront();
    await card(b).getByLabel("Depth threshold").fill("250");
    await saved(b);
    const after = await stored();
    assertEquals([after.events, after.depthThreshold], [["health", "depth"], 250]);
    assert(!(await card(b).getByLabel(/^Pause:/).isChecked()), "tab B shows what is stored now");
  },
);

faultTest(
  "two tabs saving the health settings keep each other's fields",
  ["default"],
  async (s, ctx, session) => {
    const [a, b] = [await ctx.newPage(), await ctx.newPage()];
    for (const p of [a, b]) {
      await p.goto(`${s.base}/admin#access`);
      await p.getByLabel("Timeout (ms)").waitFor(T);
    }
    const save = async (p: Page, field: string, value: string) => {
      await p.bringToFront();
      await p.getByLabel(field).fill(value);
      await p.getByRole("button", { name: "Save health settings" }).click();
      const card = p.locator("section.card", {
        has: p.getByRole("heading", { name: "Origin health throttle" }),
      });
      await card.locator(".status").filter({ hasText: "Saved." }).waitFor(T);
    };
    await save(a, "Timeout (ms)", "3000");
    await save(b, "Failures in a row that pause", "5");
    const c = (await s.call("GET", "/api/admin/health", undefined, session)).json.config;
    assertEquals([c.timeoutMs, c.failures], [3000, 5]);
  },
);

faultTest(
  "two tabs saving the e-mail settings keep each other's fields",
  ["default"],
  async (s, ctx, session) => {
    const [a, b] = [await ctx.newPage(), await ctx.newPage()];
    const card = (p: Page) =>
      p.locator("section.card", { has: p.getByRole("heading", { name: "Turn e-mail" }) });
    for (const p of [a, b]) {
      await p.goto(`${s.base}/admin#system`);
      await card(p).getByLabel("Port", { exact: true }).waitFor(T);
      await p.waitForFunction(() => !document.querySelector("fieldset[aria-busy=true]"));
    }
    const save = async (p: Page, field: string, value: string) => {
      await p.bringToFront();
      await card(p).getByLabel(field, { exact: true }).fill(value);
      await card(p).getByRole("button", { name: /^Save/ }).click();
      await card(p).locator(".status").filter({ hasText: "Saved." }).waitFor(T);
    };
    await save(a, "SMTP server", "smtp.example.com");
    await save(b, "Port", "2525");
    const m = (await s.call("GET", "/api/admin/mail", undefined, session)).json;
    assertEquals([m.host, m.port], ["smtp.example.com", 2525]);
  },
);
