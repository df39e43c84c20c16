import type { Clock } from "../clock.ts";
import { RateLimitedError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";

/** The public calls that are rate-limited (DECISIONS.md) and their budgets. */
export const RATE_LIMITS = {
  /** Per IP and username. */
  login: { max: 5, windowMs: 15 * 60_000 },
  /** Per IP. */
  recover: { max: 5, windowMs: 60 * 60_000 },
  /** Per IP. */
  invite: { max: 5, windowMs: 60 * 60_000 },
} as const;

/** A rate-limited call. */
export type RateLimitKind = keyof typeof RATE_LIMITS;

function windowOf(kind: RateLimitKind, nowMs: number) {
  const { windowMs } = RATE_LIMITS[kind];
  const w = Math.floor(nowMs / windowMs);
  return { w, endsAt: (w + 1) * windowMs };
}

/**
 * Counts one attempt in the current fixed window and throws `RateLimitedError` (with the seconds
 * until the window ends) once it is over the budget. The counter is a `KvU64` written with a
 * check on its previous version (a plain `sum` cannot carry `expireIn`), so concurrent attempts
 * cannot all slip under the limit and every counter expires on its own.
 */
export async function hitRateLimit(
  kv: Deno.Kv,
  clock: Clock,
  kind: RateLimitKind,
  subject: string,
): Promise<void> {
  const now = clock.now();
  const { w, endsAt } = windowOf(kind, now);
  const key = keys.rateLimit(kind, subject, w);
  const count = await retryCommit(async () => {
    const cur = await kv.get<Deno.KvU64>(key);
    const next = (cur.value?.value ?? 0n) + 1n;
    // KV expiry runs on the real clock; it only cleans up, the window itself comes from `clock`.
    const res = await kv.atomic().check(cur).set(key, new Deno.KvU64(next), {
      expireIn: RATE_LIMITS[kind].windowMs,
    }).commit();
    return res.ok ? Number(next) : null;
  }, "rate limit");
  if (count > RATE_LIMITS[kind].max) {
    throw new RateLimitedError(Math.max(1, Math.ceil((endsAt - now) / 1000)));
  }
}

/** Forgets the attempts of the current window (after a successful sign-in). */
export async function resetRateLimit(
  kv: Deno.Kv,
  clock: Clock,
  kind: RateLimitKind,
  subject: string,
): Promise<void> {
  await kv.delete(keys.rateLimit(kind, subject, windowOf(kind, clock.now()).w));
}
