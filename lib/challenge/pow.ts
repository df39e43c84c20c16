/**
 * The built-in proof-of-work challenge: stateless, signed challenges that cost a client about
 * `difficulty` SHA-256 tries to solve and the server two short hashes to check. Used by the join
 * path and by admin sign-in.
 *
 * A challenge is the text `purpose.scope.difficulty.expires.salt.seed`: what it is for (`join`,
 * `signin`, ...), what it is bound to (a queue name, a form), the expected number of tries, its
 * expiry (unix seconds), 16 random bytes, and `seed` = HMAC(key, everything before it + "|" +
 * client), where the key is derived from `TOKEN_SECRET` and `client` is the caller's address. No
 * state is kept until a solution is accepted; then its seed is recorded (with `expireIn`) so the
 * same challenge is accepted once across all instances.
 *
 * @example
 * ```ts
 * const pow = new ProofOfWork(config.TOKEN_SECRET, clock, cryptoRandom);
 * const scope = { purpose: "signin", scope: "admin", client: ip };
 * const ch = pow.issue(scope, 500_000);            // send `ch` to the client
 * const ok = pow.verify(body.proof, scope);       // throws ChallengeFailedError
 * await spendSolution(kv, ok, clock.now());        // or addSpentRecord(op, ok, now) in your op
 * ```
 */
import type { Clock, Random } from "../clock.ts";
import { HmacSha256 } from "../hmac.ts";
import { keys } from "../store/keys.ts";
import { b64url, fromB64url, timingSafeEqual } from "../tokens.ts";
import { ChallengeFailedError } from "./errors.ts";
import { MAX_DIFFICULTY, NONCE_RE, PowHasher, SEED_LENGTH, thresholdOf } from "./pow_hash.ts";

/** What a challenge is bound to; `verify` refuses a solution bound to anything else. */
export interface PowScope {
  /** What it guards: `join`, `signin`, ... (lower-case letters, at most 16). */
  purpose: string;
  /** Its target: a queue name for `join`, a form name for sign-in. */
  scope: string;
  /** The caller's address as the service derives it (not sent to the client). */
  client: string;
}

/** A challenge as sent to a client (`error.details.challenge` on the join path). */
export interface PowChallenge {
  /** The signed challenge; sent back unchanged with the nonce. */
  challenge: string;
  /** Always `SHA-256`. */
  algorithm: "SHA-256";
  /** The 43 characters hashed in front of each nonce (the challenge's last part). */
  seed: string;
  /** Expected number of tries. */
  difficulty: number;
  /** A nonce solves when the first 4 bytes of SHA-256(seed + nonce), big-endian, are below this. */
  threshold: number;
  /** Unix ms after which the challenge is refused. */
  expiresAt: number;
}

/** A solution as a client sends it. */
export interface PowSolution {
  challenge: string;
  /** Decimal digits, at most 12. */
  nonce: string;
}

/** A solution `verify` accepted; record it with `addSpentRecord` or `spendSolution`. */
export interface VerifiedPow {
  seed: string;
  purpose: string;
  scope: string;
  difficulty: number;
  /** Unix ms. */
  expiresAt: number;
}

/** Default lifetime of a challenge: time to solve it on a slow phone at a raised difficulty. */
export const DEFAULT_POW_TTL_SECONDS = 600;
/** Longest challenge text accepted (a 64-character queue name fits with room to spare). */
const MAX_CHALLENGE_LENGTH = 256;
const PURPOSE_RE = /^[a-z]{1,16}$/;
const SCOPE_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const enc = new TextEncoder();

/** Issues and verifies proof-of-work challenges with a key derived from the service secret. */
export class ProofOfWork {
  readonly #hmac: HmacSha256;
  readonly #hasher = new PowHasher("A".repeat(SEED_LENGTH));

  /** `secret` is `TOKEN_SECRET`; the challenge key is derived from it, never used raw. */
  constructor(secret: string, private readonly clock: Clock, private readonly random: Random) {
    // A key of its own: a challenge signature can never pass as a token's, or the reverse.
    const key = new HmacSha256(enc.encode(secret)).mac("tollgate proof-of-work v1");
    this.#hmac = new HmacSha256(key);
  }

