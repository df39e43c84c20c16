/**
 * One server-side check of a challenge response, shared by the setup step and the login gate:
 * siteverify with the widget's secret and the visitor's address, then the hostname the challenge
 * was solved on. It says why a response failed; callers decide what that means for them.
 */
import { ProviderError, type ProviderOptions } from "../edge/provider.ts";
import { hostAllowed } from "./records.ts";
import { MAX_RESPONSE_LENGTH, siteverify, SITEVERIFY_ERRORS } from "./turnstile.ts";

/** Why a response did not pass. */
export type CheckFailure =
  /** Turnstile refused the response itself (invalid, expired, reused): the visitor retries. */
  | "response"
  /** Solved on a hostname the widget is not for. */
  | "hostname"
  /** Turnstile refused our secret (widget deleted, secret rotated): the operator must act. */
  | "secret";

/** The outcome of a check. */
export type CheckOutcome =
  | { ok: true; hostname: string }
  | { ok: false; why: CheckFailure; errorCodes: string[]; hostname?: string; message: string };

const SECRET_CODES = ["missing-input-secret", "invalid-input-secret"];

/** The error codes in words, for messages. */
export function describeCodes(codes: string[]): string {
  const known = SITEVERIFY_ERRORS as Record<string, string>;
  return codes.length ? codes.map((c) => known[c] ?? c).join("; ") : "no reason given";
}

/**
 * Checks `response` against the widget behind `secret`. A provider failure (down, timeout, rate
 * limit) is thrown as `ProviderError`; `internal-error` is retried once with the same
 * idempotency key, as the docs allow, then thrown as unavailable.
 */
export async function checkResponse(
  opts: ProviderOptions,
  secret: string,
  response: string,
  ip: string,
  domains: string[],
): Promise<CheckOutcome> {
  if (!response || response.length > MAX_RESPONSE_LENGTH) {
    const codes = [response ? "invalid-input-response" : "missing-input-response"];
    return { ok: false, why: "response", errorCodes: codes, message: describeCodes(codes) };
  }
  const remoteip = ip && ip !== "unknown" ? ip : undefined;
  const key = crypto.randomUUID();
  let a = await siteverify(opts, secret, response, remoteip, key);
  if (!a.success && a["error-codes"].includes("internal-error")) {
    a = await siteverify(opts, secret, response, remoteip, key);
  }
  const codes = a["error-codes"];
  if (a.success) {
    if (hostAllowed(a.hostname, domains)) return { ok: true, hostname: a.hostname! };
    return {
      ok: false,
      why: "hostname",
      errorCodes: [],
      hostname: a.hostname,
      message: `the challenge was solved on "${a.hostname ?? ""}", which is not one of the ` +
        `widget's hostnames (${domains.join(", ")})`,
    };
  }
  if (codes.includes("internal-error")) {
    throw new ProviderError("turnstile", "unavailable", "Turnstile had an internal error", 502);
  }
  const why: CheckFailure = codes.some((c) => SECRET_CODES.includes(c)) ? "secret" : "response";
  return { ok: false, why, errorCodes: codes, message: describeCodes(codes) };
}
