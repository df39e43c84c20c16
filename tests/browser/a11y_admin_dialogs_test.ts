/**
 * The admin app's dialogs under axe-core (WCAG 2.2 A and AA, the helper the pages' checks use),
 * light and dark: the question before a destructive action, the two-tabs question (a field saved
 * elsewhere), and the terms that changed under an open screen. Each opens over the page as a
 * modal, takes focus, and gives it back to the button that opened it when cancelled.
 */
import { assertEquals } from "../assert.ts";
import { faultTest, T } from "./admin_faults_helper.ts";
import { axeViolations } from "./axe.ts";

faultTest(
  "dialogs: no axe violations, focus in and back",
  ["default"],
  async (s, ctx0, session) => {
    await ctx0.close();
    for (const colorScheme of ["light", "dark"] as const) {
      const ctx = await ctx0.browser()!.newContext({ colorScheme });
      await ctx.addCookies([{ name: "tg_admin", value: session, url: s.base, httpOnly: true }]);
      const page = await ctx.newPage();
      await page.goto(`${s.base}/admin#admission`);
      const dialog = page.getByRole("dialog");
      const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());

      // A destructive action's question, opened from the keyboard.
      const pause = page.getByRole("button", { name: "Pause admissions" });
      await pause.focus();
      await page.keyboard.press("Enter");
      await dialog.waitFor(T);
      assertEquals(await focused(), "Cancel", `${colorScheme}: the safe choice has focus`);
      assertEquals(await axeViolations(page), [], `${colorScheme}: the pause question`);
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden", ...T });
      assertEquals(await focused(), "Pause admissions", `${colorScheme}: focus is given back`);

      // The two-tabs question: the rate saved elsewhere after this page loaded.
      await page.getByLabel("Visitors admitted per second").fill("9");
      const other = colorScheme === "light" ? 7 : 8;
      await s.call("PUT", "/api/admin/rate", { admitPerSecond: other }, session);
      await page.getByRole("button", { name: "Set rate" }).click();
      await dialog.getByText(`Admission rate (now \u201c${other}\u201d): saved by someone else`)
        .waitFor(T);
      assertEquals(await axeViolations(page), [], `${colorScheme}: the two-tabs question`);
      await dialog.getByRole("button", { name: "Cancel" }).click();

      // The terms that changed under the open screen.
      for await (
        const e of s.kv.list<{ acceptedTosVersion: string }>({ prefix: ["admin", "user"] })
      ) {
        await s.kv.set(e.key, { ...e.value, acceptedTosVersion: "2000-01-01" });
      }
      await page.getByRole("button", { name: "Set rate" }).click();
      await dialog.getByText("The terms of service changed").waitFor(T);
      assertEquals(await axeViolations(page), [], `${colorScheme}: the terms over the screen`);
      await dialog.getByLabel("I accept the terms of service").check();
      await dialog.getByRole("button", { name: "Continue" }).click();
      await dialog.waitFor({ state: "detached", ...T });
      await ctx.close();
    }
  },
);
