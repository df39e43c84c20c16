/**
 * The session counters of a queue: renewals, and how sessions ended (released by the site, idle,
 * at the hard cap, or at the token's expiry as in fixed mode), with their total length for the
 * average. Every count is a KV `sum` in the write that did the thing, so counting never conflicts
 * and never costs a write of its own. `noteSessionEnd` is the tick's part: it counts the sessions
 * whose slot the tick frees.
 */
import { keys } from "../store/keys.ts";
import type { Visitor } from "../queue/types.ts";
import { readSessionSettings } from "./settings.ts";

/** Counter names as stored. */
export type SessionStat =
  | "renewed"
  | "released"
  | "idle"
  | "cap"
  | "expired"
  | "lengthMs"
  | "lengthCount";

/** The session figures of a queue, as `/metrics` shows them. */
export interface SessionMetrics {
  sessionMode: "fixed" | "sliding";
  sessionsRenewed: number;
  sessionsReleased: number;
  sessionsEndedIdle: number;
  sessionsEndedCap: number;
  sessionsExpired: number;
  /** Mean length of the sessions ended so far (admission to end), in seconds; 0 when none. */
  averageSessionSeconds: number;
}

/** Adds `n` to counter `name` of `q` in `op`. */
export function countSession(
  op: Deno.AtomicOperation,
  q: string,
  name: SessionStat,
  n = 1,
): void {
  if (n > 0) op.sum(keys.sessionStat(q, name), BigInt(Math.round(n)));
}

/** Counts an ended session of `lengthMs` (admission to end) as `how`. */
export function countEnded(
  op: Deno.AtomicOperation,
  q: string,
  how: "released" | "idle" | "cap" | "expired",
  lengthMs: number,
): void {
  countSession(op, q, how);
  countSession(op, q, "lengthMs", Math.max(0, lengthMs));
  countSession(op, q, "lengthCount");
}

/**
 * For the admission tick, where it frees the slot of an entered visitor whose `until` passed
 * (lib/queue/admit.ts, `expireInto`, beside `releaseSlot`): counts how that session ended, in the
 * tick's own atomic op. A session a renewal wrote (`seenAt`) ended idle or at its cap; any other
 * ran to its token's expiry.
 */
export function noteSessionEnd(op: Deno.AtomicOperation, q: string, v: Visitor): void {
  if (v.state !== "entered" || v.until === undefined) return;
  const how = v.seenAt === undefined
    ? "expired"
    : v.capAt !== undefined && v.until >= v.capAt
    ? "cap"
    : "idle";
  countEnded(op, q, how, v.until - (v.admittedAt ?? v.enteredAt ?? v.until));
}

/** Reads the counters of `q`. */
export async function readSessionStats(
  kv: Deno.Kv,
  q: string,
): Promise<Record<SessionStat, number>> {
  const out: Record<SessionStat, number> = {
    renewed: 0,
    released: 0,
    idle: 0,
    cap: 0,
    expired: 0,
    lengthMs: 0,
    lengthCount: 0,
  };
  for await (const e of kv.list<Deno.KvU64>({ prefix: keys.sessionStatPrefix(q) })) {
    const name = e.key[2] as SessionStat;
    if (name in out) out[name] = Number(e.value.value);
  }
  return out;
}

/** The figures `/metrics` shows for `q`. */
export async function sessionMetrics(kv: Deno.Kv, q: string): Promise<SessionMetrics> {
  const [c, s] = await Promise.all([readSessionStats(kv, q), readSessionSettings(kv, q)]);
  return {
    sessionMode: s.sessionMode,
    sessionsRenewed: c.renewed,
    sessionsReleased: c.released,
    sessionsEndedIdle: c.idle,
    sessionsEndedCap: c.cap,
    sessionsExpired: c.expired,
    averageSessionSeconds: c.lengthCount ? Math.round(c.lengthMs / c.lengthCount / 100) / 10 : 0,
  };
}

/** A queue's metrics with its session figures added as `sessions`. */
export async function withSessionMetrics<T extends { queue: string }>(
  kv: Deno.Kv,
  m: T,
): Promise<T & { sessions: SessionMetrics }> {
  return { ...m, sessions: await sessionMetrics(kv, m.queue) };
}
