/**
 * The operator's counts of refused and challenged joins over the last hour, per queue: joins
 * refused by the per-client limit, challenges issued, solved and failed, enqueue tokens refused.
 * They share the refusal counters of the join path (lib/access/refusals.ts: summed in memory,
 * written at most once a second, bucketed per minute), under causes of their own.
 */
import type { HitCounter } from "../access/hits.ts";
import { countRefusal, refusalsLastHour } from "../access/refusals.ts";
import type { Clock } from "../clock.ts";

/** The counted events, and the cause each is stored under. */
const CAUSES = {
  rateLimited: "client_limit",
  challengesIssued: "challenge_issued",
  challengesSolved: "challenge_solved",
  challengesFailed: "challenge_failed",
  enqueueTokensRefused: "enqueue_token_refused",
  shadowPlaced: "shadow_line",
} as const;
/** One counted event. */
export type GuardKind = keyof typeof CAUSES;
/** The counts of the last hour, by kind. */
export type GuardCounts = Record<GuardKind, number>;
/** All-zero counts (an engine without the guards wired in). */
export const NO_GUARD_COUNTS = Object.freeze(
  Object.fromEntries(Object.keys(CAUSES).map((k) => [k, 0])) as GuardCounts,
);

/** How long a queue's counts are reused (metrics scrapes and admin polls list the buckets). */
const CACHE_MS = 2000;

/** Counts join-guard events; cheap on the join path (a map update). */
export class GuardStats {
  #cache = new Map<string, { at: number; value: GuardCounts }>();

  constructor(private kv: Deno.Kv, private clock: Clock, private hits: HitCounter) {}

  /** Counts one `kind` event in queue `q` now. */
  add(q: string, kind: GuardKind): void {
    countRefusal(this.hits, q, CAUSES[kind], this.clock.now());
    this.#cache.delete(q); // this instance's own counts show at once
  }

  /** Resolves once every count so far is written. */
  idle(): Promise<void> {
    return this.hits.idle();
  }

  /** The counts of the last hour in `q` (other instances' within 2 s). */
  async lastHour(q: string): Promise<GuardCounts> {
    const now = this.clock.now();
    const hit = this.#cache.get(q);
    if (hit && now >= hit.at && now - hit.at < CACHE_MS) return { ...hit.value };
    const by = await refusalsLastHour(this.kv, this.hits, q, now);
    const out = {} as GuardCounts;
    for (const [k, cause] of Object.entries(CAUSES)) out[k as GuardKind] = by[cause] ?? 0;
    this.#cache.set(q, { at: now, value: out });
    return { ...out };
  }
}
