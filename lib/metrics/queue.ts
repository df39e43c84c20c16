/**
 * The operator metrics of a queue (`GET /metrics`, the admin's live view, the Prometheus
 * exposition): a report built from the engine's cached view of the queue and a few reads of its
 * own, kept apart from the engine that admits. What it reads beyond the view is cached per queue:
 * the head's arrival time once per head, the silent waiters for 5 s.
 */
import { type HealthSnapshot, unmonitoredSnapshot } from "../access/health_config.ts";
import { type GuardCounts, NO_GUARD_COUNTS } from "../guard/stats.ts";
import { type LaneMetrics, laneMetrics } from "../priority/metrics.ts";
import { keys } from "../store/keys.ts";
import { openSlots, type QueueContext } from "../queue/context.ts";
import { withEnters } from "../queue/enters.ts";
import { type PrequeueMetrics, prequeueMetrics } from "../queue/prequeue_metrics.ts";
import { estimateWaitSeconds } from "../queue/timeslot.ts";
import type { Mode, Visitor } from "../queue/types.ts";
import { admissionStart } from "../queue/view.ts";

/** Operator metrics of one queue (metric names). */
export interface QueueMetrics {
  queue: string;
  waiting: number;
  capacity: number;
  entered: number;
  holding: number;
  openSlots: number;
  paused: boolean;
  healthPaused: boolean;
  opensAt: number | null;
  admitPerSecond: number;
  admissionMode: Mode;
  estimatedWaitSeconds: number;
  averageWaitSeconds: number;
  oldestWaitSeconds: number;
  abandoned: number;
  /** Waiters past their check-in (silent) but within their grace: they keep their place. */
  silent: number;
  /** Silent waiters that came back within their grace (ever). */
  returned: number;
  /** Priority lanes: each lane's line (waiting in it, admitted from it ever). */
  lanes: LaneMetrics[];
  admittedTotal: number;
  /** The service-wide origin health snapshot (the same in every queue's metrics). */
  health: HealthSnapshot;
  /** How old the counts and settings shown are, in ms: this instance reads them once a second. */
  viewAgeMs: number;
  /** The pre-queue and its opening draw. */
  prequeue: PrequeueMetrics;
  /** Refused and challenged joins of the last hour (lib/guard/stats.ts). */
  joinGuards: GuardCounts;
}

/** Where the metrics come from: the engine's context and the hooks app.ts wires into the engine. */
export interface MetricsSources {
  readonly ctx: QueueContext;
  /** The origin health snapshot (app.ts wires the health monitor in). */
  healthSnapshot?: () => Promise<HealthSnapshot>;
  /** The join guards' counts of the last hour (app.ts wires them in). */
  guardCounts?: (q: string) => Promise<GuardCounts>;
}

/** Reads the operator metrics of queues (one per engine: it keeps the caches of the header). */
export class QueueMetricsReader {
  /** Arrival time of each queue's first waiter, by its arrival number (for `oldestWaitSeconds`). */
  #heads = new Map<string, { seq: number; createdAt: number; joinedAt: number | null }>();

  constructor(private from: MetricsSources) {}

  /**
   * Silent waiters (deadline passed, not dropped yet) and those that returned: listed at most
   * every 5 s per queue, up to `SILENT_COUNT_MAX`.
   */
  async #silence(q: string, now: number): Promise<{ silent: number; returned: number }> {
    const had = this.#silent.get(q);
    if (had && now >= had.at && now - had.at < 5000) return had.value;
    let silent = 0;
    const end = [...keys.deadlinePrefix(q), now];
    for await (const _ of this.from.ctx.kv.list({ start: keys.deadlinePrefix(q), end })) {
      if (++silent >= SILENT_COUNT_MAX) break;
    }
    const sum = (await this.from.ctx.kv.get<Deno.KvU64>(keys.returned(q))).value;
    const value = { silent, returned: Number(sum?.value ?? 0n) };
    if (this.#silent.size >= 1024) this.#silent.clear();
    this.#silent.set(q, { value, at: now });
    return value;
  }
  #silent = new Map<string, { value: { silent: number; returned: number }; at: number }>();

  /** Operator metrics of queue `q`. */
  async of(q: string): Promise<QueueMetrics> {
    const ctx = this.from.ctx;
    const v = await ctx.view(q);
    const now = ctx.now();
    // Holding and entered read afresh with the enters not taken in yet (see enters.ts): the
    // view's counts may be a join commit's, which cannot say how many of those it had.
    const slots = await ctx.readCounts(q);
    const s = v.settings, c = v.counts, held = withEnters(slots.counts, slots.pending);
    const start = admissionStart(s, now) ?? now;
    let oldest = 0;
    if (v.head !== null) {
      // The head's arrival time is read once per head (scrapes come every second or so); arrival
      // numbers are never reused within a queue, and a queue made again has a new createdAt.
      let head = this.#heads.get(q);
      if (head?.seq !== v.head || head.createdAt !== s.createdAt) {
        const id = (await ctx.kv.get<string>(keys.fifo(q, v.head))).value;
        const rec = id ? (await ctx.kv.get<Visitor>(keys.visitor(q, id))).value : null;
        head = { seq: v.head, createdAt: s.createdAt, joinedAt: rec?.joinedAt ?? null };
        this.#heads.set(q, head);
      }
      if (head.joinedAt !== null) oldest = Math.max(0, Math.round((now - head.joinedAt) / 1000));
    }
    return {
      queue: q,
      waiting: c.waiting,
      capacity: s.capacity,
      entered: held.entered,
      holding: held.holding,
      openSlots: openSlots(s, held),
      paused: s.paused,
      healthPaused: s.healthPaused,
      opensAt: s.opensAt,
      admitPerSecond: ctx.ratePerSecond(s),
      admissionMode: s.mode,
      estimatedWaitSeconds: estimateWaitSeconds(now, start, c.waiting, ctx.lineRate(v)),
      averageWaitSeconds: c.waitCount ? Math.round(c.waitMsSum / c.waitCount / 100) / 10 : 0,
      oldestWaitSeconds: oldest,
      abandoned: c.abandoned,
      ...await this.#silence(q, now),
      lanes: laneMetrics(ctx, v),
      admittedTotal: c.admitted,
      health: this.from.healthSnapshot
        ? await this.from.healthSnapshot()
        : unmonitoredSnapshot(s.healthPaused),
      viewAgeMs: Math.max(0, now - v.loadedAt),
      prequeue: await prequeueMetrics(ctx, q, v, now),
      joinGuards: this.from.guardCounts ? await this.from.guardCounts(q) : { ...NO_GUARD_COUNTS },
    };
  }
}

/** Silent waiters counted this far at most (the count is a list of the deadline index). */
const SILENT_COUNT_MAX = 100_000;
