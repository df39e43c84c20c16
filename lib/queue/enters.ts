/**
 * Enters (an admitted visitor taking its slot: holding -> entered) leave `holding + entered`, the
 * slots in use, as it was: so they do not write the checked counts record but add to a `sum` of
 * their own (`keys.entersPending`), which writers of the counts take in when they commit anyway
 * (the tick, a leave, the doctor's repair). Written into the counts, they contended with the tick:
 * at 50 instances and 100 ms a commit, whole seconds went without a tick (bench/scale_sim.ts).
 */
import { keys } from "../store/keys.ts";
import { takeIn } from "../store/sums.ts";
import type { Counts } from "./types.ts";

/** Counts with `pending` enters taken in: what they are, for display and recounts. */
export function withEnters(c: Counts, pending: number): Counts {
  return pending === 0 ? c : { ...c, holding: c.holding - pending, entered: c.entered + pending };
}

/** Takes `n` enters (read in the same snapshot as the counts `c` that `op` checks) into `c`. */
export function takeInEnters(op: Deno.AtomicOperation, q: string, c: Counts, n: number): void {
  if (n <= 0) return;
  c.holding -= n;
  c.entered += n;
  takeIn(op, keys.entersPending(q), n);
}

/** Adds `n` enters to the sum in `op`. */
export function addEnters(op: Deno.AtomicOperation, q: string, n: number): void {
  if (n > 0) op.sum(keys.entersPending(q), BigInt(n));
}
