/** Join turns written into a queue's counts by hand, for tests (see lib/queue/join_turn.ts). */
import { type Counts, EMPTY_COUNTS } from "../lib/queue/types.ts";

/** The turn fields of counts: instance `by` holds the join turn from now, for `ms` (real time). */
export function turnOf(by: string, ms: number): Pick<Counts, "turnBy" | "turnSince" | "turnUntil"> {
  const now = Date.now();
  return { turnBy: by, turnSince: now, turnUntil: now + ms };
}

/** Counts of an empty queue, written by this release (`logSince`), whose turn `by` holds for `ms`. */
export function heldBy(by: string, ms: number): Counts {
  return { ...EMPTY_COUNTS, logSince: 1, ...turnOf(by, ms) };
}
