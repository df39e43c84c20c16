/**
 * Enters (an admitted visitor taking its slot: holding -> entered) leave `holding + entered`, the
 * slots in use, as it was: so they do not write the checked counts record but add to a `sum` of
 * their own (`keys.entersPending`), which writers of the counts take in when they commit anyway
 * (the tick, a leave, the doctor's repair). Written into the counts, they contended with the tick:
 * at 50 instances and 100 ms a commit, whole seconds went without a tick (bench/scale_sim.ts).
 */
import { keys } from "../store/keys.ts";
import type { Counts } from "./types.ts";

/** Enters not taken into the counts yet, from the sum's entry (0 when absent). */
export function pendingOf(e: Deno.KvEntryMaybe<Deno.KvU64>): number {
  const n = e.value?.value ?? 0n;
  // Never more than 2^63 in practice: a larger value is a sum taken in twice (not expected).
  return n < 1n << 63n ? Number(n) : 0;
}

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

/**
 * Takes `n` off the `sum` at `key` in `op` by a wrapping add, so what was added meanwhile stays.
 * The enters (above) and the joins not numbered yet (sequencer.ts) are such sums.
 */
export function takeIn(op: Deno.AtomicOperation, key: Deno.KvKey, n: number): void {
  if (n > 0) op.sum(key, (1n << 64n) - BigInt(n));
}

/** Adds `n` enters to the sum in `op`. */
export function addEnters(op: Deno.AtomicOperation, q: string, n: number): void {
  if (n > 0) op.sum(keys.entersPending(q), BigInt(n));
}
