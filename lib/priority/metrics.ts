/**
 * Each priority lane's figures for the operator metrics (`QueueMetrics.lanes`, the Prometheus
 * `tollgate_queue_lane_*` series): how many wait in its line, counted from the view every instance
 * reads once a second (its head and the gone log, like any position), and how many it admitted.
 */
import { lineOf, type QueueContext, type QueueView } from "../queue/context.ts";
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
