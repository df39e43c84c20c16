/**
 * The one way Tollgate talks to Cloudflare's API v4 (zones, DNS, settings, Turnstile widgets):
 * bearer token, JSON, the `{success, errors, messages, result}` envelope, a timeout, and every
 * failure mapped to a `ProviderError` that says what to fix in words and carries the provider's
 * own errors. Tokens are never logged or put into messages.
 */

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
  result_info?: Record<string, unknown>;
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
 * One Cloudflare API v4 call: `result` on success, else a `ProviderError` whose message is the
 * hint for its kind followed by Cloudflare's own error text.
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
  if (res.ok && env?.success) return env.result;
  const kind = res.ok ? "rejected" : kindOf(res.status);
  const errors = Array.isArray(env?.errors)
    ? env.errors.map((e) => ({ code: Number(e.code), message: String(e.message).slice(0, 300) }))
    : [];
  const own = errors.map((e) => `${e.message} (${e.code})`).join("; ");
  const retry = Number(res.headers.get("retry-after"));
  throw new ProviderError(
    "cloudflare",
    env === null && res.ok ? "unavailable" : kind,
    own ? `${HINTS[kind]}: ${own}` : `${HINTS[kind]} (HTTP ${res.status})`,
    res.status,
    errors,
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
  );
}
