/**
 * Timeslots: when each waiting visitor checks in next, so that status traffic stays near a
 * fixed budget while visitors near the front learn of admission within about 5 s.
 */

/** Status requests per second the whole line may produce. */
export const STATUS_BUDGET_PER_SECOND = 750;
/** Check-in period of front-of-line waiters, in seconds. */
export const FRONT_PERIOD_SECONDS = 5;

/**
 * Check-ins per second that bulk placements (newcomers and ordinary renewals) may fill while
 * front-of-line check-ins exist (queue mode): the budget less a reserve for those, which come on
 * top of the bulk at about one or two per admission (`CheckinLedger.reserveBefore` may fill a second
 * up to the whole budget). The reserve is twice the admission rate, at least 20 and at most 150 a
 * second: 730 at the default 10/s. (Without a prediction, in lottery mode, the bulk fills the
 * whole budget.)
 */
export function bulkLimit(rate: number): number {
  const reserve = Math.min(150, Math.max(20, Math.ceil(2 * rate)));
  return STATUS_BUDGET_PER_SECOND - reserve;
}

/** `periodSec = max(5, ceil(waiting / 750))`. */
export function periodSeconds(waiting: number): number {
  return Math.max(FRONT_PERIOD_SECONDS, Math.ceil(waiting / STATUS_BUDGET_PER_SECOND));
}

/**
 * Admissions per second the line really gets: the rate budget, or, when every slot is taken,
 * the rate at which slots free up (capacity over the token lifetime).
 */
export function effectiveRate(
  rate: number,
  capacity: number,
  tokenTtlSeconds: number,
  waiting: number,
  openSlots: number,
): number {
  if (waiting <= openSlots) return rate;
  return Math.max(0.001, Math.min(rate, capacity / tokenTtlSeconds));
}

/** Inputs of a waiter's schedule. */
export interface ScheduleInput {
  nowMs: number;
  waiting: number;
  /** 1-based FIFO position; omitted in lottery mode (no prediction). */
  position?: number;
  /** Effective admissions per second. */
  rate: number;
  /** A newcomer's first check-in, or a renewal at a due check-in. */
  kind: "join" | "renew";
  /**
   * No prediction yet, but a front to come (a pre-queue before its draw): fill seconds only to
   * the bulk mark, leaving the rest of the budget to the drawn front's check-ins after the draw.
   */
  frontToCome?: boolean;
}

/**
 * The window of seconds a check-in is placed in: a newcomer takes the first second with room
 * from the next one on; a renewal comes back one period later (or at the first second with room
 * after that), so every waiter checks in about once a period.
 */
export function checkWindow(s: ScheduleInput): [number, number] {
  const nowSec = Math.floor(s.nowMs / 1000);
  const period = periodSeconds(s.waiting);
  const from = s.kind === "join" ? nowSec + 1 : nowSec + period;
  return [from, nowSec + 2 * period];
}

/**
 * The second a front-of-line waiter should check in instead (queue mode): the second after the
 * one its admission is predicted in, but never sooner than 5 s ahead; null without a prediction.
 * The tick of a second starts with its first request, so a check-in in the predicted second itself
 * would often be answered before that tick commits and learn of the admission only 5 s later.
 * Predicted from now even while paused or before the opening: the front keeps its 5 s cadence and
 * nothing in the schedule gives the silent pause or the opening time away.
 */
export function frontCheckSec(s: ScheduleInput): number | null {
  if (s.position === undefined) return null;
  const nowSec = Math.floor(s.nowMs / 1000);
  const predictedSec = s.nowMs / 1000 + s.position / s.rate;
  return Math.max(nowSec + FRONT_PERIOD_SECONDS, Math.ceil(predictedSec) + 1);
}

/** Deadline after which a waiter that has not checked in is dropped: two periods plus 30 s. */
export function livenessDeadline(nextCheck: number, periodMs: number): number {
  return nextCheck + 2 * periodMs + 30_000;
}

/**
 * Estimated wait in seconds: time until opening, plus the visitor's place (queue mode) or the
 * whole line (lottery: the mean of a uniform draw) over the effective rate.
 */
export function estimateWaitSeconds(
  nowMs: number,
  startMs: number | null,
  ahead: number,
  rate: number,
): number {
  const delay = startMs !== null && startMs > nowMs ? (startMs - nowMs) / 1000 : 0;
  return Math.max(0, Math.round(delay + ahead / rate));
}
