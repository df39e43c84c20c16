/**
 * The admin app under the mistakes and faults a new operator meets, in real Chromium against a
 * real server. Each test failed before its fix: work typed is never thrown away (a session that
 * ends mid-edit, leaving a tab or queue, a state override refilling a form), and every failure is
 * said in words (a proxy's 502, an internal error, a refused path rule, a queue deleted elsewhere,
 * a queue list that fails to load, the country block's question). Two tabs saving the same
 * settings: tests/browser/admin_two_tabs_test.ts.
 */
import type { BrowserContext } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { ADMIN_PASSWORD, ADMIN_USER, type AdminServer } from "./admin_helper.ts";
import { faultTest, T } from "./admin_faults_helper.ts";

/** A page on the Admission tab with 25 typed into the rate and not saved. */
async function rateTyped(s: AdminServer, ctx: BrowserContext) {
  const page = await ctx.newPage();
  await page.goto(`${s.base}/admin#admission`);
  const rate = page.getByLabel("Visitors admitted per second");
  await rate.waitFor(T);
  await rate.fill("25");
  return { page, rate };
}

faultTest(
  "a session that ends mid-edit keeps the edit and signs in over it",
  ["default"],
  async (s, ctx, session) => {
    // Sign-in runs the built-in check (no widget to click in this test).
    const use = await s.call("POST", "/api/admin/challenge/use-builtin", undefined, undefined, {
      authorization: `Bearer ${s.config.TOKEN_SECRET}`,
    });
    assertEquals(use.status, 200, JSON.stringify(use.json));
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${s.base}/admin#admission`);
    const rate = page.getByLabel("Visitors admitted per second");
    await rate.waitFor(T);
    await rate.fill("25");

    // The session ends elsewhere (signed out in another tab, or expired) while the form is open.
    assertEquals((await s.call("POST", "/api/admin/logout", {}, session)).status, 200);
    await page.getByRole("button", { name: "Set rate" }).click();

    const dialog = page.getByRole("dialog");
    await dialog.getByText("Your session ended").waitFor(T);
    assertEquals(await rate.inputValue(), "25", "the edit is still there");
    assert(await page.getByRole("tablist").isVisible(), "the control room stays open");

    await dialog.getByLabel("Username").fill(ADMIN_USER);
    await dialog.getByLabel("Password").fill(ADMIN_PASSWORD);
    await dialog.getByRole("button", { name: "Sign in" }).click();
    // Signing in solves the built-in check in the page: slow on a loaded machine.
    await dialog.waitFor({ state: "detached", timeout: 45_000 });
    assertEquals(await rate.inputValue(), "25", "still there after signing in");
    await page.getByRole("button", { name: "Set rate" }).click();
    await page.getByText("Rate set to 25 per second.").waitFor(T);
    assertEquals((await s.services.engine.settings("default")).admitPerSecond, 25);
    assertEquals(errors, []);
  },
);

faultTest(
  "leaving a tab, a queue or the page with an unsaved edit asks first",
  ["default", "shop"],
  async (s, ctx) => {
    const { page, rate } = await rateTyped(s, ctx);
    const dialog = page.getByRole("dialog");

    // Another tab: asked; staying keeps the edit.
    await page.getByRole("tab", { name: "Branding" }).click();
    await dialog.getByText("not saved yet").waitFor(T);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    assertEquals(await rate.inputValue(), "25");
    assertEquals(
      await page.getByRole("tab", { name: "Admission" }).getAttribute("aria-selected"),
      "true",
    );

    // Another queue: asked; staying keeps the edit and the queue.
    const pick = page.getByLabel("Queue", { exact: true });
    await pick.selectOption("shop");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    assertEquals([await pick.inputValue(), await rate.inputValue()], ["default", "25"]);

    // Closing the page: the browser's own question.
    let asked = "";
    page.on("dialog", (d) => {
      asked = d.type();
      void d.dismiss();
    });
    await page.close({ runBeforeUnload: true });
    await new Promise((r) => setTimeout(r, 300));
    assertEquals(asked, "beforeunload");

    // Once saved, nothing is asked.
    const p2 = await ctx.newPage();
    await p2.goto(`${s.base}/admin#admission`);
    const rate2 = p2.getByLabel("Visitors admitted per second");
    await rate2.waitFor(T);
    await rate2.fill("30");
    await p2.getByRole("button", { name: "Set rate" }).click();
    await p2.getByText("Rate set to 30 per second.").waitFor(T);
    await p2.getByRole("tab", { name: "Branding" }).click();
    await p2.getByLabel("Title", { exact: true }).waitFor(T);
    // Leaving on purpose drops the edit.
    await p2.getByLabel(/^All queues/).check();
    await p2.getByLabel("Title", { exact: true }).fill("Unsaved title");
    await p2.getByRole("tab", { name: "Live" }).click();
    await p2.getByRole("dialog").getByRole("button", { name: "Leave without saving" }).click();
    await p2.getByRole("tab", { name: "Live", selected: true }).waitFor(T);
  },
);

