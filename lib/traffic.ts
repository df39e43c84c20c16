/**
 * Traffic history (~15 s buckets, ~24 h retention): the engine sums joins ("in") and
 * admissions ("out") per bucket with KV `sum` in its commits (`countTraffic`); this also reads
 * them back with empty buckets filled in, exports CSV, and prunes what is past retention.
 *
 * @example
 * const rows = await readTraffic(kv, "default", clock.now(), 3600_000);
 * const csv = trafficCsv(rows); // "at,iso,inflow,outflow\n1767225600000,2026-01-01T00:00:00.000Z,3,1\n..."
 */
import { deleteListed } from "./store/delete.ts";
import { keys } from "./store/keys.ts";

/** Size of one traffic bucket (about 15 s). */
export const TRAFFIC_BUCKET_MS = 15_000;

/** Default and largest window of the history. */
export const TRAFFIC_WINDOW_MS = 24 * 3600_000;
/**
 * Buckets older than this are deleted by `pruneTraffic`. KV `sum` cannot carry `expireIn`
 * (a sum even drops the expiry of a key set with one), so retention is an explicit sweep.
 */
export const TRAFFIC_RETENTION_MS = 25 * 3600_000;

/** Counts inflow (joins) or outflow (admissions) in the current traffic bucket, in `op`. */
export function countTraffic(
  op: Deno.AtomicOperation,
  q: string,
  now: number,
  dir: "in" | "out",
  n: number,
): void {
  if (n > 0) op.sum(keys.traffic(q, Math.floor(now / TRAFFIC_BUCKET_MS), dir), BigInt(n));
}

/** One bucket: its start (unix ms) and how many joined and were admitted in it. */
export interface TrafficRow {
  at: number;
  inflow: number;
  outflow: number;
}

/** Every bucket of the `windowMs` ending with the current one, oldest first, zeros filled in. */
export async function readTraffic(
  kv: Deno.Kv,
  queue: string,
  nowMs: number,
  windowMs: number = TRAFFIC_WINDOW_MS,
): Promise<TrafficRow[]> {
  const last = Math.floor(nowMs / TRAFFIC_BUCKET_MS);
  const count = Math.max(1, Math.ceil(windowMs / TRAFFIC_BUCKET_MS));
  const first = last - count + 1;
  const rows: TrafficRow[] = [];
  for (let b = first; b <= last; b++) {
    rows.push({ at: b * TRAFFIC_BUCKET_MS, inflow: 0, outflow: 0 });
  }
  const prefix = keys.trafficPrefix(queue);
  const iter = kv.list<Deno.KvU64>({ start: [...prefix, first], end: [...prefix, last + 1] });
  for await (const e of iter) {
    const row = rows[(e.key[2] as number) - first];
    if (!row || !(e.value instanceof Deno.KvU64)) continue;
    const n = Number(e.value.value);
    if (e.key[3] === "in") row.inflow = n;
    else if (e.key[3] === "out") row.outflow = n;
  }
  return rows;
}

/** The rows as CSV with a header line: `at,iso,inflow,outflow`. */
export function trafficCsv(rows: TrafficRow[]): string {
  const lines = ["at,iso,inflow,outflow"];
  for (const r of rows) {
    lines.push(`${r.at},${new Date(r.at).toISOString()},${r.inflow},${r.outflow}`);
  }
  return lines.join("\n") + "\n";
}

/** Deletes buckets of `queue` older than the retention; returns how many keys went. */
export async function pruneTraffic(kv: Deno.Kv, queue: string, nowMs: number): Promise<number> {
  const prefix = keys.trafficPrefix(queue);
  const cutoff = Math.floor((nowMs - TRAFFIC_RETENTION_MS) / TRAFFIC_BUCKET_MS);
  return await deleteListed(kv, { start: prefix, end: [...prefix, cutoff] });
}
