/**
 * The one place a Cloudflare failure becomes our error envelope (`edge_error`):
 *
 * | provider kind                                  | status | why                                  |
 * |------------------------------------------------|--------|--------------------------------------|
 * | bad_token, forbidden, not_found, rejected      | 400    | the operator must change something   |
 * | rate_limited                                   | 429    | wait (`Retry-After` passed through)  |
 * | unavailable                                    | 502    | Cloudflare unreachable or failing    |
 * | timeout                                        | 504    | no answer within PROVIDER_TIMEOUT_MS |
 *
 * Never 401/403: those mean "your admin session" to the admin app, not "your Cloudflare token".
 */
import { EdgeError } from "../errors.ts";
import { ProviderError, type ProviderErrorKind } from "./provider.ts";

const STATUS: Record<ProviderErrorKind, 400 | 429 | 502 | 504> = {
  bad_token: 400,
  forbidden: 400,
  not_found: 400,
  rejected: 400,
  rate_limited: 429,
  unavailable: 502,
  timeout: 504,
};

/** The `edge_error` for a provider failure during `doing` (e.g. "find the zone"). */
export function edgeErrorFrom(e: ProviderError, doing: string): EdgeError {
  return new EdgeError(
    STATUS[e.kind],
    `Cloudflare: could not ${doing}: ${e.message}`,
    {
      provider: e.provider,
      kind: e.kind,
      step: doing,
      providerStatus: e.status,
      providerErrors: e.providerErrors,
      ...(e.retryAfterSeconds ? { retryAfterSeconds: e.retryAfterSeconds } : {}),
    },
    e.kind === "rate_limited" ? e.retryAfterSeconds ?? 60 : undefined,
  );
}

/**
 * Runs provider calls for one step; a `ProviderError` becomes `edge_error` naming the step.
 *
 * @example
 * const zone = await edgeStep("find the zone", () => cf.findZone(name));
 */
export async function edgeStep<T>(doing: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw e instanceof ProviderError ? edgeErrorFrom(e, doing) : e;
  }
}
