/**
 * Passthrough admissions: a room switched to `passthrough` (or the Safety Net while calm) lets
 * every visitor in at once with a signed access token, and counts each admission so that the
 * metrics and the traffic chart keep showing inflow and outflow, and the slots these visitors
 * hold (each until its token expires) stay known: `passedSlots` is what the Safety Net adds to
 * the engine's holding. Counted with KV `sum` in 15 s buckets, never a checked counter.
 */
import { instanceMetrics } from "../metrics/instance.ts";
import { TRAFFIC_BUCKET_MS } from "../queue/records.ts";
import { deleteListed } from "../store/delete.ts";
import { keys } from "../store/keys.ts";

const ONE = new Deno.KvU64(1n);

/** Counts one passthrough admission of `q` at `now` (a join and an admission in the traffic). */
export async function countPassthrough(kv: Deno.Kv, q: string, now: number): Promise<void> {
  const b = Math.floor(now / TRAFFIC_BUCKET_MS);
  instanceMetrics.roomAdmissions.inc([q, "passthrough"]);
  await kv.atomic()
    .sum(keys.roomPassed(q, b), ONE.value)
    .sum(keys.traffic(q, b, "in"), ONE.value)
    .sum(keys.traffic(q, b, "out"), ONE.value)
    .commit();
}

/**
 * Slots held by passthrough visitors of `q`: those admitted within the last `ttlSeconds` (their
 * tokens' lifetime). Buckets older than twice that are deleted on the way.
 */
export async function passedSlots(
  kv: Deno.Kv,
  q: string,
  now: number,
  ttlSeconds: number,
): Promise<number> {
  const last = Math.floor(now / TRAFFIC_BUCKET_MS);
  const first = Math.floor((now - ttlSeconds * 1000) / TRAFFIC_BUCKET_MS);
  const prefix = keys.roomPassedPrefix(q);
  let n = 0;
  for await (
    const e of kv.list<Deno.KvU64>({ start: [...prefix, first], end: [...prefix, last + 1] })
  ) {
    if (e.value instanceof Deno.KvU64) n += Number(e.value.value);
  }
  const stale = Math.floor((now - 2 * ttlSeconds * 1000) / TRAFFIC_BUCKET_MS);
  await deleteListed(kv, { start: [...prefix, 0], end: [...prefix, stale] }, { limit: 100 });
  return n;
}
