/**
 * The one place responses of every request path are shaped: the security headers, JSON answers
 * and the error envelope (with `Retry-After` whenever an error says when to come back).
 */
import { HTTPException } from "hono/http-exception";
import { AppError, errorBody, JoinUnconfirmedError } from "../lib/errors.ts";
import { visitorCookies } from "./cookies.ts";
import { log, requestIdOf } from "../lib/log.ts";
import { MAX_BODY_BYTES } from "../lib/names.ts";

/** The security headers every response of ours carries. */
export const SECURITY_HEADERS: [string, string][] = [
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "strict-origin-when-cross-origin"],
  ["X-Frame-Options", "SAMEORIGIN"],
];

/** A JSON response with the security headers and `Cache-Control: no-store`. */
export function jsonResponse(body: unknown, status: number): Response {
  // Headers set on the made Response cost several times less in Deno than a headers init.
  const res = new Response(JSON.stringify(body), { status });
  const headers = res.headers;
  headers.set("Content-Type", "application/json");
  for (const [k, v] of SECURITY_HEADERS) headers.set(k, v);
  headers.set("Cache-Control", "no-store");
  return res;
}

/** Status and envelope of an `HTTPException` Hono's middleware threw (body limit, bad JSON). */
function httpExceptionBody(err: HTTPException, req: Request) {
  const status = err.status === 413 || err.status === 401 ? err.status : 400;
  if (status === 413) {
    return {
      status,
      body: errorBody("payload_too_large", `request body larger than ${MAX_BODY_BYTES} bytes`),
    };
  }
  if (status === 401) {
    return { status, body: errorBody("unauthorized", err.message || "unauthorized") };
  }
  // A body without a JSON content type (curl -d sends a form type) is the validator's 415, whose
  // own words ("Unsupported Media Type") do not say what to send instead.
  const msg = err.status === 415
    ? `send the body as JSON with Content-Type: application/json (got ${
      JSON.stringify(req.headers.get("content-type") ?? "none")
    })`
    : err.message || "bad request";
  return {
    status,
    body: errorBody("bad_request", msg, { fields: [{ path: "body", message: msg }] }),
  };
}

/**
 * Sets the ticket of a join that may have been placed after all (`JoinUnconfirmedError`) on its
 * error answer, JSON or page, so the visitor's retry resumes that place instead of taking another.
 */
export function withUnconfirmedTicket(res: Response, err: unknown, req: Request): Response {
  if (err instanceof JoinUnconfirmedError) {
    const [cookie] = visitorCookies(req, 0, {}, err.ticket);
    res.headers.append("set-cookie", cookie);
  }
  return res;
}

/**
 * Maps anything a handler threw to the error envelope: a domain error to its status and code
 * (with `Retry-After` when it carries `retryAfterSeconds`), a Hono `HTTPException` to 400, 401 or
 * 413, anything else to 500 `internal`, logged with the request id, never a stack on the wire.
 */
export function errorResponse(err: unknown, req: Request): Response {
  if (err instanceof AppError) {
    const res = jsonResponse(errorBody(err.code, err.message, err.details), err.status);
    const retry = (err as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    if (typeof retry === "number" && retry > 0) {
      res.headers.set("Retry-After", String(Math.ceil(retry)));
    }
    // A 401 of a bearer-credential call says which scheme it takes (routes/bearer.ts).
    const challenge = (err as { wwwAuthenticate?: unknown }).wwwAuthenticate;
    if (typeof challenge === "string") res.headers.set("WWW-Authenticate", challenge);
    return withUnconfirmedTicket(res, err, req);
  }
  if (err instanceof HTTPException) {
    const { status, body } = httpExceptionBody(err, req);
    return jsonResponse(body, status);
  }
  const url = req.url;
  // A `Host` that is no host leaves a URL nothing can parse (Deno.serve takes it as sent): the
  // client's fault, answered 400 and not logged, where a route that parses its URL threw.
  if (!URL.canParse(url)) {
    return jsonResponse(errorBody("bad_request", "the Host header is not a valid host"), 400);
  }
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2)).split("?")[0];
  log("error", "unhandled", { requestId: requestIdOf(req), path, error: String(err) });
  return jsonResponse(errorBody("internal", "internal error"), 500);
}
