import { keys } from "../store/keys.ts";
import type { QueueContext, QueueView } from "./context.ts";
import type { DrawRecord } from "./prequeue.ts";
import { type PrequeuePhase, prequeuePhase } from "./prequeue_phase.ts";

/** The pre-queue part of a queue's operator metrics. */
export interface PrequeueMetrics {
  enabled: boolean;
  windowMinutes: number | null;
  phase: PrequeuePhase;
  /** Waiting from the window (live before the draw), or the drawn list's size after it. */
  participants: number;
  /** The current round's commitment, once its window opened. */
  commitment: string | null;
  /** Revealed with the list at the opening time. */
  seed: string | null;
  drawnAt: number | null;
  /** Whether the operator published the draw record (`GET /draw`). */
  published: boolean;
}

/** Reads the pre-queue metrics of `q` (one read of the draw record when there is one). */
export async function prequeueMetrics(
  ctx: QueueContext,
  q: string,
  v: QueueView,
  now: number,
): Promise<PrequeueMetrics> {
  const s = v.settings, c = v.counts;
  const [rec, pub] = await ctx.kv.getMany<[DrawRecord, boolean]>([
    keys.draw(q),
    keys.drawPublished(q),
  ]);
  const phase = prequeuePhase(s, now);
  const r = rec.value;
  // The latest record stays shown after the pre-queue is turned off (it is still published).
  const current = r && (phase === "off" || r.round === s.opensAt) ? r : null;
  let participants = 0;
  if (current?.count !== undefined) participants = current.count;
  else if (phase === "window" || phase === "drawing") {
    participants = c.preCutoff ? Math.min(c.waiting, c.preReserved) : c.waiting;
  }
  return {
    enabled: s.prequeueMinutes !== null,
    windowMinutes: s.prequeueMinutes,
    phase,
    participants,
    commitment: current?.commitment ?? null,
    seed: current?.seed ?? null,
    drawnAt: current?.drawnAt ?? null,
    published: pub.value === true,
  };
}