  /** A fresh challenge for `to` at `difficulty` expected tries (clamped to 1 .. 2^30). */
  issue(to: PowScope, difficulty: number, ttlSeconds = DEFAULT_POW_TTL_SECONDS): PowChallenge {
    if (!PURPOSE_RE.test(to.purpose) || !SCOPE_RE.test(to.scope)) {
      throw new RangeError(`bad challenge purpose or scope: ${to.purpose}.${to.scope}`);
    }
    const d = Math.min(MAX_DIFFICULTY, Math.max(1, Math.round(difficulty)));
    const exp = Math.floor(this.clock.now() / 1000) + ttlSeconds;
    const head = `${to.purpose}.${to.scope}.${d}.${exp}.${b64url(this.random.bytes(16))}`;
    const seed = b64url(this.#hmac.mac(`${head}|${to.client}`));
    return {
      challenge: `${head}.${seed}`,
      algorithm: "SHA-256",
      seed,
      difficulty: d,
      threshold: thresholdOf(d),
      expiresAt: exp * 1000,
    };
  }

  /**
   * Checks a solution against what it must be bound to: one HMAC and one single-block SHA-256.
   * `minDifficulty` refuses challenges issued easier than the caller now requires. Throws
   * `ChallengeFailedError` (403 `challenge_failed`) with the reason; does not record anything.
   */
  verify(solution: unknown, expect: PowScope & { minDifficulty?: number }): VerifiedPow {
    const { challenge, nonce } = (solution ?? {}) as Partial<PowSolution>;
    if (
      typeof challenge !== "string" || typeof nonce !== "string" ||
      challenge.length > MAX_CHALLENGE_LENGTH || !NONCE_RE.test(nonce)
    ) {
      throw new ChallengeFailedError(
        "malformed",
        "proof: send {challenge, nonce} with the challenge as issued and a decimal nonce of at " +
          "most 12 digits",
      );
    }
    const cut = challenge.lastIndexOf(".");
    const head = challenge.slice(0, cut);
    const seed = challenge.slice(cut + 1);
    const parts = head.split(".");
    const sig = seed.length === SEED_LENGTH ? fromB64url(seed) : null;
    if (cut < 0 || parts.length !== 5 || !sig) {
      throw new ChallengeFailedError("malformed", "proof.challenge is not a challenge we issue");
    }
    if (!timingSafeEqual(sig, this.#hmac.mac(`${head}|${expect.client}`))) {
      throw new ChallengeFailedError(
        "forged",
        "proof.challenge was not issued by this service to this client (altered, or fetched " +
          "from another address); solve a fresh one",
      );
    }
    const [purpose, scope, ds, es] = parts;
    const difficulty = Number(ds), expiresAt = Number(es) * 1000;
    if (this.clock.now() >= expiresAt) {
      throw new ChallengeFailedError("expired", "the challenge has expired; solve a fresh one");
    }
    if (purpose !== expect.purpose) {
      throw new ChallengeFailedError(
        "wrong_purpose",
        `the challenge was issued for "${purpose}", not "${expect.purpose}"`,
      );
    }
    if (scope !== expect.scope) {
      throw new ChallengeFailedError(
        "wrong_scope",
        `the challenge was issued for "${scope}", not "${expect.scope}"`,
      );
    }
    if (difficulty < (expect.minDifficulty ?? 1)) {
      throw new ChallengeFailedError(
        "too_easy",
        `the challenge's difficulty ${difficulty} is below the ${expect.minDifficulty} now ` +
          "required; solve a fresh one",
      );
    }
    if (!this.#hasher.reset(seed).solves(nonce, thresholdOf(difficulty))) {
      throw new ChallengeFailedError(
        "not_solved",
        `nonce ${nonce} does not meet the challenge's difficulty`,
      );
    }
    return { seed, purpose, scope, difficulty, expiresAt };
  }
}

/** The spent-solution record of `v`: a KV key, its value and how long to keep it (ms). */
export function spentRecord(v: VerifiedPow, now: number) {
  return {
    key: keys.powSpent(v.seed),
    value: v.expiresAt,
    // Kept a minute past the challenge's end (clocks of instances differ a little).
    expireIn: Math.max(1000, v.expiresAt - now + 60_000),
  };
}

/**
 * Adds the spent-solution record to a caller's atomic op: a check that it is absent and its write.
 * The op then fails (`ok: false`) if the same solution was used meanwhile; `isSpent` tells.
 */
export function addSpentRecord(op: Deno.AtomicOperation, v: VerifiedPow, now: number): void {
  const r = spentRecord(v, now);
  op.check({ key: r.key, versionstamp: null }).set(r.key, r.value, { expireIn: r.expireIn });
}

/** True when the solution of `v` was already used (its record exists). */
export async function isSpent(kv: Deno.Kv, v: VerifiedPow): Promise<boolean> {
  return (await kv.get(keys.powSpent(v.seed))).versionstamp !== null;
}

/** Records `v` as used on its own (for callers without an op); throws `replayed` if it was. */
export async function spendSolution(kv: Deno.Kv, v: VerifiedPow, now: number): Promise<void> {
  const op = kv.atomic();
  addSpentRecord(op, v, now);
  if (!(await op.commit()).ok) throw replayedError();
}

/** The refusal of a solution whose challenge was already used. */
export function replayedError(): ChallengeFailedError {
  return new ChallengeFailedError(
    "replayed",
    "this challenge was already solved and used; solve a fresh one",
  );
}
