/**
 * The one Turnstile client: widget management through Cloudflare's API v4 (via
 * `cfRequest`, so bearer, envelope, timeout and error kinds are shared with the edge client) and
 * server-side validation through siteverify. Secrets are never logged or put into messages.
 *
 * References (checked against Cloudflare's docs):
 * - Widget API: developers.cloudflare.com/turnstile/get-started/widget-management/api/ —
 *   `POST /accounts/{account_id}/challenges/widgets` `{domains, mode, name}` answers the widget
 *   with `sitekey` and `secret`; `DELETE /accounts/{account_id}/challenges/widgets/{sitekey}`;
 *   the token needs `Account:Turnstile:Edit`.
 * - Siteverify: developers.cloudflare.com/turnstile/get-started/server-side-validation/ —
 *   `POST https://challenges.cloudflare.com/turnstile/v0/siteverify`, form-urlencoded or JSON,
 *   parameters `secret`, `response`, `remoteip` (optional), `idempotency_key` (optional UUID that
 *   makes a retry of the same response safe); always answers JSON `{success, "error-codes",
 *   challenge_ts, hostname, action, cdata}`. A token is at most 2048 characters, valid 300 s and
 *   single-use (a replay gets `timeout-or-duplicate`).
 */
import type { Config } from "../config.ts";
import {
  cfRequest,
  ProviderError,
  providerFetch,
  type ProviderOptions,
  retryAfterOf,
} from "../edge/provider.ts";

/** Widget modes of the widget API; Tollgate always creates `managed` ones. */
export type WidgetMode = "managed" | "non-interactive" | "invisible";

/** What a new widget is created with. */
export interface WidgetSpec {
  /** Shown in the Cloudflare dashboard (1 to 254 characters). */
  name: string;
  /** Hostnames the widget may be rendered on (Turnstile also accepts their subdomains). */
  domains: string[];
  mode: WidgetMode;
}

/** A created widget: the public site key and its secret (seal it at once). */
export interface CreatedWidget {
  sitekey: string;
  secret: string;
}

/** Longest response token Turnstile issues (docs: "up to 2048 characters"). */
export const MAX_RESPONSE_LENGTH = 2048;

/** Siteverify error codes, from the docs' table. */
export const SITEVERIFY_ERRORS = {
  "missing-input-secret": "the secret parameter was not passed",
  "invalid-input-secret": "the secret is invalid or its widget no longer exists",
  "missing-input-response": "no challenge response was sent",
  "invalid-input-response": "the challenge response is invalid or has expired",
  "bad-request": "Turnstile rejected the request as malformed",
  "timeout-or-duplicate": "the challenge response was already used or is older than 5 minutes",
  "internal-error": "Turnstile had an internal error; the request can be retried",
} as const;

/** Siteverify's answer, as documented (`error-codes` is always an array here). */
export interface SiteverifyAnswer {
  success: boolean;
  "error-codes": string[];
  hostname?: string;
  challenge_ts?: string;
  action?: string;
}

const accountPath = (accountId: string) =>
  `/accounts/${encodeURIComponent(accountId)}/challenges/widgets`;

/** Creates a Turnstile widget in `accountId`; answers its site key and secret. */
export async function createWidget(
  opts: ProviderOptions,
  token: string,
  accountId: string,
  spec: WidgetSpec,
): Promise<CreatedWidget> {
  const w = await cfRequest<Partial<CreatedWidget> | null>(
    opts,
    token,
    "POST",
    accountPath(accountId),
    { name: spec.name, domains: spec.domains, mode: spec.mode },
  );
  if (typeof w?.sitekey !== "string" || !w.sitekey || typeof w.secret !== "string" || !w.secret) {
    throw new ProviderError(
      "cloudflare",
      "unavailable",
      "Cloudflare created the widget but its answer had no site key or secret; try again",
      502,
    );
  }
  return { sitekey: w.sitekey, secret: w.secret };
}

/** Deletes a widget (cleanup after a failed step, and when a pending widget is replaced). */
export async function deleteWidget(
  opts: ProviderOptions,
  token: string,
  accountId: string,
  sitekey: string,
): Promise<void> {
  await cfRequest(
    opts,
    token,
    "DELETE",
    `${accountPath(accountId)}/${encodeURIComponent(sitekey)}`,
  );
}

/**
 * Validates a challenge response with siteverify. Answers what Turnstile said (a `success:
 * false` answer is a normal outcome, not an error); a network failure, timeout, 5xx, 429 or an
 * answer that is not siteverify's JSON is a `ProviderError("turnstile", …)`.
 *
 * @example
 * const a = await siteverify({ baseUrl: url, fetch, timeoutMs: 5000 }, secret, token, "1.2.3.4");
 * if (a.success && a.hostname === "queue.example.com") { ... }
 */
export async function siteverify(
  opts: ProviderOptions,
  secret: string,
  response: string,
  remoteip?: string,
  idempotencyKey?: string,
): Promise<SiteverifyAnswer> {
  // Form encoding, as in the docs' curl example; the endpoint takes JSON just as well.
  const form = new URLSearchParams({ secret, response });
  if (remoteip) form.set("remoteip", remoteip);
  if (idempotencyKey) form.set("idempotency_key", idempotencyKey);
  const res = await providerFetch("turnstile", opts, opts.baseUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
  });
  if (res.status === 429) {
    await res.body?.cancel();
    throw new ProviderError(
      "turnstile",
      "rate_limited",
      "Turnstile is rate limiting challenge checks; wait a minute and try again",
      429,
      [],
      retryAfterOf(res.headers.get("retry-after")),
    );
  }
  let body: unknown = null;
  if (res.status < 500) {
    try {
      body = await res.json();
    } catch {
      body = null;
    }
  } else await res.body?.cancel();
  const b = body as Partial<SiteverifyAnswer> | null;
  if (!b || typeof b !== "object" || typeof b.success !== "boolean") {
    throw new ProviderError(
      "turnstile",
      "unavailable",
      `Turnstile siteverify answered HTTP ${res.status} without its JSON answer; try again later`,
      502,
    );
  }
  const codes = Array.isArray(b["error-codes"]) ? b["error-codes"].map(String) : [];
  return {
    success: b.success,
    "error-codes": codes,
    ...(typeof b.hostname === "string" ? { hostname: b.hostname } : {}),
    ...(typeof b.challenge_ts === "string" ? { challenge_ts: b.challenge_ts } : {}),
    ...(typeof b.action === "string" ? { action: b.action } : {}),
  };
}

/** The provider options of the widget API and of siteverify, from the service's config. */
export function turnstileOptions(s: {
  config: Pick<Config, "CLOUDFLARE_API_BASE" | "TURNSTILE_SITEVERIFY_URL" | "PROVIDER_TIMEOUT_MS">;
  fetch: typeof fetch;
}): { api: ProviderOptions; siteverify: ProviderOptions } {
  const base = { fetch: s.fetch, timeoutMs: s.config.PROVIDER_TIMEOUT_MS };
  return {
    api: { ...base, baseUrl: s.config.CLOUDFLARE_API_BASE },
    siteverify: { ...base, baseUrl: s.config.TURNSTILE_SITEVERIFY_URL },
  };
}
