/**
 * Every admin form, walked with every kind of bad value (empty, negative, too big, wrong format,
 * unicode, HTML) in real Chromium: whatever the form then says must be the operator's words.
 * It fails on a message that holds a pattern, an API field key or "expected", or that is said
 * twice (once by its field, once more in the summary). The browser's own checks are switched off
 * (`noValidate`), so each value reaches the server and its answer is what is shown.
 */
import type { Page } from "playwright-core";
import { parse } from "yaml";
import { assert } from "../assert.ts";
import { startAdminServer } from "./admin_helper.ts";
import { launchBrowser, screenshotPath } from "./helper.ts";
import { plainEnough } from "../../lib/field_text.ts";

/** The bad values each field is tried with. */
const BAD = ["", "-5", "99999999999999", "not valid!", "ünï©ødé 😀", "<b>x</b>", "0.5"];

/** Every request field key the API names (from openapi.yaml): none may show in a message. */
async function apiKeys(): Promise<string[]> {
  // deno-lint-ignore no-explicit-any
  const doc: any = parse(await Deno.readTextFile(new URL("../../openapi.yaml", import.meta.url)));
  const keys = new Set<string>();
  // deno-lint-ignore no-explicit-any
  const walk = (s: any) => {
    if (!s || typeof s !== "object") return;
    for (const k of Object.keys(s.properties ?? {})) keys.add(k);
    for (const v of Object.values(s)) walk(v);
  };
  walk(doc.paths);
  walk(doc.components);
  // Keys that are also plain words ("name", "queue") are fine in a sentence: only camelCase ones.
  return [...keys].filter((k) => /[a-z][A-Z]/.test(k));
}

/** What went wrong in one message, or null when it is fit for a person. */
function fault(text: string, keys: string[]): string | null {
  if (!plainEnough(text)) return "validator wording or a pattern";
  const key = keys.find((k) => text.includes(k));
  if (key) return `the field key ${key}`;
  return null;
}

/** The messages a form shows now: each field error and the summary's own words. */
function shown(page: Page, form: number): Promise<string[]> {
  return page.evaluate((i) => {
    const f = document.querySelectorAll("form")[i];
    if (!f) return [];
    const out: string[] = [];
    f.querySelectorAll(".field-error").forEach((e) => out.push((e as HTMLElement).innerText));
    const st = f.querySelector("p.status.error") as HTMLElement | null;
    if (st) {
      // The summary's links name fields; its other words are messages of their own.
      const words = [...st.childNodes].map((n) =>
        (n as HTMLElement).classList?.contains("summary") ? "" : n.textContent ?? ""
      ).join("").trim();
      if (words) out.push(words);
    }
    return out.filter((x) => x.trim() !== "");
  }, form);
}

/**
 * Waits until form `f` is no longer busy, declining any confirmation on the way (a card may ask
 * after reading the current state: nothing is changed by this walk).
 */
async function settle(page: Page, f: number) {
  const end = Date.now() + 10_000;
  let quiet = 0;
  while (Date.now() < end && quiet < 3) {
    const dialog = page.locator("dialog[open]");
    if (await dialog.count()) {
      await dialog.getByRole("button", { name: "Cancel" }).click();
      quiet = 0;
    } else {
      const busy = await page.evaluate(
        (k) => !!document.querySelectorAll("form")[k]?.querySelector("p.status.busy"),
        f,
      );
      quiet = busy ? 0 : quiet + 1;
    }
    await new Promise((r) => setTimeout(r, 60));
  }
}

/** Waits until the page's cards have all loaded: the number of forms the same for a second. */
async function formsSettled(page: Page): Promise<void> {
  let last = -1;
  for (let i = 0; i < 20; i++) {
    const now = await page.locator("form").count();
    if (now === last) return;
    last = now;
    await page.waitForTimeout(1000);
  }
}

/**
 * Tries every bad value in every text, number and list field of every form on the page; returns
 * the problems found, each as "where: what".
 */
