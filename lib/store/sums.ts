/**
 * KV `sum` counters that writers add to without a check and a checked writer takes in later (the
 * enters and the joins not numbered yet, lib/queue/enters.ts and sequencer.ts): adding never
 * conflicts, so those writers never contend with the one that takes them in.
 */

/** What a pending sum holds, from its entry (0 when absent). */
export function pendingOf(e: Deno.KvEntryMaybe<Deno.KvU64>): number {
  const n = e.value?.value ?? 0n;
  // Never more than 2^63 in practice: a larger value is a sum taken in twice (not expected).
  return n < 1n << 63n ? Number(n) : 0;
}

/** Takes `n` off the `sum` at `key` in `op` by a wrapping add, so what was added meanwhile stays. */
export function takeIn(op: Deno.AtomicOperation, key: Deno.KvKey, n: number): void {
  if (n > 0) op.sum(key, (1n << 64n) - BigInt(n));
}
