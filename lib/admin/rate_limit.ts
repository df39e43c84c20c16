import type { Clock } from "../clock.ts";
import { RateLimitedError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";

/** The public calls that are rate-limited and their budgets. */
export const RATE_LIMITS = {
  /**
   * Login per IP, across usernames. Checked before any password hashing, so one address cannot
   * burn the CPU on PBKDF2 by trying a new name each time; a success refunds its try, so it
   * counts failures.
   */
  loginIp: { max: 20, windowMs: 15 * 60_000 },
  /** A signed-in admin's wrong current password (password change, new phrase), per IP and name. */
  login: { max: 5, windowMs: 15 * 60_000 },
  /**
   * Failed sign-ins per account, from any address. Never a 429 (that would let anyone lock an
   * admin out): past `max`, the account's sign-in needs the bot challenge until the window ends
   * or a sign-in succeeds.
   */
  loginAccount: { max: 5, windowMs: 15 * 60_000 },
  /** Per IP. */
  recover: { max: 5, windowMs: 60 * 60_000 },
  /** Per IP. */
  invite: { max: 5, windowMs: 60 * 60_000 },
  /** Wrong resume codes per address (IPv6 by /64); see lib/resume/resume.ts. */
  resumeIp: { max: 10, windowMs: 10 * 60_000 },
  /**
   * Wrong resume codes per queue from all addresses: past it, each try needs a solved challenge
   * (lib/resume/proof.ts), never a 429 for everyone. At 2^40 codes, 120 free guesses a minute hit
   * one of 10,000 live codes about once in 20 months; each further guess costs its own proof of work.
   */
  resumeQueue: { max: 120, windowMs: 60_000 },
  /**
   * Turn e-mail requests per recipient (by a MAC of the address, `+tags` dropped), from any
   * place and address: one person needs a few; more would make the service a mail cannon at
   * someone else's inbox, one e-mail per place a script takes.
   */
  turnMail: { max: 3, windowMs: 60 * 60_000 },
} as const;

/** A rate-limited call. */
export type RateLimitKind = keyof typeof RATE_LIMITS;

function windowOf(kind: RateLimitKind, nowMs: number) {
  const { windowMs } = RATE_LIMITS[kind];
  const w = Math.floor(nowMs / windowMs);
  return { w, endsAt: (w + 1) * windowMs };
}

/**
 * The address a limit counts: an IPv4 address as is, an IPv6 one by its /64 prefix, because a
 * single host usually owns a whole /64 and could otherwise take a fresh address per try.
 */
export function limitAddress(ip: string): string {
  let a = ip.trim().replace(/^\[|\]$/g, "");
  if (!a.includes(":")) return a;
  a = a.split("%")[0].toLowerCase(); // drop a zone id
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  if (mapped) return mapped[1];
  const [head, tail] = a.split("::", 2);
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = a.includes("::")
    ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t]
    : h;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

/**
 * Counts one attempt in the current fixed window and throws `RateLimitedError` (with the seconds
 * until the window ends) once it is over the budget. The counter is a `KvU64` written with a
 * check on its previous version (a plain `sum` cannot carry `expireIn`), so concurrent attempts
 * cannot all slip under the limit and every counter expires on its own. Once a window is over
 * budget, further attempts are refused without writing, so a flood cannot contend on the key.
 * `onTrip` runs once per window and subject: for the first refused attempt.
 */
export async function hitRateLimit(
  kv: Deno.Kv,
  clock: Clock,
  kind: RateLimitKind,
  subject: string,
  onTrip?: () => Promise<void>,
): Promise<void> {
  const now = clock.now();
  const { max } = RATE_LIMITS[kind];
  const { endsAt } = windowOf(kind, now);
  const out = await countAttempt(kv, clock, kind, subject);
  if (out.count > max) {
    // Each count is written by exactly one attempt, so exactly one attempt sees `max + 1`.
    if (out.wrote && out.count === max + 1) await onTrip?.();
    throw new RateLimitedError(Math.max(1, Math.ceil((endsAt - now) / 1000)));
  }
}

/**
 * Counts one attempt of `subject` in the current window and returns the count (`wrote`: this
 * call raised it). Past `max + 1` nothing is written, so a flood cannot contend on the key.
 */
export async function countAttempt(
  kv: Deno.Kv,
  clock: Clock,
  kind: RateLimitKind,
  subject: string,
): Promise<{ count: number; wrote: boolean }> {
  const { max, windowMs } = RATE_LIMITS[kind];
  const key = keys.rateLimit(kind, subject, windowOf(kind, clock.now()).w);
  return await retryCommit(async () => {
    const cur = await kv.get<Deno.KvU64>(key);
    const seen = Number(cur.value?.value ?? 0n);
    if (seen > max) return { count: seen, wrote: false };
    // KV expiry runs on the real clock; it only cleans up, the window itself comes from `clock`.
    const res = await kv.atomic().check(cur).set(key, new Deno.KvU64(BigInt(seen + 1)), {
      expireIn: windowMs,
    }).commit();
    return res.ok ? { count: seen + 1, wrote: true } : null;
  }, "rate limit");
}

/** The attempts of `subject` counted in the current window (no write). */
export async function attemptsOf(
  kv: Deno.Kv,
  clock: Clock,
  kind: RateLimitKind,
  subject: string,
): Promise<number> {
  const key = keys.rateLimit(kind, subject, windowOf(kind, clock.now()).w);
  return Number((await kv.get<Deno.KvU64>(key)).value?.value ?? 0n);
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

/** Takes back one attempt of the current window (a success that should not count). */
export async function refundRateLimit(
  kv: Deno.Kv,
  clock: Clock,
  kind: RateLimitKind,
  subject: string,
): Promise<void> {
  const key = keys.rateLimit(kind, subject, windowOf(kind, clock.now()).w);
  await retryCommit(async () => {
    const cur = await kv.get<Deno.KvU64>(key);
    const seen = cur.value?.value ?? 0n;
    if (seen === 0n) return true;
    const res = await kv.atomic().check(cur).set(key, new Deno.KvU64(seen - 1n), {
      expireIn: RATE_LIMITS[kind].windowMs,
    }).commit();
    return res.ok ? true : null;
  }, "rate limit refund");
}
