/**
 * Passthrough admissions: a room switched to `passthrough` (or the Safety Net while calm) lets
 * every visitor in at once with a signed access token, and counts each admission so that the
 * metrics and the traffic chart keep showing inflow and outflow, and the slots these visitors
 * hold (each until its token expires) stay known: `passedSlots` is what the Safety Net adds to
 * the engine's holding. Counted with KV `sum` in 15 s buckets, never a checked counter, and
 * summed in memory first (one write a second per instance, lib/access/hits.ts).
 */
import type { HitCounter } from "../access/hits.ts";
import { instanceMetrics } from "../metrics/instance.ts";
import { TRAFFIC_BUCKET_MS } from "../traffic.ts";
import { deleteListed } from "../store/delete.ts";
import { keys } from "../store/keys.ts";

/**
 * Counts one passthrough admission of `q` at `now` (a join and an admission in the traffic): summed
 * in memory by `hits` and written at most once a second, so a passthrough room costs no commit
 * per visitor. Readers that must see this instance's counts wait for `hits.idle()` first.
 */
export function countPassthrough(hits: HitCounter, q: string, now: number): void {
  const b = Math.floor(now / TRAFFIC_BUCKET_MS);
  instanceMetrics.roomAdmissions.inc([q, "passthrough"]);
  hits.add(keys.roomPassed(q, b));
  hits.add(keys.traffic(q, b, "in"));
  hits.add(keys.traffic(q, b, "out"));
}

/**
 * True when `ticket` is that of a passthrough (or allowlist) admission to `q` whose token still
 * holds its slot: the visitor joining again (a reload, `/wait` opened again) is not counted a
 * second time. One browser reloading ten times counted ten slots and ten arrivals, enough to
 * set off a Safety Net with nobody else there. Such tickets carry no arrival number and no
 * check-in time (a waiting place's ticket always has a check-in time).
 */
export function holdsPassthrough(
  ticket: { queue: string; seq: number; nextCheckAt: number; iat: number } | null,
  q: string,
  now: number,
  ttlSeconds: number,
): boolean {
  if (!ticket || ticket.queue !== q || ticket.seq !== 0 || ticket.nextCheckAt !== 0) return false;
  return now < (ticket.iat + ttlSeconds) * 1000;
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
