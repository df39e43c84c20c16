/**
 * Each priority lane's figures for the operator metrics (`QueueMetrics.lanes`, the Prometheus
 * `tollgate_queue_lane_*` series): how many wait in its line, counted from the view every instance
 * reads once a second (its head and the gone log, like any position), and how many it admitted.
 */
import { lineOf, type QueueContext, type QueueView } from "../queue/context.ts";
import { drawPending } from "../queue/prequeue_phase.ts";
import { estimateWaitSeconds } from "../queue/timeslot.ts";
import type { VisitorView } from "../queue/types.ts";
import { firstSeq } from "./line.ts";

/** One priority lane's figures (`QueueMetrics.lanes`). */
export interface LaneMetrics {
  lane: string;
  waiting: number;
  admitted: number;
}

/** Each priority lane's line in `v`: waiting (exact once numbered) and admitted ever. */
export function laneMetrics(ctx: QueueContext, v: QueueView): LaneMetrics[] {
  const slots = v.lanes?.slots ?? {};
  return Object.entries(slots).filter(([, slot]) => v.laneHeads?.has(slot)).map(([lane, slot]) => ({
    lane,
    waiting: laneSize(ctx, v, slot),
    admitted: v.counts.laneAdmitted[slot] ?? 0,
  }));
}

/** How many wait in lane slot `slot`'s line by `v` (numbered ones; exact like any position). */
function laneSize(ctx: QueueContext, v: QueueView, slot: number): number {
  const { head, next } = lineOf(v, firstSeq(slot));
  return head === null ? 0 : ctx.position(v, next) - 1;
}

/**
 * The back of lane `lane`'s line by `v` (a join's provisional position there), or null when the
 * queue has no such lane (the join then waits in the main line).
 */
export function laneBack(ctx: QueueContext, v: QueueView, lane: string): number | null {
  const slot = v.lanes?.slots[lane];
  if (slot === undefined || !v.lanes!.lanes.some((l) => l.name === lane)) return null;
  return laneSize(ctx, v, slot) + 1;
}

/** How many wait numbered in `v`'s priority lanes: none of them is ahead in the main line. */
export function laneWaiting(ctx: QueueContext, v: QueueView): number {
  let n = 0;
  for (const slot of v.laneHeads?.keys() ?? []) n += laneSize(ctx, v, slot);
  return n;
}

/**
 * A join's provisional place by `v`: the back of lane `lane`'s line when the queue has that lane,
 * else `back` (counted over the whole line) less the lanes' waiters, as a main-line position
 * counts the main line only (the main line's joins were told the lanes' waiters too, until the
 * tick numbered them).
 */
export function joinBack(ctx: QueueContext, v: QueueView, back: number, lane?: string): number {
  const inLane = lane === undefined ? null : laneBack(ctx, v, lane);
  return inLane ?? Math.max(1, back - laneWaiting(ctx, v));
}

/**
 * A join's answer `out` made for a place at `position` of lane `lane`'s line: the lane named, its
 * pace, no main-line counts, as its status says once the join is numbered (the main line's answer
 * named no lane and promised the main line's pace). Unchanged when the queue has no such lane or
 * a pre-queue's draw is pending (lanes apply after the opening).
 */
export function laneJoinView(
  ctx: QueueContext,
  out: VisitorView,
  v: QueueView,
  lane: string | undefined,
  position: number,
): VisitorView {
  const l = lane === undefined ? undefined : v.lanes?.lanes.find((x) => x.name === lane);
  if (!l || v.lanes?.slots[l.name] === undefined || drawPending(v.settings)) return out;
  const { waiting: _w, ahead: _a, behind: _b, estimatedWaitSeconds: _e, ...rest } = out;
  const view: VisitorView = { ...rest, lane: l.name, position, positionExact: false };
  if (!v.settings.paused && !v.settings.healthPaused) {
    const pace = ctx.lineRate(v) * (l.share ?? 1);
    view.estimatedWaitSeconds = estimateWaitSeconds(ctx.now(), null, position, pace);
  }
  return view;
}
