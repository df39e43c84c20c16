/**
 * The Admission tab's Priority lanes panel in real Chromium against a real server: a lane is
 * defined and saved; a bad share is refused with its field named beside it, nothing is saved and
 * nothing typed is lost; two codes are issued and shown this once (copy, CSV; kept across a tab
 * switch until hidden), then listed by label, lane, uses and state without their text (also after
 * a reload); one is revoked after a confirmation, and a redeemed one shows as used up. No axe
 * violations with the refusal or the codes on screen.
 */
import type { Browser } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
import { startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";
import { axeViolations } from "./axe.ts";
import { redeemCode } from "../../lib/priority/codes.ts";

const CODE = /^[0-9A-Z]{5}-[0-9A-Z]{5}-[0-9A-Z]{5}$/;

Deno.test({
  name: "admin: priority lanes and codes, defined, issued once, listed and revoked in the app",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const s = await startAdminServer(["default"]);
    let browser: Browser | undefined;
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      browser = await launchBrowser();
      const ctx = await s.signedIn(browser, session, { width: 1100, height: 1600 });
      await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: s.base });
      const page = await ctx.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${s.base}/admin#admission`);
      const card = page.locator("section.card", {
        has: page.getByRole("heading", { name: "Priority lanes", exact: true }),
      });
      const lanes = async () =>
        (await s.call("GET", "/api/admin/lanes?queue=default", undefined, session)).json.lanes;
      const codes = async () =>
        (await s.call("GET", "/api/admin/priority-codes?queue=default", undefined, session)).json
          .codes;
      await card.getByText("No lanes: everyone waits in the one line.").waitFor();

      // A lane with 30% of each second.
      await card.getByRole("button", { name: "Add a lane" }).click();
      await card.getByLabel("Lane 1 name").fill("members");
      await card.getByLabel("Lane 1 share (%)").fill("30");
      await card.getByRole("button", { name: "Save lanes" }).click();
      await card.locator("p.status").filter({ hasText: "Saved: 1 lane." }).waitFor();
      assertEquals(await lanes(), [{ name: "members", share: 0.3 }]);

      // A second lane with 150%: refused, the share named beside its field, nothing saved.
      await card.getByRole("button", { name: "Add a lane" }).click();
      await card.getByLabel("Lane 2 name").fill("staff");
      await card.getByLabel("Lane 2 share (%)").fill("150");
      await card.getByRole("button", { name: "Save lanes" }).click();
      const bad = card.locator(".field.invalid", { has: page.getByLabel("Lane 2 share (%)") });
      await bad.locator(".field-error").filter({ hasText: "below 100%" }).waitFor();
      const summary = card.locator("p.status.error .summary a");
      assertEquals(await summary.allInnerTexts(), ["Lane 2 share (%)"]);
      assertEquals(await card.locator(".field.invalid").count(), 1, "only the bad field");
      assertEquals(await lanes(), [{ name: "members", share: 0.3 }], "nothing saved");
      assertEquals(await axeViolations(page), [], "the refused lanes");
      // Nothing typed is lost, also across the tab's refresh.
      await page.waitForTimeout(5_500);
      assertEquals(await card.getByLabel("Lane 2 name").inputValue(), "staff");
      assertEquals(await card.getByLabel("Lane 2 share (%)").inputValue(), "150");
      await card.getByText("Unsaved changes.").waitFor();

      // Made strict instead: saved.
      await card.getByLabel("Lane 2 goes in").selectOption("strict");
      await card.getByRole("button", { name: "Save lanes" }).click();
      await card.locator("p.status").filter({ hasText: "Saved: 2 lanes." }).waitFor();
      assertEquals(await lanes(), [{ name: "members", share: 0.3 }, {
        name: "staff",
        strict: true,
      }]);

      // Strict lanes go in the order listed: staff moved first.
      await card.getByRole("button", { name: "Move up lane 2 (staff)" }).click();
      await card.getByText("Unsaved changes.").waitFor();
      await card.getByRole("button", { name: "Save lanes" }).click();
      await card.getByText("Unsaved changes.").waitFor({ state: "detached" });
      assertEquals((await lanes()).map((l: { name: string }) => l.name), ["staff", "members"]);

      // A count out of bounds (past the browser's own check) is named beside its field.
      const issueForm = card.locator("form.codes-issue");
      await issueForm.evaluate((el) => (el as HTMLFormElement).noValidate = true);
      await card.getByLabel("How many codes").fill("1001");
      await card.getByRole("button", { name: "Issue codes" }).click();
      await issueForm.locator(".field.invalid .field-error")
        .filter({ hasText: "Enter a whole number from 1 to 1000." }).waitFor();
      assertEquals(await codes(), [], "none issued");

      // Two single-use codes for members, shown this once.
      await card.getByLabel("Lane", { exact: true }).selectOption("members");
      await card.getByLabel("How many codes").fill("2");
      await card.getByLabel("Label").fill("Newsletter");
      const answer = page.waitForResponse((r) =>
        r.url().includes("/api/admin/priority-codes") && r.request().method() === "POST"
      );
      await card.getByRole("button", { name: "Issue codes" }).click();
      const records: { id: string }[] = (await (await answer).json()).records;
      const once = card.getByRole("region", { name: /Your 2 new codes for the lane members/ });
      await once.waitFor();
      await once.getByText("cannot be shown again").waitFor();
      const issued = (await once.getByLabel("The new codes").innerText()).trim().split("\n");
      assertEquals(issued.length, 2);
      for (const c of issued) assert(CODE.test(c), `a code: ${c}`);
      await once.getByRole("button", { name: "Copy the codes" }).click();
      assertEquals(await page.evaluate(() => navigator.clipboard.readText()), issued.join("\n"));
      const csv = decodeURIComponent(
        (await once.getByRole("link", { name: "Download as CSV" }).getAttribute("href"))!
          .replace(/^data:text\/csv;charset=utf-8,/, ""),
      );
      const rows = csv.trim().split("\r\n");
      assertEquals(rows[0], "code,link,lane,uses,expires,label");
      assert(rows[1].startsWith(`"${issued[0]}","${s.base}/wait?queue=default&code=`), rows[1]);
      assert(rows[2].includes(`"members","1","","Newsletter"`), rows[2]);
      await card.locator("table").waitFor();
      assertEquals(await axeViolations(page), [], "the codes shown once, and listed");
      await page.setViewportSize({ width: 390, height: 844 });
      await page.emulateMedia({ colorScheme: "dark" });
      assertEquals(await axeViolations(page), [], "the same, dark and 390 px wide");
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      const culprits = await page.evaluate(() =>
        [...document.querySelectorAll("body *")].filter((e) =>
          e.getBoundingClientRect().right > 391
        )
          .slice(0, 8).map((e) =>
            `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`
          )
      );
      assert(wide <= 390, `no sideways scrolling at 390 px (${wide}): ${culprits.join(", ")}`);
      await page.emulateMedia({ colorScheme: "light" });
      await page.setViewportSize({ width: 1100, height: 1600 });
      await card.screenshot({ path: screenshotPath("admin-lanes-codes.png") });

      // Listed without their text.
      const table = card.locator("table");
      await table.getByRole("row").filter({ hasText: "Newsletter" }).nth(1).waitFor();
      const listed = await table.innerText();
      assert(/0 of 1/.test(listed) && /active/.test(listed), listed);
      for (const c of issued) assert(!listed.includes(c), "a code's text is never listed");
      // Still there after a visit to another tab; gone for good once hidden.
      await page.getByRole("tab", { name: "Live" }).click();
      await once.waitFor({ state: "detached" });
      await page.getByRole("tab", { name: "Admission" }).click();
      assertEquals(
        (await once.getByLabel("The new codes").innerText()).trim().split("\n"),
        issued,
      );
      await once.getByRole("button", { name: "I saved them: hide" }).click();
      await once.waitFor({ state: "detached" });
      await page.reload();
      await table.getByRole("row").filter({ hasText: "Newsletter" }).nth(1).waitFor();
      const all = await page.locator("body").innerText();
      for (const c of issued) assert(!all.includes(c), "not shown again after a reload");
      const stored = await codes();
      assertEquals(stored.length, 2);
      assert(!JSON.stringify(stored).includes(issued[0].slice(0, 5)), "the API keeps no code");

      // One revoked after a confirmation; the other redeemed by a visitor shows as used up.
      await table.getByRole("button", { name: /^Revoke the code Newsletter/ }).first().click();
      const dialog = page.locator("dialog[open]");
      await dialog.getByText(/Nobody can use it after this/).waitFor();
      await dialog.getByRole("button", { name: "Revoke code" }).click();
      await card.locator("p.status").filter({ hasText: "Revoked." }).waitFor();
      await table.getByRole("cell", { name: "revoked", exact: true }).waitFor();
      const after = await codes();
      assertEquals(after.filter((c: { revokedAt: number | null }) => c.revokedAt).length, 1);
      assertEquals(await table.getByRole("button", { name: /^Revoke/ }).count(), 1);
      // The codes and records of an issue come in the same order.
      const live = issued[
        records.findIndex((r) =>
          !after.some((c: { id: string; revokedAt: number | null }) => c.id === r.id && c.revokedAt)
        )
      ];
      const redeemed = await redeemCode(
        s.kv,
        s.services.clock,
        s.config.TOKEN_SECRET,
        "default",
        live,
      );
      assertEquals(redeemed.uses, 1);
      await table.getByRole("cell", { name: "used up", exact: true }).waitFor({ timeout: 8_000 });
      await ctx.close();
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
