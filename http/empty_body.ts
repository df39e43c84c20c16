/**
 * An empty request body sent as JSON reads as `{}`. Many HTTP clients set
 * `Content-Type: application/json` on every call, also on one with no body; the JSON parser then
 * failed on the empty text ("Malformed JSON in request body"), so a call whose body is documented
 * as optional (`POST /api/admin/webhooks/test`, `POST /api/admin/pass`) refused the documented
 * way to call it, and a call that needs a body was told its JSON was malformed instead of which
 * fields it needs. Only bodies known to be empty (none at all, or `Content-Length: 0`) are
 * touched: nothing is read ahead of the route.
 */
import type { Context, Next } from "hono";

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** True when the request declares a JSON body that is known to be empty. */
export function isEmptyJsonBody(req: Request): boolean {
  if (req.method === "GET" || req.method === "HEAD") return false;
  if (!JSON_TYPE.test(req.headers.get("content-type") ?? "")) return false;
  return req.body === null || req.headers.get("content-length")?.trim() === "0";
}

/**
 * Hono middleware: an empty JSON body is parsed as `{}` by every validator after it. Hono's
 * `c.req.json()` parses its cached body text, a promise at run time (typed as the text); the
 * request itself is left alone, so its request id and headers stay as they were.
 */
export function emptyJsonBody(c: Context, next: Next): Promise<void> {
  if (isEmptyJsonBody(c.req.raw)) {
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve("{}");
  }
  return next();
}
