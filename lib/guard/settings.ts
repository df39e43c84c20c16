/**
 * Per-queue join guards: the bot challenge on join (off, on, or automatic above thresholds the
 * operator sets), which challenge (built-in proof of work, Turnstile, or both), its base
 * difficulty, and whether joining needs an enqueue token from the operator's site. Stored in the
 * queue's settings (`joinGuards`, read with them, so a join batch reads them once), soft-merged
 * with the defaults, so a release that adds a field keeps what operators saved. They had a record
 * of their own before; `resolveJoinGuards` says how the two are read while revisions from before
 * and after the move run side by side.
 */
import { NotFoundError } from "../errors.ts";
import { withDefaults } from "../queue/types.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";

/** When joins need a challenge: never, always, or while the join rate or the line is high. */
export type ChallengeMode = "off" | "on" | "auto";
/** Which challenge: the built-in proof of work, Cloudflare Turnstile, or both. */
export type ChallengeProvider = "builtin" | "turnstile" | "both";

/** A queue's join guards, at `keys.joinGuards(queue)`. */
export interface JoinGuardSettings {
  challenge: ChallengeMode;
  provider: ChallengeProvider;
  /** Base difficulty of the built-in challenge: expected SHA-256 tries for one visitor. */
  difficulty: number;
  /** Automatic mode: on while more joins than this arrive per minute (all instances). */
  autoJoinsPerMinute: number;
  /** Automatic mode: on while more visitors than this are waiting. */
  autoWaiting: number;
  /** Joining needs an enqueue token (one place per key); resuming by ticket never does. */
  requireEnqueueToken: boolean;
  /**
   * Shadow line (with the challenge on): a client that fails it (a wrong, forged or replayed
   * solution) or takes new places at `shadowOverLimitFactor` times its per-client limit is
   * placed in a line that looks real but never admits (lib/guard/shadow.ts), not refused.
   */
  shadowLine: boolean;
  /** Times the per-client limit at which refusals turn into shadow places; 0: never. */
  shadowOverLimitFactor: number;
}

/**
 * Default base difficulty: about 0.3 to 0.5 s on one core of our servers (1.6 to 2.5 million
 * tries a second, see bench/RESULTS.md), so 1 to 3 s on a phone, which runs the loop 3 to 6
 * times slower.
 */
export const DEFAULT_JOIN_DIFFICULTY = 750_000;

/**
 * The guards of a queue nobody configured: no challenge (existing API clients keep working; the
 * per-client limit on new places is the default defence), built-in when turned on, thresholds
 * for automatic mode, no enqueue tokens.
 */
export const DEFAULT_JOIN_GUARDS: JoinGuardSettings = {
  challenge: "off",
  provider: "builtin",
  difficulty: DEFAULT_JOIN_DIFFICULTY,
  autoJoinsPerMinute: 1200,
  autoWaiting: 10_000,
  requireEnqueueToken: false,
  shadowLine: false,
  shadowOverLimitFactor: 3,
};

/** Bounds of the numeric fields (the admin API validates against these). */
export const GUARD_BOUNDS = {
  difficulty: [1000, 100_000_000],
  autoJoinsPerMinute: [1, 10_000_000],
  autoWaiting: [1, 50_000_000],
  shadowOverLimitFactor: [0, 100],
} as const;

/** The two records a queue's guards may be in: the queue's settings, and the former own record. */
export interface GuardEntries {
  /** The queue's settings record (`keys.queue`), as stored. */
  queue: Deno.KvEntryMaybe<{ joinGuards?: Partial<JoinGuardSettings> } | null>;
  /** The former record of its own (`keys.joinGuards`), still written for older revisions. */
  legacy: Deno.KvEntryMaybe<Partial<JoinGuardSettings>>;
}

/**
 * A queue's guards from its two records. They live in the queue's settings; the former record of
 * their own is still read, and wins when it was written after the settings (a revision from
 * before the move saved guards there while this one runs beside it; versionstamps grow with
 * every commit). A queue record without guards (created or rewritten by such a revision) falls
 * back to it as well; neither: the defaults.
 */
export function resolveJoinGuards(e: GuardEntries): JoinGuardSettings {
  const own = e.queue.value?.joinGuards;
  const legacy = e.legacy.value;
  const legacyNewer = legacy !== null && e.legacy.versionstamp !== null &&
    (own === undefined || e.queue.versionstamp === null ||
      e.legacy.versionstamp > e.queue.versionstamp);
  return withDefaults(DEFAULT_JOIN_GUARDS, legacyNewer ? legacy : own ?? null);
}

/** Reads both records of a queue's guards in one call. */
export async function readGuardEntries(kv: Deno.Kv, q: string): Promise<GuardEntries> {
  const [queue, legacy] = await kv.getMany<
    [{ joinGuards?: Partial<JoinGuardSettings> } | null, Partial<JoinGuardSettings>]
  >([keys.queue(q), keys.joinGuards(q)]);
  return { queue, legacy };
}

/** Reads a queue's guards (defaults when none are stored). */
export async function readJoinGuards(kv: Deno.Kv, q: string): Promise<JoinGuardSettings> {
  return resolveJoinGuards(await readGuardEntries(kv, q));
}

/**
 * Changes some of a queue's guards (a write checked against both records); returns the whole
 * set. They are saved in the queue's settings and, for a revision from before the move that may
 * still run beside this one, in the former record too, in the same commit. Throws 404
 * `unknown_queue` for a queue that does not exist.
 */
export async function writeJoinGuards(
  kv: Deno.Kv,
  q: string,
  patch: Partial<JoinGuardSettings>,
): Promise<JoinGuardSettings> {
  return await retryCommit(async () => {
    const e = await readGuardEntries(kv, q);
    if (!e.queue.value) throw new NotFoundError("unknown_queue", `unknown queue "${q}"`);
    const next = { ...resolveJoinGuards(e) };
    for (const k of Object.keys(DEFAULT_JOIN_GUARDS) as (keyof JoinGuardSettings)[]) {
      if (patch[k] !== undefined) (next as Record<string, unknown>)[k] = patch[k];
    }
    const ok = (await kv.atomic().check(e.queue, e.legacy)
      .set(keys.queue(q), { ...e.queue.value, joinGuards: next })
      .set(keys.joinGuards(q), next).commit()).ok;
    return ok ? next : null;
  }, "join guards");
}
