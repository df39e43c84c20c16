/** Turns a failed zod validation into the 400 envelope with the failing fields (every route). */
import type { Context } from "hono";
import { errorBody } from "../lib/errors.ts";
import type { FieldProblem, FieldRule } from "../lib/field_text.ts";

/** Where the failing input was, in words ("json" was said of well-formed JSON too). */
const WHERE: Record<string, string> = {
  json: "request body",
  query: "query",
  param: "path",
  header: "header",
  cookie: "cookie",
  form: "form",
};

const num = (v: unknown) => typeof v === "number" || typeof v === "bigint" ? Number(v) : undefined;

/**
 * The rule a zod issue broke, as plain data (`details.fields[].rule`): the admin app and `/cost`
 * word each field and rule for people from it (lib/field_text.ts), never from zod's own text.
 */
// deno-lint-ignore no-explicit-any
export function issueRule(i: any): FieldRule {
  const rule: FieldRule = { code: String(i.code ?? "custom") };
  if (typeof i.origin === "string") rule.origin = i.origin;
  if (num(i.minimum) !== undefined) rule.minimum = num(i.minimum);
  if (num(i.maximum) !== undefined) rule.maximum = num(i.maximum);
  if (typeof i.inclusive === "boolean") rule.inclusive = i.inclusive;
  if (typeof i.format === "string") rule.format = i.format;
  if (typeof i.expected === "string") rule.expected = i.expected;
  if (i.code === "invalid_type" && /received undefined$/.test(String(i.message))) {
    rule.missing = true;
  }
  if (Array.isArray(i.values)) rule.values = i.values.map(String);
  if (i.params && typeof i.params === "object") rule.params = i.params;
  return rule;
}

/**
 * True for zod's own bound of an integer (the safe-integer range) when the field's real bound of
 * the same kind failed too: `opensAt: 1e20` was told "<=9007199254740991" first, not its maximum.
 */
// deno-lint-ignore no-explicit-any
function safeIntNoise(i: any, all: any[]): boolean {
  if ((i.code !== "too_big" && i.code !== "too_small") || i.origin !== "int") return false;
  if (Math.abs(num(i.maximum ?? i.minimum) ?? 0) !== Number.MAX_SAFE_INTEGER) return false;
  const path = (i.path ?? []).join(".");
  return all.some((o) => o !== i && o.code === i.code && (o.path ?? []).join(".") === path);
}

/** zod's words, where they leave a reader guessing ("expected int, received number" of 2.5). */
// deno-lint-ignore no-explicit-any
function messageOf(i: any): string {
  if (i.code === "invalid_type" && i.expected === "int") {
    return "Invalid input: expected a whole number, received a fraction";
  }
  // A query value that is no number at all (`?limit=abc`) was said as "received NaN".
  if (i.code === "invalid_type" && i.expected === "number" && /received NaN$/.test(i.message)) {
    return "Invalid input: expected a number";
  }
  return String(i.message);
}

/**
 * A union of fixed values (`200 | 429 | 503`, `{mode: "strict"} | {skip: true}`) fails with zod's
 * bare "Invalid input", which names none of the values a client may send: it is said as the
 * options instead, like an enum's ("expected one of 200|429|503"). Other unions stay as zod said.
 */
// deno-lint-ignore no-explicit-any
function unionOfValues(i: any): any {
  if (i.code !== "invalid_union" || !Array.isArray(i.errors) || i.errors.length === 0) return i;
  // deno-lint-ignore no-explicit-any
  const alts: any[][] = i.errors;
  const fixed = (e: { code?: string; values?: unknown[] }) =>
    e.code === "invalid_value" && Array.isArray(e.values) && e.values.length === 1;
  if (!alts.every((a) => a.length > 0 && a.every(fixed))) return i;
  const flat = alts.every((a) => a.length === 1 && (a[0].path ?? []).length === 0);
  const options = alts.map((a) =>
    flat ? JSON.stringify(a[0].values[0]) : JSON.stringify(
      Object.fromEntries(a.map((e) => [(e.path ?? []).join("."), e.values[0]])),
    )
  );
  return {
    ...i,
    code: "invalid_value",
    values: flat ? alts.map((a) => a[0].values[0]) : undefined,
    message: `Invalid option: expected one of ${options.join(flat ? "|" : " or ")}`,
  };
}

/** The fields of a failed zod parse, each with its path, zod's message and the rule it broke. */
// deno-lint-ignore no-explicit-any
export function issueFields(issues: any[]): FieldProblem[] {
  return issues.filter((i) => !safeIntNoise(i, issues)).map(unionOfValues).map((i) => ({
    path: (i.path ?? []).join("."),
    message: messageOf(i),
    rule: issueRule(i),
  }));
}

/** The `defaultHook` of every OpenAPIHono app, and the status route's hand-run check. */
// deno-lint-ignore no-explicit-any
export function validationHook(result: any, c: Context): Response | void {
  if (result.success) return;
  const fields = issueFields(result.error?.issues ?? []);
  const first = fields[0] ? `${fields[0].path || "body"}: ${fields[0].message}` : "invalid input";
  return c.json(
    errorBody("bad_request", `invalid ${WHERE[result.target] ?? "input"}: ${first}`, { fields }),
    400,
  );
}
