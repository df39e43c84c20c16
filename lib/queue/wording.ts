/**
 * One wording of the admission modes and the pre-queue, true to what the engine does, used by the
 * setup wizard, the Admission tab and the waiting page (the docs and openapi.yaml say the same).
 */

/** For operators: first come, first served. */
export const QUEUE_MODE_WORDS =
  "Queue: first come, first served; each visitor has a place in line.";

/** For operators: what lottery mode does. */
export const LOTTERY_MODE_WORDS =
  "Lottery: each admission picks one visitor at random among everyone waiting at that moment; " +
  "no places in line, and arriving earlier or later makes no difference.";

/** For operators: what the pre-queue does. */
export const PREQUEUE_WORDS =
  "Pre-queue: everyone who joins in the window before the opening time gets a random place at " +
  "the opening, ahead of everyone who arrives later (who queue first come, first served behind " +
  "them). The draw is published so anyone can check it.";

/** For visitors in lottery mode. */
export const LOTTERY_VISITOR_WORDS =
  "Each time a place opens, a random draw picks who goes in among everyone waiting at that " +
  "moment. There is no place in line: arriving earlier or later makes no difference.";

/** For visitors in a pre-queue before its draw. */
export const PREQUEUE_VISITOR_WORDS =
  "At the opening, everyone in the pre-queue gets a random place in line, ahead of everyone who " +
  "arrives later. When you joined the pre-queue makes no difference.";

/**
 * The lottery's wait as a range, from the mean (waiting over rate): each admission is a fresh
 * draw, so the wait is about exponential: half get in within ln 2 of the mean, nine in ten within
 * ln 10 of it (at the current pace; newcomers stretch it).
 */
export function lotteryWaitRange(meanSeconds: number): { half: number; most: number } {
  return { half: meanSeconds * Math.LN2, most: meanSeconds * Math.LN10 };
}
