/** Turns a failed zod validation into the 400 envelope with the failing fields (every route). */
import type { Context } from "hono";
import { errorBody } from "../lib/errors.ts";

/** Where the failing input was, in words ("json" was said of well-formed JSON too). */
const WHERE: Record<string, string> = {
  json: "request body",
  query: "query",
  param: "path",
  header: "header",
  cookie: "cookie",
  form: "form",
};

/** The `defaultHook` of every OpenAPIHono app, and the status route's hand-run check. */
// deno-lint-ignore no-explicit-any
export function validationHook(result: any, c: Context): Response | void {
  if (result.success) return;
  const fields = (result.error?.issues ?? []).map((i: { path: unknown[]; message: string }) => ({
    path: i.path.join("."),
    message: i.message,
  }));
  const first = fields[0] ? `${fields[0].path || "body"}: ${fields[0].message}` : "invalid input";
  return c.json(
    errorBody("bad_request", `invalid ${WHERE[result.target] ?? "input"}: ${first}`, { fields }),
    400,
  );
}
