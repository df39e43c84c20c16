/**
 * The pre-queue's rounds in the engine: the commitment published with the window's first write,
 * the window's arrival numbers closed with the first write after `opensAt`, the operator's
 * settings checked, and the waiting view before the draw (no position, no opening time).
 */
import { BadRequestError, DrawCommittedError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import type { QueueContext, QueueView } from "./context.ts";
import { commitmentOf, DRAW_SCHEME, hex } from "./draw_scheme.ts";
import { PREQUEUE_MAX_MINUTES, prequeuePhase } from "./prequeue_phase.ts";
import { estimateWaitSeconds } from "./timeslot.ts";
import type { Counts, QueueSettings, Visitor, VisitorView } from "./types.ts";

/** A queue's opening-draw record as stored (the seed lives apart until it is revealed). */
export interface DrawRecord {
  scheme: string;
  queue: string;
  /** The `opensAt` this draw is for (never published: it would tell the opening time early). */
  round: number;
  state: "committed" | "listed" | "done";
  commitment: string;
  committedAt: number;
  /** First arrival number of the window. */
  preFrom: number;
  cutoff?: number;
  reserved?: number;
  count?: number;
  listHash?: string;
  /** Stored list chunks (under the list's hash). */
  chunks?: number;
  seed?: string;
  listedAt?: number;
  drawnAt?: number;
  /** Waiters from before the window were still in line: vacated arrival numbers are logged. */
  legacy?: boolean;
}

/**
 * Opens a pre-queue round in `op`: a fresh secret seed, and its SHA-256 commitment in the draw
 * record and the counts (so every join of the window is answered with it).
 */
function openRound(
  ctx: QueueContext,
  q: string,
  op: Deno.AtomicOperation,
  round: number,
  counts: Counts,
  now: number,
): void {
  const seed = hex(ctx.random.bytes(32));
  const commitment = commitmentOf(seed);
  const rec: DrawRecord = {
    scheme: DRAW_SCHEME,
    queue: q,
    round,
    state: "committed",
    commitment,
    committedAt: now,
    preFrom: counts.nextSeq,
  };
  op.set(keys.drawSeed(q), { round, seed }).set(keys.draw(q), rec);
  Object.assign(counts, {
    preRound: round,
    preFrom: counts.nextSeq,
    preCommitment: commitment,
    preCutoff: 0,
    preReserved: 0,
  });
}

/**
 * Brings a round up to date in a counts write (a join batch's or the tick's): opens it (the
 * commitment) once the window is open, and at `opensAt` closes the window's arrival numbers,
 * keeping one number per waiter for the drawn places, so everyone who comes later queues behind
 * them. `refused` before the window (joins are refused then), `changed` when `counts` changed.
 */
export function settleRound(
  ctx: QueueContext,
  q: string,
  op: Deno.AtomicOperation,
  s: QueueSettings,
  counts: Counts,
  now: number,
): "refused" | "changed" | "same" {
  const phase = prequeuePhase(s, now);
  if (phase === "before") return "refused";
  if (phase !== "window" && phase !== "drawing") return "same";
  let changed: "changed" | "same" = "same";
  if (counts.preRound !== s.opensAt) {
    openRound(ctx, q, op, s.opensAt!, counts, now);
    changed = "changed";
  }
  if (phase === "drawing" && counts.preCutoff === 0) {
    counts.preCutoff = counts.nextSeq;
    counts.preReserved = counts.waiting;
    counts.nextSeq += counts.waiting;
    changed = "changed";
  }
  return changed;
}

/** Opens the round or closes its window in a write of its own (the tick's part). */
export async function settleRoundNow(ctx: QueueContext, q: string): Promise<void> {
  // Read without filling the view cache: a view loaded beside a tick could keep stale counts.
  const v = ctx.freshView(q) ?? await ctx.readState(q);
  if (!v.settings) return;
  const phase = prequeuePhase(v.settings, ctx.now());
  if (phase !== "window" && phase !== "drawing") return;
  if (v.counts.preRound === v.settings.opensAt && (phase === "window" || v.counts.preCutoff)) {
    return;
  }
  await ctx.serial(q, () =>
    retryCommit(async () => {
      const { counts, entry, settings, settingsEntry } = await ctx.readState(q);
      if (!settings) return true;
      const op = ctx.kv.atomic().check(entry, settingsEntry);
      if (settleRound(ctx, q, op, settings, counts, ctx.now()) !== "changed") return true;
      return (await op.set(keys.counts(q), counts).commit()).ok ? true : null;
    }, "pre-queue round"));
  ctx.invalidate(q);
}

/**
 * True while the opening draw may be moving this participant (past `opensAt`, draw not done):
 * then its record changes only by the draw, so check-ins answer without writing (see draw.ts).
 */
export function frozenForDraw(
  v: { settings: QueueSettings; counts: Counts },
  rec: Visitor,
  now: number,
): boolean {
  const c = v.counts;
  if (prequeuePhase(v.settings, now) !== "drawing" || c.preRound !== v.settings.opensAt) {
    return false;
  }
  const a = rec.arrival ?? rec.seq;
  return a >= c.preFrom && (c.preCutoff === 0 || a < c.preCutoff);
}

/** True when arrival number `seq` joined in the round's window and is not placed yet. */
function inWindow(c: Counts, seq: number): boolean {
  return seq >= c.preFrom && (c.preCutoff === 0 || seq < c.preCutoff);
}

/**
 * The waiting view while the opening draw is pending: no position (nobody has one yet); a
 * participant sees its arrival number and the commitment; the estimate is the expected wait after
 * the opening for a random place among the participants, ((n + 1) / 2) / rate, never the time
 * until the opening.
 */
export function pendingView(out: VisitorView, v: QueueView, seq: number, rate: number): void {
  const c = v.counts;
  const waiting = Math.max(1, c.waiting);
  out.drawPending = true;
  if (c.preRound === v.settings.opensAt && inWindow(c, seq)) {
    out.arrivalNumber = seq;
    out.drawCommitment = c.preCommitment;
    const n = c.preCutoff ? Math.min(waiting, c.preReserved) : waiting;
    out.estimatedWaitSeconds = estimateWaitSeconds(0, null, (n + 1) / 2, rate);
  } else {
    // Placed already, or came after the window: behind the draw's places at worst.
    out.estimatedWaitSeconds = estimateWaitSeconds(0, null, waiting, rate);
  }
}

/**
 * Checks a pre-queue or opening-time change against the round: a window needs a future
 * `opensAt` and 1 to 1440 minutes; once the commitment is out (window open, draw not done) the
 * opening time and the window are fixed, so the published record stays true.
 */
export function checkPrequeueChange(
  cur: QueueSettings,
  next: Pick<QueueSettings, "opensAt" | "prequeueMinutes">,
  now: number,
): void {
  const phase = prequeuePhase(cur, now);
  const changes = next.opensAt !== cur.opensAt || next.prequeueMinutes !== cur.prequeueMinutes;
  if (changes && (phase === "window" || phase === "drawing")) {
    throw new DrawCommittedError(
      "the pre-queue window is open and its draw's commitment is published: the opening time " +
        "and the pre-queue stay as they are until the draw at the opening time is done " +
        "(pausing still holds admissions after it)",
    );
  }
  const m = next.prequeueMinutes;
  if (m === null) return;
  if (!Number.isInteger(m) || m < 1 || m > PREQUEUE_MAX_MINUTES) {
    throw new BadRequestError(
      `windowMinutes must be a whole number from 1 to ${PREQUEUE_MAX_MINUTES} (24 hours), not ${m}`,
      { fields: [{ path: "windowMinutes", message: `1 to ${PREQUEUE_MAX_MINUTES}` }] },
    );
  }
  if (next.opensAt === null) {
    throw new BadRequestError(
      "a pre-queue needs an opening time: set opensAt first, or turn the pre-queue off",
      { fields: [{ path: "opensAt", message: "required while the pre-queue is on" }] },
    );
  }
  if (next.opensAt <= now && next.opensAt !== cur.drawnFor) {
    throw new BadRequestError(
      "the opening time of a pre-queue must be in the future (its draw runs at that time)",
      { fields: [{ path: "opensAt", message: "must be in the future" }] },
    );
  }
}
