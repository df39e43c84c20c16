/**
 * Two tabs saving the same single-value settings, in real Chromium against a real server: the
 * admission rate, the room switch and the country block (every other form saves through the same
 * code, client/admin/stale.ts `checkedSave`). A save never puts back, unseen, what the other tab
 * saved after this tab loaded: a field changed in both is named and replaced only when confirmed,
 * a field left alone here keeps the other tab's value. Each test failed before the fix (the later
 * save silently won).
 */
import type { Locator, Page } from "playwright-core";
import { assertEquals } from "../assert.ts";
import type { AdminServer } from "./admin_helper.ts";
import { faultTest, T } from "./admin_faults_helper.ts";

/** Polls `read` until it gives `want` (the store is read by the API, not the page). */
async function until(read: () => Promise<unknown>, want: unknown) {
  for (let i = 0; i < 100; i++) {
    if (JSON.stringify(await read()) === JSON.stringify(want)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assertEquals(await read(), want);
}

/** Opens `hash` in two tabs of `ctx`, each waiting for `ready` to show. */
async function twoTabs(
  s: AdminServer,
  pages: Page[],
  hash: string,
  ready: (p: Page) => Locator,
) {
  for (const p of pages) {
    await p.goto(`${s.base}/admin#${hash}`);
    await ready(p).waitFor(T);
    await p.waitForFunction(() => !document.querySelector("fieldset[aria-busy=true]"));
  }
}

/**
 * In tab `p`: the save names `field` as saved elsewhere (with `now`, the value it says is stored);
 * Cancel keeps the other save.
 */
async function clashCancelled(
  p: Page,
  field: string,
  save: () => Promise<void>,
  now = "",
) {
  await save();
  const dialog = p.getByRole("dialog");
  await dialog.getByText(`${field}${now}: saved by someone else`).waitFor(T);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await p.locator(".status").filter({ hasText: "Not saved" }).first().waitFor(T);
}

faultTest("two tabs setting the admission rate", ["default"], async (s, ctx, session) => {
  const [a, b] = [await ctx.newPage(), await ctx.newPage()];
  const rate = (p: Page) => p.getByLabel("Visitors admitted per second");
  await twoTabs(s, [a, b], "admission", rate);
  const stored = async () =>
    (await s.call("GET", "/api/admin/queues", undefined, session)).json.queues[0].admitPerSecond;
  // Tab B starts typing; tab A saves meanwhile.
  await b.bringToFront();
  await rate(b).fill("30");
  await a.bringToFront();
  await rate(a).fill("20");
  await a.getByRole("button", { name: "Set rate" }).click();
  await until(stored, 20);
  // Tab B's save names the clash; cancelled, A's rate stays and B keeps what it typed.
  await b.bringToFront();
  await clashCancelled(
    b,
    "Admission rate",
    () => b.getByRole("button", { name: "Set rate" }).click(),
    " (now \u201c20\u201d)",
  );
  assertEquals(await stored(), 20);
  assertEquals(await rate(b).inputValue(), "30");
  // Confirmed, B's rate is saved.
  await b.getByRole("button", { name: "Set rate" }).click();
  await b.getByRole("dialog").getByRole("button", { name: "Replace" }).click();
  await until(stored, 30);
});

faultTest("two tabs saving the room switch", ["default"], async (s, ctx, session) => {
  const closed = {
    queue: "default",
    mode: "reject",
    closedMessage: "Back soon",
    retryAfterSeconds: 60,
  };
  assertEquals((await s.call("PUT", "/api/admin/room", closed, session)).status, 200);
  const [a, b] = [await ctx.newPage(), await ctx.newPage()];
  const message = (p: Page) => p.getByLabel("Message on the closed page");
  const retry = (p: Page) => p.getByLabel("Ask to come back after (seconds)");
  await twoTabs(s, [a, b], "admission", message);
  const stored = async () => {
    const r = (await s.call("GET", "/api/admin/room?queue=default", undefined, session)).json;
    return [r.mode, r.closedMessage, r.retryAfterSeconds];
  };
  const save = (p: Page) => p.getByRole("button", { name: "Save switch" }).click();
  // Different fields: B's save keeps the message A saved after B loaded.
  await b.bringToFront();
  await retry(b).fill("120");
  await a.bringToFront();
  await message(a).fill("Closed by A");
  await save(a);
  await until(stored, ["reject", "Closed by A", 60]);
  await b.bringToFront();
  await save(b);
  await until(stored, ["reject", "Closed by A", 120]);
  // The same field: A opens the room while B, loaded before, picks "Everyone waits".
  await b.getByLabel(/^Everyone waits/).check();
  await a.bringToFront();
  await a.getByLabel(/^Normal/).check();
  await save(a);
  await until(stored, ["normal", "Closed by A", 120]);
  await b.bringToFront();
  // The stored mode in the form's words, not its code ("normal").
  await clashCancelled(b, "What visitors meet", () => save(b), " (now \u201cNormal\u201d)");
  assertEquals((await stored())[0], "normal");
});

faultTest("two tabs saving the country block", ["default"], async (s, ctx, session) => {
  const [a, b] = [await ctx.newPage(), await ctx.newPage()];
  const countries = (p: Page) => p.getByLabel("Countries", { exact: true });
  const hours = (p: Page) => p.getByLabel("Duration in hours");
  await twoTabs(s, [a, b], "access", countries);
  const stored = async () => {
    const g = (await s.call("GET", "/api/admin/geo-block", undefined, session)).json;
    return [g.countriesText, g.ttlHours];
  };
  const save = async (p: Page) => {
    await p.bringToFront();
    await p.getByRole("button", { name: "Save country block" }).click();
  };
  // A saves a list; B, loaded before, changes the duration alone: A's list stays.
  await a.bringToFront();
  await countries(a).fill("FR");
  await save(a);
  await until(async () => (await stored())[0], "FR");
  await b.bringToFront();
  await hours(b).fill("48");
  await save(b);
  await until(stored, ["FR", 48]);
  // Both change the list: B's save names it, and cancelled keeps A's.
  await countries(a).fill("DE");
  await save(a);
  await until(async () => (await stored())[0], "DE");
  await b.bringToFront();
  await countries(b).fill("ES");
  await clashCancelled(b, "Countries", () => save(b), " (now \u201cDE\u201d)");
  assertEquals((await stored())[0], "DE");
});

/** The other forms that save through the same check: [tab, field label, button, name in the question]. */
const FORMS = [
  ["admission", "Visitors on the site at once", "Save capacity", "Capacity", "777", "888"],
  [
    "admission",
    /^Keep a quiet visitor's place for/,
    "Save grace",
    "Keep a quiet visitor's place for",
    "333",
    "444",
  ],
  [
    "admission",
    "New places one address may take per minute",
    "Save limit",
    "New places one address may take per minute",
    "7",
    "8",
  ],
  ["admission", "Idle time (seconds)", "Save sessions", "Idle time", "123", "187"],
  ["admission", /^Puzzle size/, "Save bot check", "Puzzle size", "20001", "30001"],
  ["access", "Rules, one a line", "Save rules", "Rules", "bypass path /a", "bypass path /b"],
] as const;

faultTest(
  "every other settings form names a field saved in both tabs",
  ["default"],
  async (s, ctx) => {
    const [a, b] = [await ctx.newPage(), await ctx.newPage()];
    for (const [tab, label, button, name, va, vb] of FORMS) {
      const field = (p: Page) => p.getByLabel(label as string | RegExp).first();
      await twoTabs(s, [a, b], tab, field);
      await b.bringToFront();
      await field(b).fill(vb);
      await a.bringToFront();
      await field(a).fill(va);
      await a.getByRole("button", { name: button }).click();
      await a.locator(".status").filter({
        hasText: /saved|set to|keep their place|at most|sessions/i,
      })
        .first().waitFor(T);
      await b.bringToFront();
      await clashCancelled(
        b,
        name,
        () => b.getByRole("button", { name: button }).click(),
        ` (now \u201c${va}\u201d)`,
      );
      assertEquals(await field(b).inputValue(), vb, `${name}: what tab B typed is still there`);
    }
  },
);
