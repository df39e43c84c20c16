/**
 * The room switch card and the path rules editor in real Chromium against a real server: each
 * switch (queue_all, passthrough, reject with the operator's text, auto with its thresholds,
 * back to normal) is changed through the UI and checked through the API and a visitor's join; a
 * rule list is saved, and a shadowed rule is named by its line without changing anything.
 */
import type { Browser } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";

Deno.test({
  name: "admin: each room switch and the path rules, changed in the admin app",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const s = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      browser = await launchBrowser();
      const ctx = await browser.newContext({ viewport: { width: 1100, height: 1600 } });
      await ctx.addCookies([{ name: "tg_admin", value: session, url: s.base, httpOnly: true }]);
      const page = await ctx.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${s.base}/admin#admission`);
      const card = page.locator("section.card", {
        has: page.getByRole("heading", { name: "Room switch", exact: true }),
      });
      const room = async () => (await s.call("GET", "/api/admin/room", undefined, session)).json;
      const pick = async (label: RegExp) => {
        await card.getByRole("radio", { name: label }).check();
      };
      const save = async (expect: string, confirm?: string) => {
        await card.getByRole("button", { name: "Save switch" }).click();
        if (confirm) await page.getByRole("dialog").getByRole("button", { name: confirm }).click();
        await card.locator("p.status").filter({ hasText: expect }).waitFor();
      };

      await pick(/^Everyone waits/);
      await save("queue_all");
      assertEquals((await room()).mode, "queue_all");

      // Letting everyone in, or closing the room, is asked first: cancelled, nothing changes.
      await pick(/^Nobody waits/);
      await card.getByRole("button", { name: "Save switch" }).click();
      await page.getByRole("dialog").getByText("Let everyone in? Nobody waits").waitFor();
      await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
      assertEquals((await room()).mode, "queue_all");
      await save("passthrough", "Let everyone in");
      assertEquals((await room()).mode, "passthrough");

      await pick(/^Closed/);
      await card.getByLabel("Message on the closed page").fill("Back on Monday at 9.");
      await card.getByLabel("Ask to come back after (seconds)").fill("600");
      await save("reject", "Close the room");
      const closed = await room();
      assertEquals([closed.mode, closed.closedMessage, closed.retryAfterSeconds], [
        "reject",
        "Back on Monday at 9.",
        600,
      ]);
      const j = await fetch(`${s.base}/join`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ queue: "default" }),
      });
      assertEquals([j.status, j.headers.get("retry-after")], [503, "600"]);
      assertEquals((await j.json()).error.code, "room_closed");

      // The Safety Net: thresholds in the wrong order are refused, the right ones saved.
      await pick(/^Safety Net/);
      await card.getByLabel("Joins per minute: start at").fill("100");
      await card.getByLabel("Joins per minute: stop below").fill("200");
      await card.getByLabel("Calm minutes").fill("3");
      await card.getByRole("button", { name: "Save switch" }).click();
      await card.getByText(/must be below the start threshold/i).first().waitFor();
      assertEquals((await room()).mode, "reject", "nothing changed");
      await card.getByLabel("Joins per minute: stop below").fill("50");
      await save("Safety Net");
      const auto = await room();
      assertEquals([auto.mode, auto.effectiveMode], ["auto", "passthrough"]);
      assertEquals(auto.safetyNet.joinsPerMinuteHigh, 100);
      await card.getByText("letting everyone through").waitFor();
      await page.screenshot({ path: screenshotPath("admin-room-switch.png"), fullPage: true });

      await pick(/^Normal/);
      await save("normal");
      assertEquals((await room()).mode, "normal");

      // The path rules, on the Access tab.
      await page.goto(`${s.base}/admin#access`);
      const rules = page.locator("section.card", {
        has: page.getByRole("heading", { name: "Path rules", exact: true }),
      });
      const text = rules.getByLabel("Rules, one a line");
      await text.fill("bypass asset css,js  # static files\nbypass path /healthz");
      await rules.getByRole("button", { name: "Save rules" }).click();
      await rules.locator("p.status").filter({ hasText: "Saved: 2 rules" }).waitFor();
      const stored = await s.call("GET", "/api/admin/path-rules", undefined, session);
      assertEquals(stored.json.rules[0], {
        match: "asset",
        pattern: "css,js",
        action: "bypass",
        note: "static files",
      });
      await text.fill("bypass path /api/**\n\nqueue path /api/cart");
      await rules.getByRole("button", { name: "Save rules" }).click();
      const named = rules.locator("#path-rules-lines li");
      await named.first().waitFor();
      assert((await named.first().textContent())!.includes("Line 3"), "the shadowed rule's line");
      const after = await s.call("GET", "/api/admin/path-rules", undefined, session);
      assertEquals(after.json.rules.length, 2, "nothing changed");
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
