/**
 * The operator's counts of refused and challenged joins over the last hour, per queue: joins
 * refused by the per-client limit, challenges issued, solved and failed, enqueue tokens refused.
 * They share the refusal counters of the join path (lib/access/refusals.ts: summed in memory,
 * group-committed per minute), under causes of their own.
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
} as const;
/** One counted event. */
export type GuardKind = keyof typeof CAUSES;
/** The counts of the last hour, by kind. */
export type GuardCounts = Record<GuardKind, number>;

/** Counts join-guard events; cheap on the join path (a map update). */
export class GuardStats {
  constructor(private kv: Deno.Kv, private clock: Clock, private hits: HitCounter) {}

  /** Counts one `kind` event in queue `q` now. */
  add(q: string, kind: GuardKind): void {
    countRefusal(this.hits, q, CAUSES[kind], this.clock.now());
  }

  /** Resolves once every count so far is written. */
  idle(): Promise<void> {
    return this.hits.idle();
  }

  /** The counts of the last hour in `q`. */
  async lastHour(q: string): Promise<GuardCounts> {
    const by = await refusalsLastHour(this.kv, this.hits, q, this.clock.now());
    const out = {} as GuardCounts;
    for (const [k, cause] of Object.entries(CAUSES)) out[k as GuardKind] = by[cause] ?? 0;
    return out;
  }
}