faultTest(
  "a proxy's error page or an internal error is said in words, not a number",
  ["default"],
  async (s, ctx) => {
    const { page, rate } = await rateTyped(s, ctx);
    const card = page.locator("section.card", {
      has: page.getByRole("heading", { name: "Admission rate" }),
    });
    const answers: [number, string, string, string][] = [
      [502, "text/html", "<html><h1>502 Bad Gateway</h1><hr>nginx</html>", "did not answer"],
      [
        500,
        "application/json",
        JSON.stringify({ error: { code: "internal", message: "internal error", details: {} } }),
        "failed on this request",
      ],
      [418, "text/plain", "teapot", "unexpected answer"],
      // The connection cut mid-save (the service restarting): the save may have been made.
      [0, "", "", "could not be reached"],
    ];
    for (const [status, contentType, body, words] of answers) {
      await page.route(
        "**/api/admin/rate",
        (r) => status ? r.fulfill({ status, contentType, body }) : r.abort("connectionreset"),
      );
      await page.getByRole("button", { name: "Set rate" }).click();
      const line = card.locator(".status").filter({ hasText: words });
      await line.waitFor(T);
      const text = await line.innerText();
      assert(text.includes("reload to see whether it was kept"), text);
      assert(!/answered \d+/.test(text), text);
      await page.unroute("**/api/admin/rate");
    }
    assertEquals(await rate.inputValue(), "25", "the form keeps the value");
  },
);

faultTest("a refused path rule is said in words, by line and word", ["default"], async (s, ctx) => {
  const page = await ctx.newPage();
  await page.goto(`${s.base}/admin#access`);
  const card = page.locator("section.card", {
    has: page.getByRole("heading", { name: "Path rules", exact: true }),
  });
  await card.getByLabel("Rules, one a line").fill("bypass path /healthz\nblock path /admin");
  await card.getByRole("button", { name: "Save rules" }).click();
  const line = card.locator("#path-rules-lines li");
  await line.first().waitFor(T);
  const text = await line.first().innerText();
  assert(text.includes("Line 2: block"), text);
  assert(text.includes("must be one of: queue, bypass, route"), text);
  const all = await card.innerText();
  assert(!/Invalid option|expected one of|options offered/.test(all), all);
  await card.locator(".status").filter({ hasText: "Not saved: fix line 2" }).waitFor(T);
});

faultTest(
  "the country block's question reads well for one hour and none",
  ["default"],
  async (s, ctx) => {
    const page = await ctx.newPage();
    await page.goto(`${s.base}/admin#access`);
    const card = page.locator("section.card", {
      has: page.getByRole("heading", { name: "Country block", exact: true }),
    });
    await card.getByLabel("Block these countries").check(T);
    await card.getByLabel("Countries", { exact: true }).fill("RU");
    const dialog = page.getByRole("dialog");
    for (const [ttl, words] of [["1", "for 1 hour?"], ["", "these countries?"]]) {
      await card.getByLabel("Duration in hours").fill(ttl);
      await card.getByRole("button", { name: "Save country block" }).click();
      const text = await dialog.locator("#confirm-text").innerText(T);
      assert(text.includes(words) && !text.includes(" hours?") && !/for\s+hour/.test(text), text);
      await dialog.getByRole("button", { name: "Cancel" }).click();
    }
  },
);

faultTest(
  "a queue deleted elsewhere is said so, not left in the picker",
  ["default", "shop"],
  async (s, ctx, session) => {
    const page = await ctx.newPage();
    await page.goto(`${s.base}/admin#admission`);
    const pick = page.getByLabel("Queue", { exact: true });
    await pick.selectOption("shop");
    const rate = page.getByLabel("Visitors admitted per second");
    await rate.waitFor(T);
    await rate.fill("25");
    const del = await s.call("DELETE", "/api/admin/queues/shop", undefined, session);
    assertEquals(del.status, 200, JSON.stringify(del.json));
    await page.getByRole("button", { name: "Set rate" }).click();
    await page.getByRole("alert").filter({ hasText: "Queue shop no longer exists" }).waitFor(T);
    assertEquals(await pick.inputValue(), "default");
    assertEquals(await pick.locator("option").allInnerTexts(), ["default"]);
  },
);

faultTest("a queue list that fails to load says so and comes back", ["default"], async (s, ctx) => {
  const page = await ctx.newPage();
  let failing = true;
  await page.route(
    "**/api/admin/queues",
    (r) =>
      failing
        ? r.fulfill({ status: 502, contentType: "text/html", body: "<h1>502 Bad Gateway</h1>" })
        : r.continue(),
  );
  await page.goto(`${s.base}/admin#admission`);
  const alert = page.getByRole("alert").filter({ hasText: "Could not load the queues" });
  await alert.waitFor(T);
  const text = await alert.innerText();
  assert(text.includes("did not answer") && !text.includes("If you were saving"), text);
  failing = false;
  await page.getByLabel("Visitors admitted per second").waitFor(T);
});

faultTest(
  "forcing the health state keeps the probe settings being typed",
  ["default"],
  async (s, ctx) => {
    const page = await ctx.newPage();
    await page.goto(`${s.base}/admin#access`);
    const url = page.getByLabel("Health URL");
    await url.waitFor(T);
    await url.fill("https://shop.example.com/health");
    await page.getByRole("button", { name: "Force healthy" }).click();
    await page.getByText("Forced healthy.").waitFor(T);
    assertEquals(await url.inputValue(), "https://shop.example.com/health");
  },
);
