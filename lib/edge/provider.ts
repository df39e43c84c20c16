/**
 * The one way Tollgate talks to Cloudflare's API v4 (zones, DNS, settings, Turnstile widgets):
 * bearer token, JSON, the `{success, errors, messages, result}` envelope, a timeout, and every
 * failure mapped to a `ProviderError` that says what to fix in words and carries the provider's
 * own errors. Tokens are never logged or put into messages.
 */

import type { AppDeps } from "../services.ts";

/** What the steps that call a provider need from the service (edge, challenge, the gate). */
export type ProviderDeps = Pick<AppDeps, "kv" | "clock" | "config" | "fetch">;

/** What went wrong with a provider call, in terms an operator can act on. */
export type ProviderErrorKind =
  | "bad_token" // the token is invalid, expired or revoked
  | "forbidden" // the token lacks a permission
  | "not_found" // zone, record, widget… does not exist (or the token cannot see it)
  | "rate_limited"
  | "timeout"
  | "unavailable" // network error, 5xx, or an answer that is not the envelope
  | "rejected"; // any other 4xx: the provider refused the request

/** One error entry of the provider's envelope. */
export interface ProviderMessage {
  code: number;
  message: string;
}

/** A failed provider call. `message` is safe to show; it never contains a token or secret. */
export class ProviderError extends Error {
  constructor(
    readonly provider: "cloudflare" | "turnstile",
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status: number,
    readonly providerErrors: ProviderMessage[] = [],
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** How to reach the provider (tests pass a loopback base URL and their fetch). */
export interface ProviderOptions {
  baseUrl: string;
  fetch: typeof fetch;
  timeoutMs: number;
}

/** Calls `fetch` with the timeout; network failures and timeouts become `ProviderError`s. */
export async function providerFetch(
  provider: ProviderError["provider"],
  opts: ProviderOptions,
  url: string,
  init: RequestInit,
): Promise<Response> {
  try {
    return await opts.fetch(url, { ...init, signal: AbortSignal.timeout(opts.timeoutMs) });
  } catch (e) {
    const name = (e as Error)?.name;
    if (name === "TimeoutError" || name === "AbortError") {
      return Promise.reject(
        new ProviderError(
          provider,
          "timeout",
          `${provider} did not answer within ${opts.timeoutMs} ms; try again`,
          504,
        ),
      );
    }
    throw new ProviderError(provider, "unavailable", `${provider} could not be reached`, 502);
  }
}

interface Envelope<T> {
  success: boolean;
  errors?: ProviderMessage[];
  messages?: ProviderMessage[];
  result: T;
  result_info?: { page?: number; total_pages?: number };
}

const HINTS: Record<ProviderErrorKind, string> = {
  bad_token: "the API token is invalid, expired or revoked; create a new token and paste it again",
  forbidden: "the API token lacks a permission this step needs; edit the token's permissions",
  not_found: "not found, or the API token cannot see it; check the name and the token's resources",
  rate_limited: "Cloudflare is rate limiting these calls; wait a minute and try again",
  timeout: "Cloudflare did not answer in time; try again",
  unavailable: "Cloudflare could not be reached or answered with an error; try again later",
  rejected: "Cloudflare refused the request",
};

function kindOf(status: number): ProviderErrorKind {
  if (status === 401) return "bad_token";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "unavailable";
  return "rejected";
}

/**
 * Cloudflare's own error codes say more than its HTTP status, which is not always the one the
 * kind suggests (a revoked token on a zone call is a 403, an unknown object id a 400). Sources:
 * developers.cloudflare.com/api (token verify answers 1000 "Invalid API Token"), reports of
 * 6003/6111 "Invalid format for Authorization header" (400), 9109 "Invalid access token" /
 * "Unauthorized to access requested resource", 10000 "Authentication error" (403, missing
 * permission), 7003 "Could not route to …, perhaps your object identifier is invalid?" with 7000
 * "No route for that URI" (400), 1003 "Invalid or missing zone id.", 81044 "Record does not exist.", and
 * 971 "Please wait and consider throttling your request speed" (429).
 */
function kindOfCodes(errors: ProviderMessage[]): ProviderErrorKind | null {
  for (const e of errors) {
    if ([1000, 6003, 6100, 6101, 6102, 6103, 6111, 9103, 10001].includes(e.code)) {
      return "bad_token";
    }
    if (e.code === 9109) return /invalid access token/i.test(e.message) ? "bad_token" : "forbidden";
    if (e.code === 10000) return "forbidden";
    if ([7003, 7000, 1003, 81044].includes(e.code)) return "not_found";
    if (e.code === 971 || e.code === 10429) return "rate_limited";
  }
  return null;
}

/** Seconds from `Retry-After`, which Cloudflare sends as whole seconds (its rate-limit docs). */
export function retryAfterOf(h: string | null): number | undefined {
  const n = Number(h);
  return h && Number.isFinite(n) && n > 0 ? Math.ceil(n) : undefined;
}

/** One call, the whole envelope back on success (lists need `result_info`). */
async function cfCall<T>(
  opts: ProviderOptions,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Envelope<T>> {
  const res = await providerFetch("cloudflare", opts, opts.baseUrl.replace(/\/$/, "") + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let env: Envelope<T> | null = null;
  try {
    env = await res.json();
  } catch {
    env = null;
  }
  if (res.ok && env?.success) return env;
  // A provider echoing the token (say, in "Invalid format for Authorization header") must not
  // carry it into our messages, responses or logs; every Cloudflare call passes here.
  const scrub = (text: string) => token.length < 4 ? text : text.split(token).join("[token]");
  const errors = Array.isArray(env?.errors)
    ? env.errors.map((e) => ({
      code: Number(e.code),
      message: scrub(String(e.message)).slice(0, 300),
    }))
    : [];
  let kind: ProviderErrorKind = kindOfCodes(errors) ??
    (res.ok ? (env === null ? "unavailable" : "rejected") : kindOf(res.status));
  // A 429 is rate limiting whatever the body says; a 5xx is Cloudflare's trouble.
  if (res.status === 429) kind = "rate_limited";
  else if (res.status >= 500) kind = "unavailable";
  const own = errors.map((e) => `${e.message} (${e.code})`).join("; ");
  const retry = retryAfterOf(res.headers.get("retry-after"));
  throw new ProviderError(
    "cloudflare",
    kind,
    own ? `${HINTS[kind]}: ${own}` : `${HINTS[kind]} (HTTP ${res.status})`,
    res.status,
    errors,
    kind === "rate_limited" ? retry ?? 60 : retry,
  );
}

/**
 * One Cloudflare API v4 call: `result` on success, else a `ProviderError` whose message is the
 * hint for its kind followed by Cloudflare's own error text (the token scrubbed from it).
 *
 * @example
 * const zone = await cfRequest<{ id: string }>(opts, token, "GET", "/zones/abc");
 */
export async function cfRequest<T>(
  opts: ProviderOptions,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  return (await cfCall<T>(opts, token, method, path, body)).result;
}

/**
 * A paginated GET (`page`/`per_page`, `result_info.total_pages`): every page's results, up to
 * `maxPages` pages (a guard against an endless listing, not a limit anyone should reach).
 * `perPage` must respect the endpoint's maximum (zones: 50; DNS records: far more).
 *
 * @example
 * const records = await cfRequestAll<Rec>(opts, token, "/zones/abc/dns_records?name=a.example.com");
 */
export async function cfRequestAll<T>(
  opts: ProviderOptions,
  token: string,
  path: string,
  perPage = 50,
  maxPages = 20,
): Promise<T[]> {
  const out: T[] = [];
  const sep = path.includes("?") ? "&" : "?";
  for (let page = 1; page <= maxPages; page++) {
    const env = await cfCall<T[]>(
      opts,
      token,
      "GET",
      `${path}${sep}page=${page}&per_page=${perPage}`,
    );
    out.push(...(Array.isArray(env.result) ? env.result : []));
    if (page >= Number(env.result_info?.total_pages ?? 1)) break;
  }
  return out;
}
