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
  return Object.entries(slots).filter(([, slot]) => v.laneHeads?.has(slot)).map(([lane, slot]) => {
    const { head, next } = lineOf(v, firstSeq(slot));
    return {
      lane,
      waiting: head === null ? 0 : ctx.position(v, next) - 1,
      admitted: v.counts.laneAdmitted[slot] ?? 0,
    };
  });
}
