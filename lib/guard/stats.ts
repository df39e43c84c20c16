/**
 * The operator's counts of refused and challenged joins over the last hour, per queue: joins
 * refused by the per-client limit, challenges issued, solved and failed, enqueue tokens refused.
 * Counted in memory and written as KV sums by one group commit at a time (lib/access/hits.ts), in
 * 5-minute buckets; reading sums the buckets of the last hour and deletes older ones.
 */
import { HitCounter } from "../access/hits.ts";
import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";

/** The counted events. */
export const GUARD_KINDS = [
  "rateLimited",
  "challengesIssued",
  "challengesSolved",
  "challengesFailed",
  "enqueueTokensRefused",
] as const;
/** One counted event. */
export type GuardKind = typeof GUARD_KINDS[number];
/** The counts of the last hour, by kind. */
export type GuardCounts = Record<GuardKind, number>;

/** Size of one bucket. */
export const GUARD_BUCKET_MS = 5 * 60_000;
const HOUR_BUCKETS = 12;

/** Counts join-guard events; cheap on the join path (a map update). */
export class GuardStats {
  readonly #hits: HitCounter;

  constructor(private kv: Deno.Kv, private clock: Clock) {
    this.#hits = new HitCounter(kv);
  }

  /** Counts one `kind` event in queue `q` now. */
  add(q: string, kind: GuardKind): void {
    this.#hits.add(keys.guardStats(q, Math.floor(this.clock.now() / GUARD_BUCKET_MS), kind));
  }

  /** Resolves once every count so far is written. */
  idle(): Promise<void> {
    return this.#hits.idle();
  }

  /** The counts of the last hour (the current bucket and the 11 before it) in `q`. */
  async lastHour(q: string): Promise<GuardCounts> {
    await this.#hits.idle();
    const out = Object.fromEntries(GUARD_KINDS.map((k) => [k, 0])) as GuardCounts;
    const first = Math.floor(this.clock.now() / GUARD_BUCKET_MS) - HOUR_BUCKETS + 1;
    const old: Deno.KvKey[] = [];
    for await (const e of this.kv.list<Deno.KvU64>({ prefix: keys.guardStatsPrefix(q) })) {
      const bucket = e.key[3] as number, kind = e.key[4] as GuardKind;
      if (bucket < first) old.push(e.key);
      else if (kind in out) out[kind] += Number(e.value.value);
    }
    // Buckets older than an hour are of no further use.
    for (let i = 0; i < old.length; i += 500) {
      const op = this.kv.atomic();
      for (const k of old.slice(i, i + 500)) op.delete(k);
      await op.commit().catch(() => {});
    }
    return out;
  }
}
