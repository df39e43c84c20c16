/**
 * Where each line of a queue keeps its arrival numbers: the main line from 1, each priority lane
 * in a range of its own (lane slot `s` from `s * LINE_SPAN + 1`). So one line index, one gone log
 * and one ticket claim serve every line: a lane's positions are exact by the same arithmetic as
 * the main line's (arrival number less the line's head, less those gone between), counted only
 * within the lane, and a key range lists one line alone.
 *
 * @example
 * slotOf(7); // 0: the main line
 * slotOf(firstSeq(2) + 5); // 2
 */

/** Arrival numbers one line may hand out (2^40); 1,002 lines stay below 2^53. */
export const LINE_SPAN = 2 ** 40;
/** Highest lane slot (slot 0 is the main line). */
export const MAX_SLOT = 1000;

/** The line (0: main, else a lane slot) arrival number `seq` belongs to. */
export function slotOf(seq: number): number {
  return Math.floor(seq / LINE_SPAN);
}

/** The first arrival number of line `slot`. */
export function firstSeq(slot: number): number {
  return slot * LINE_SPAN + 1;
}

/**
 * The line of visitors whose turn came while they were away (admitted, never told, within their
 * grace): served before every other line when they come back (lib/queue/records.ts,
 * `returnToLine`). Above every lane slot.
 */
export const RETURN_SLOT = MAX_SLOT + 1;

/** Adds `n` to lane slot `slot`'s admissions in `c` (its `laneAdmitted` replaced), never below 0. */
export function addLaneAdmitted(
  c: { laneAdmitted: Record<string, number> },
  slot: number,
  n: number,
) {
  const was = c.laneAdmitted[slot] ?? 0;
  if (n !== 0 && was + n >= 0) c.laneAdmitted = { ...c.laneAdmitted, [slot]: was + n };
}

/** Takes the next arrival number of lane slot `slot` from `c` (its `laneNext` replaced). */
export function takeSeq(c: { laneNext: Record<string, number> }, slot: number): number {
  const seq = c.laneNext[slot] ?? firstSeq(slot);
  c.laneNext = { ...c.laneNext, [slot]: seq + 1 };
  return seq;
}
