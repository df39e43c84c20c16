/**
 * One wording of the admission modes and the pre-queue, true to what the engine does, used by the
 * setup wizard and the Admission tab (the docs and openapi.yaml say the same). The visitors'
 * wording of the same rules is in the message catalogues (lib/i18n/messages/).
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

/**
 * The lottery's wait as a range, from the mean (waiting over rate): each admission is a fresh
 * draw, so the wait is about exponential: half get in within ln 2 of the mean, nine in ten within
 * ln 10 of it (at the current pace; newcomers stretch it).
 */
export function lotteryWaitRange(meanSeconds: number): { half: number; most: number } {
  return { half: meanSeconds * Math.LN2, most: meanSeconds * Math.LN10 };
}
