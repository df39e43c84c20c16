/**
 * Refused joins by cause, per queue and minute, for the operator's last-hour view and `/metrics`.
 * Counted through a `HitCounter` (summed in memory, written at most once a second), so a flood of
 * refusals is one write a second per instance, never one per refused request.
 */
import { keys } from "../store/keys.ts";
import type { HitCounter } from "./hits.ts";

/** Why a join was refused (the abuse controls add their own causes here). */
export type RefusalCause = "client_limit";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Counts one refused join of `q` for `cause` at `now`. */
export function countRefusal(hits: HitCounter, q: string, cause: string, now: number): void {
  hits.add(keys.refusals(q, cause, Math.floor(now / MINUTE) * MINUTE));
}

/**
 * Refusals of `q` in the last hour by cause (waits for this instance's pending counts); buckets
 * older than the hour are deleted on the way, so the stats never grow past an hour of minutes.
 */
export async function refusalsLastHour(
  kv: Deno.Kv,
  hits: HitCounter,
  q: string,
  now: number,
): Promise<Record<string, number>> {
  await hits.idle();
  const out: Record<string, number> = {};
  const old: Deno.KvKey[] = [];
  for await (const e of kv.list<Deno.KvU64>({ prefix: keys.refusalsPrefix(q) })) {
    const [cause, minute] = [String(e.key[3]), Number(e.key[4])];
    if (minute <= now - HOUR) old.push(e.key);
    else out[cause] = (out[cause] ?? 0) + Number(e.value.value);
  }
  for (let i = 0; i < old.length; i += 500) {
    const op = kv.atomic();
    for (const k of old.slice(i, i + 500)) op.delete(k);
    await op.commit();
  }
  return out;
}
