/**
 * Per-queue join guards: the bot challenge on join (off, on, or automatic above thresholds the
 * operator sets), which challenge (built-in proof of work, Turnstile, or both), its base
 * difficulty, and whether joining needs an enqueue token from the operator's site. Stored in a
 * record of its own beside the queue's settings and soft-merged with the defaults, so a release
 * that adds a field keeps what operators saved.
 */
import type { Clock } from "../clock.ts";
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
};

/** Bounds of the numeric fields (the admin API validates against these). */
export const GUARD_BOUNDS = {
  difficulty: [1000, 100_000_000],
  autoJoinsPerMinute: [1, 10_000_000],
  autoWaiting: [1, 50_000_000],
} as const;

/** Reads a queue's guards (defaults when none are stored). */
export async function readJoinGuards(kv: Deno.Kv, q: string): Promise<JoinGuardSettings> {
  const stored = (await kv.get<Partial<JoinGuardSettings>>(keys.joinGuards(q))).value;
  return withDefaults(DEFAULT_JOIN_GUARDS, stored);
}

/** Changes some of a queue's guards (a checked write); returns the whole record. */
export async function writeJoinGuards(
  kv: Deno.Kv,
  q: string,
  patch: Partial<JoinGuardSettings>,
): Promise<JoinGuardSettings> {
  return await retryCommit(async () => {
    const entry = await kv.get<Partial<JoinGuardSettings>>(keys.joinGuards(q));
    const next = { ...withDefaults(DEFAULT_JOIN_GUARDS, entry.value) };
    for (const k of Object.keys(DEFAULT_JOIN_GUARDS) as (keyof JoinGuardSettings)[]) {
      if (patch[k] !== undefined) (next as Record<string, unknown>)[k] = patch[k];
    }
    const ok = (await kv.atomic().check(entry).set(keys.joinGuards(q), next).commit()).ok;
    return ok ? next : null;
  }, "join guards");
}

/** How long an instance trusts its copy of a queue's guards. */
export const GUARDS_CACHE_MS = 1000;

/** Each queue's guards, read at most once a second per instance (joins read them every time). */
export class JoinGuardCache {
  #cache = new Map<string, { at: number; value: JoinGuardSettings }>();

  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** The guards of `q`, at most a second old. */
  async get(q: string): Promise<JoinGuardSettings> {
    const now = this.clock.now();
    const hit = this.#cache.get(q);
    if (hit && now >= hit.at && now - hit.at < GUARDS_CACHE_MS) return hit.value;
    const value = await readJoinGuards(this.kv, q);
    this.#cache.set(q, { at: now, value });
    return value;
  }

  /** Forgets `q` (after this instance wrote it), so the change applies at once here. */
  invalidate(q: string): void {
    this.#cache.delete(q);
  }
}
