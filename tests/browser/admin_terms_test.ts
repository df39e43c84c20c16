/**
 * No edit lost when the screen would go: signing out with an edit not saved asks first, and terms
 * of service that change while the admin app is open (a release with new terms rolled out
 * under a live session): the next save answers 403 for the old acceptance. The open screen stays,
 * with what was typed in it, and the new terms open over it; once accepted, the save goes through.
 * Failed before the fix: every save said "accept the current terms of service first" with nothing
 * to accept them by, and only a reload (losing the edit) got out; signing out dropped the edit
 * without a word.
 */
import { assert, assertEquals } from "../assert.ts";
import { faultTest, T } from "./admin_faults_helper.ts";

faultTest("terms that change mid-edit open over the screen and keep the edit", ["default"], async (
  s,
  ctx,
) => {
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${s.base}/admin#admission`);
  const rate = page.getByLabel("Visitors admitted per second");
  await rate.waitFor(T);
  await rate.fill("12");

  // The admin's acceptance is now of an older version (as after a release with new terms).
  for await (const e of s.kv.list<{ acceptedTosVersion: string }>({ prefix: ["admin", "user"] })) {
    await s.kv.set(e.key, { ...e.value, acceptedTosVersion: "2000-01-01" });
  }
  await page.getByRole("button", { name: "Set rate" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText("The terms of service changed while this page was open").waitFor(T);
  assertEquals(await rate.inputValue(), "12", "the edit is still there");
  assert(await page.getByRole("tablist").isVisible(), "the control room stays open");

  await dialog.getByLabel("I accept the terms of service").check();
  await dialog.getByRole("button", { name: "Continue" }).click();
  await dialog.waitFor({ state: "detached", timeout: 15_000 });
  assertEquals(await rate.inputValue(), "12", "still there after accepting");
  await page.getByRole("button", { name: "Set rate" }).click();
  await page.getByText("Rate set to 12 per second.").waitFor(T);
  assertEquals((await s.services.engine.settings("default")).admitPerSecond, 12);
  assertEquals(errors, []);
});

faultTest("signing out with an unsaved edit asks first", ["default"], async (s, ctx) => {
  const page = await ctx.newPage();
  await page.goto(`${s.base}/admin#admission`);
  const rate = page.getByLabel("Visitors admitted per second");
  await rate.waitFor(T);
  await rate.fill("13");
  await page.getByRole("button", { name: "Sign out" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText("Some changes on this tab are not saved yet").waitFor(T);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  assertEquals(await rate.inputValue(), "13", "still signed in, the edit kept");
  await page.getByRole("button", { name: "Sign out" }).click();
  await dialog.getByRole("button", { name: "Leave without saving" }).click();
  await page.getByRole("button", { name: "Sign in" }).waitFor(T);
  // The sign-in screen starts at the top of the main region (not at the page's first link).
  await page.waitForTimeout(100);
  assertEquals(await page.evaluate(() => document.activeElement?.id), "admin-main");
});
