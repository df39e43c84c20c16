/**
 * Timeslots: when each waiting visitor checks in next, so that status traffic stays near a
 * fixed budget (SPEC 8) while visitors near the front learn of admission within about 5 s.
 */

/** Status requests per second the whole line may produce. */
export const STATUS_BUDGET_PER_SECOND = 750;
/** Check-in period of front-of-line waiters, in seconds. */
export const FRONT_PERIOD_SECONDS = 5;

/** `periodSec = max(5, ceil(waiting / 750))` (SPEC 8). */
export function periodSeconds(waiting: number): number {
  return Math.max(FRONT_PERIOD_SECONDS, Math.ceil(waiting / STATUS_BUDGET_PER_SECOND));
}

/**
 * The next whole second after `nowMs` that belongs to arrival number `seq`: second `t` with
 * `t mod period == seq mod period`. Consecutive arrival numbers fill consecutive seconds, so each
 * second of a period gets `waiting / period` check-ins at most (rounded up).
 */
export function slotTime(seq: number, nowMs: number, period: number): number {
  const nowSec = Math.floor(nowMs / 1000);
  const want = ((seq % period) + period) % period;
  let t = nowSec + 1;
  t += (want - (t % period) + period) % period;
  return t * 1000;
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
  seq: number;
  nowMs: number;
  waiting: number;
  /** 1-based FIFO position; omitted in lottery mode (no prediction). */
  position?: number;
  /** Effective admissions per second. */
  rate: number;
  /** When admissions may start (opening time), unix ms; null when paused (no prediction). */
  startMs: number | null;
  /** Fixed poll interval override (`WAITING_ROOM_POLL_INTERVAL_MS`). */
  fixedPollMs?: number;
}

/**
 * Next check-in (unix ms, second-aligned): the visitor's slot in the period, or earlier when
 * its admission is predicted before that, but never sooner than 5 s ahead once near the front.
 */
export function nextCheckAt(s: ScheduleInput): number {
  const nowSec = Math.floor(s.nowMs / 1000);
  if (s.fixedPollMs) return (nowSec + Math.max(1, Math.ceil(s.fixedPollMs / 1000))) * 1000;
  const period = periodSeconds(s.waiting);
  const slot = slotTime(s.seq, s.nowMs, period);
  if (s.position === undefined || s.startMs === null) return slot;
  const predictedSec = Math.max(s.startMs, s.nowMs) / 1000 + s.position / s.rate;
  const front = Math.max(nowSec + FRONT_PERIOD_SECONDS, Math.ceil(predictedSec));
  return Math.min(slot, front * 1000);
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