async function walk(
  page: Page,
  where: string,
  keys: string[],
  said: { count: number },
): Promise<string[]> {
  const problems: string[] = [];
  const forms = await page.locator("form").count();
  for (let f = 0; f < forms; f++) {
    const form = page.locator("form").nth(f);
    const inputs = form.locator(
      "input[type=text], input[type=number], input[type=url], input:not([type]), textarea",
    );
    const n = await inputs.count();
    for (let i = 0; i < n; i++) {
      const input = inputs.nth(i);
      if (!await input.isVisible() || !await input.isEnabled()) continue;
      // A card that polls may have re-rendered since the count: a field gone meanwhile is skipped.
      const quick = { timeout: 3000 };
      const label = await input.getAttribute("id", quick).catch(() => undefined);
      if (label === undefined) continue;
      const before = await input.inputValue(quick).catch(() => null);
      if (before === null) continue;
      for (const bad of BAD) {
        // A number field takes no text (the browser keeps such a value out): tried with the rest.
        if (!await input.fill(bad).then(() => true, () => false)) continue;
        await form.evaluate((el) => (el as HTMLFormElement).noValidate = true);
        const submit = form.locator("button[type=submit]");
        if (!await submit.isEnabled()) continue;
        await submit.click();
        await settle(page, f);
        const texts = await shown(page, f);
        if (Deno.env.get("WALK_DEBUG")) console.log(where, label, JSON.stringify(bad), texts);
        said.count += texts.length;
        const seen = new Set<string>();
        for (const t of texts) {
          for (const part of t.split(/(?<=\.)\s+/)) {
            const why = fault(part, keys);
            if (why) problems.push(`${where} ${label} = ${JSON.stringify(bad)}: ${why}: ${part}`);
            if (seen.has(part)) {
              problems.push(`${where} ${label} = ${JSON.stringify(bad)}: said twice: ${part}`);
            }
            seen.add(part);
          }
        }
      }
      if (await input.isEnabled()) await input.fill(before);
    }
  }
  return problems;
}

const TABS = ["live", "admission", "branding", "access", "edge", "team", "system"];

Deno.test({
  name: "admin forms: every bad value is answered in the operator's words, once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s = await startAdminServer(["default"]);
    const browser = await launchBrowser();
    const keys = await apiKeys();
    const problems: string[] = [];
    const said = { count: 0 };
    try {
      const { session } = await s.claim();
      await s.completeSetup(session);
      // A priority lane, so its row and the codes' form are walked too.
      const lane = await s.call("PUT", "/api/admin/lanes", {
        queue: "default",
        lanes: [{ name: "members", share: 0.3 }],
      }, session);
      assert(lane.status === 200, `lanes: ${lane.status}`);
      const ctx = await s.signedIn(browser, session);
      const page = await ctx.newPage();
      for (const tab of TABS) {
        await t.step(`the ${tab} tab`, async () => {
          await page.goto(`${s.base}/admin#${tab}`);
          await page.locator(`#panel-${tab} section.card`).first().waitFor({ timeout: 10_000 });
          // Forms whose values load first are disabled till then.
          await page.waitForFunction(() => !document.querySelector("fieldset[aria-busy=true]"));
          await formsSettled(page);
          problems.push(...await walk(page, tab, keys, said));
          if (tab === "admission") {
            await page.screenshot({ path: screenshotPath("admin-forms-walk.png"), fullPage: true });
          }
        });
      }
      await t.step("the cost calculator", async () => {
        for (const bad of BAD.slice(1)) {
          const q = encodeURIComponent(bad);
          await page.goto(`${s.base}/cost?visitors=${q}&pollIntervalSeconds=${q}`);
          const texts = await page.locator(".field-error").allInnerTexts();
          for (const text of texts) {
            const why = fault(text, keys);
            if (why) problems.push(`/cost ${bad}: ${why}: ${text}`);
          }
        }
      });
      await ctx.close();
      // The walk saw the forms refuse (a walk that met no error would prove nothing).
      assert(said.count > 60, `only ${said.count} messages seen`);
      assert(problems.length === 0, `messages not fit for people:\n${problems.join("\n")}`);
    } finally {
      await browser.close();
      await s.close();
    }
  },
});

Deno.test({
  name: "admin forms before sign-in: the wizard's account step and recovery, in people's words",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const s = await startAdminServer(["default"]);
    const browser = await launchBrowser();
    const keys = await apiKeys();
    const problems: string[] = [];
    const said = { count: 0 };
    try {
      const page = await (await browser.newContext()).newPage();
      await t.step("the wizard's account step", async () => {
        await page.goto(`${s.base}/admin`);
        await page.getByRole("button", { name: "Create account" }).waitFor({ timeout: 10_000 });
        problems.push(...await walk(page, "wizard", keys, said));
      });
      await t.step("password recovery", async () => {
        await s.claim();
        await page.goto(`${s.base}/admin?recover`);
        await page.getByRole("button", { name: "Reset password" }).waitFor({ timeout: 10_000 });
        problems.push(...await walk(page, "recover", keys, said));
      });
      assert(said.count > 20, `only ${said.count} messages seen`);
      assert(problems.length === 0, `messages not fit for people:\n${problems.join("\n")}`);
    } finally {
      await browser.close();
      await s.close();
    }
  },
});
