/// <reference lib="dom" />
/**
 * The admin app's one way to call the API: JSON in, JSON out, the error envelope turned into an
 * `ApiError` whose message is the server's own. The session cookie (`tg_admin`, SameSite=Strict)
 * rides along by itself; the browser adds the Origin header that admin writes require.
 */

import { type FieldProblem, fieldProblems } from "../../lib/field_text.ts";

/** One failing field of a 400 `bad_request` (from the zod validation hook or the domain). */
export type FieldError = FieldProblem;

/** An answer outside 2xx, as the server explained it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
  /** The failing fields of a validation error (empty otherwise). */
  get fields(): FieldError[] {
    const f = this.details.fields;
    return Array.isArray(f) ? f as FieldError[] : [];
  }
  /**
   * One human message: for a validation error, each failing field once, named and worded by
   * lib/field_text.ts ("Admit per second: At least 0.1 a second."); otherwise the server's message.
   */
  get text(): string {
    const f = this.fields;
    const wait = Number(this.details.retryAfterSeconds);
    if (this.code === "rate_limited" && wait > 0) return `Too many attempts. ${waitText(wait)}`;
    if (!f.length) return this.message;
    return fieldProblems(f).map((x) => `${x.label}: ${x.text}`).join(" ");
  }
}

/** "Try again in 12 minutes." (seconds only under a minute). */
export function waitText(seconds: number): string {
  if (seconds < 60) return `Try again in ${Math.ceil(seconds)} seconds.`;
  const m = Math.ceil(seconds / 60);
  return `Try again in ${m} ${m === 1 ? "minute" : "minutes"}.`;
}

/**
 * Tollgate's path prefix as this page was reached (`BASE_PATH`, e.g. `/_tollgate`): the app is
 * served at `<prefix>/admin`, so whatever comes before `/admin` is the prefix ("" without one).
 */
export function basePath(): string {
  const m = /^(.*?)\/admin(?:\/|$)/.exec(location.pathname);
  return m ? m[1] : "";
}

/**
 * Called when any call answers 401 (the session ended) or 403 for terms accepted in an older
 * version: the app asks for a sign-in or the terms over the open screen.
 */
let onUnauthorized: (() => void) | undefined;
export function setUnauthorizedHandler(fn: () => void) {
  onUnauthorized = fn;
}

/** Calls `method path` with an optional JSON body; resolves with the parsed JSON (or text). */
// deno-lint-ignore no-explicit-any
export async function api<T = any>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(basePath() + path, {
      method,
      credentials: "same-origin",
      headers: {
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    // A write cut off mid-way (the service restarting) may have been made before the cut.
    throw new ApiError(
      0,
      "network",
      `The service could not be reached. Check your connection.${unsureOf(method)}`,
    );
  }
  const type = res.headers.get("content-type") ?? "";
  const data = type.includes("json") ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) {
    const e = data && typeof data === "object" && "error" in data ? data.error : null;
    const err = new ApiError(
      res.status,
      e?.code ?? "http_" + res.status,
      plainFailure(method, res.status, e),
      e?.details ?? {},
    );
    // The session ended, or the terms changed under it (a release while this page was open).
    if (res.status === 401 && !path.startsWith("/api/admin/login")) onUnauthorized?.();
    if (res.status === 403 && e?.details?.needsTos) onUnauthorized?.();
    // The queue was deleted (another tab, another admin): the queue picker reads its list again.
    if (err.code === "unknown_queue") dispatchEvent(new Event("tg-queue-gone"));
    throw err;
  }
  return data as T;
}

/** Said after a failed write, whose outcome is then not known; nothing after a failed read. */
const unsureOf = (method: string) =>
  method === "GET"
    ? ""
    : " If you were saving, reload to see whether it was kept before trying again.";

/**
 * The words for a failed answer: the envelope's own message, except where it would tell an
 * operator nothing ("internal error", or no envelope at all: a proxy's 502 page, a bare status),
 * and whether a save went through is then not known either.
 */
function plainFailure(
  method: string,
  status: number,
  e: { code?: string; message?: string } | null,
): string {
  const unsure = unsureOf(method);
  if (e?.message && e.code !== "internal") return e.message;
  if (e?.code === "internal") {
    return `The service failed on this request (an internal error; its log says why).${unsure}`;
  }
  if (status === 502 || status === 503 || status === 504) {
    return `The service did not answer (the proxy in front of it said ${status}): it may be ` +
      `restarting or overloaded. Try again in a moment.${unsure}`;
  }
  return `The service gave an unexpected answer (HTTP ${status}).${unsure}`;
}

/** The readable message of anything thrown by `api` (or elsewhere). */
export function messageOf(e: unknown): string {
  if (e instanceof ApiError) return e.text;
  return e instanceof Error ? e.message : String(e);
}
