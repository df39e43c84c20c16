import type { QueueContext, QueueView } from "./context.ts";
import { estimateWaitSeconds, periodSeconds } from "./timeslot.ts";
import type { Branding } from "../branding.ts";
import type { QueueSettings, Visitor, VisitorView } from "./types.ts";
import { pendingView } from "./prequeue.ts";
import { drawPending } from "./prequeue_phase.ts";
import type { Lane } from "../priority/lanes.ts";
import { slotOf } from "../priority/line.ts";

/** When admissions may start: now or the opening time; null while paused (no prediction). */
export function admissionStart(s: QueueSettings, now: number): number | null {
  if (s.paused || s.healthPaused) return null;
  return s.opensAt !== null && s.opensAt > now ? s.opensAt : now;
}

/** What the lottery odds depend on: a queue's settings and counts. */
type QueueState = Pick<QueueView, "settings" | "counts">;

/** True when the lottery is decided by direct draws at the tick: the whole line gets in within a period. */
export function lotteryDrawsAtTick(ctx: QueueContext, v: QueueState): boolean {
  const w = v.counts.waiting;
  return w <= 1000 || w <= ctx.lineRate(v) * periodSeconds(w);
}

/**
 * A waiter's chance to be drawn within one check-in period: the draw probability of a due
 * check-in for long lines, and the same share (admissions per period over waiters) when the tick
 * draws directly, so a short line does not show a certainty it does not have. Shown as
 * `lotteryOdds`.
 */
export function lotteryOdds(ctx: QueueContext, v: QueueState): number {
  const w = Math.max(1, v.counts.waiting);
  const checkinsPerSecond = w / (ctx.periodMs(w) / 1000);
  return Math.min(1, ctx.lineRate(v) / checkinsPerSecond);
}

/** The public view of a waiting visitor (never pause, health, opensAt or capacity). */
export function waitingView(
  ctx: QueueContext,
  q: string,
  id: string,
  seq: number,
  nextCheck: number,
  v: QueueView,
  branding: Branding,
): VisitorView {
  const now = ctx.now();
  const s = v.settings;
  const rate = ctx.lineRate(v);
  const out: VisitorView = {
    queue: q,
    visitorId: id,
    status: "waiting",
    admissionMode: s.mode,
    nextCheckAt: nextCheck,
    nextPollAfterMs: Math.max(0, nextCheck - now),
  };
  const waiting = Math.max(1, v.counts.waiting);
  // Estimates count from the opening, never to it: adding the time until `opensAt` would let a
  // visitor work the opening time out.
  if (drawPending(s)) {
    pendingView(out, v, seq, rate);
    if (branding.showWaitingCount) out.waiting = waiting;
    return out;
  }
  // A paused line moves at no pace: no estimate (the pause itself stays unsaid to visitors).
  const moving = !s.paused && !s.healthPaused;
  const lane = laneOf(v, seq);
  if (lane) {
    // A priority lane: its own line, its own pace (its share of the rate, or all of it).
    out.lane = lane.name;
    const position = ctx.position(v, seq);
    const pace = rate * (lane.share ?? 1);
    if (moving) out.estimatedWaitSeconds = estimateWaitSeconds(now, null, position, pace);
    out.position = position;
  } else if (s.mode === "queue") {
    if (branding.showWaitingCount) out.waiting = waiting;
    withPosition(ctx, out, v, Math.min(ctx.position(v, seq), waiting));
  } else {
    if (moving) out.estimatedWaitSeconds = estimateWaitSeconds(now, null, waiting, rate);
    if (branding.showWaitingCount) {
      out.waiting = waiting;
      out.lotteryOdds = Math.round(lotteryOdds(ctx, v) * 1e4) / 1e4;
    }
  }
  return out;
}

/** The priority lane arrival number `seq` is in by `v` (its slot's name and share); null: main. */
function laneOf(v: QueueView, seq: number): Lane | null {
  const slot = slotOf(seq);
  if (slot === 0 || !v.lanes) return null;
  const name = Object.entries(v.lanes.slots).find(([, s]) => s === slot)?.[0];
  if (name === undefined) return null;
  return v.lanes.lanes.find((l) => l.name === name) ?? { name, share: 0.01 };
}

/** The public view of an admitted or entered visitor. */
export async function admittedView(
  ctx: QueueContext,
  q: string,
  rec: Visitor,
): Promise<VisitorView> {
  if (rec.state === "entered") {
    const iat = Math.floor(rec.enteredAt! / 1000);
    const exp = iat + ctx.config.ACCESS_TOKEN_TTL_SECONDS;
    const accessToken = await ctx.signer.sign({ sub: rec.id, queue: q, iat, exp });
    return { queue: q, visitorId: rec.id, status: "admitted", entered: true, accessToken };
  }
  return { queue: q, visitorId: rec.id, status: "admitted", entered: false, enterBy: rec.until };
}

/**
 * Sets a waiting view's place to `position` (queue mode): the estimate that place has while the
 * line moves, and, where the branding shows the line, the waiters ahead and behind.
 */
export function withPosition(
  ctx: QueueContext,
  out: VisitorView,
  v: QueueView,
  position: number,
): VisitorView {
  if (v.settings.mode !== "queue" || drawPending(v.settings)) return out;
  const waiting = Math.max(v.counts.waiting, position);
  out.position = position;
  // A paused line moves at no pace: no estimate (the pause itself stays unsaid to visitors).
  if (!v.settings.paused && !v.settings.healthPaused) {
    out.estimatedWaitSeconds = estimateWaitSeconds(ctx.now(), null, position, ctx.lineRate(v));
  }
  // Where the branding shows the line (the view has its length).
  if (out.waiting !== undefined) {
    Object.assign(out, { ahead: position - 1, behind: waiting - position, waiting });
  }
  return out;
}

/**
 * The view of a join the sequencer has not numbered yet: its place estimated (`positionExact`
 * false) from the line as last read and this instance's joins since; exact from the next tick.
 */
export function provisionalView(
  ctx: QueueContext,
  q: string,
  rec: Pick<Visitor, "id" | "nextCheckAt">,
  v: QueueView,
  position: number,
  branding: Branding,
): VisitorView {
  const out = waitingView(ctx, q, rec.id, v.counts.nextSeq, rec.nextCheckAt, v, branding);
  // Its arrival number is the sequencer's to give (the next one as read was every join's).
  delete out.arrivalNumber;
  withPosition(ctx, out, v, position);
  // The line as read before this join, which it is in (a lottery answer has no position to show).
  if (out.waiting !== undefined) out.waiting = Math.max(out.waiting, position);
  if (v.settings.mode === "queue" && !drawPending(v.settings)) out.positionExact = false;
  return out;
}
