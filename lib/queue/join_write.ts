/**
 * The write of a join: the visitor's own records only (its record, its arrival entry, its
 * deadline entry, and `sum` counters), so joins from any number of instances never conflict and
 * the sequencer numbers them into the line at the next tick (see sequencer.ts). Joins that come
 * while commits are in flight share the next one (batches.ts).
 */
import { UnauthorizedError } from "../errors.ts";
import { instanceMetrics } from "../metrics/instance.ts";
import { annotateSpan } from "../metrics/tracing.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { sumCheckins } from "./checkins.ts";
import type { QueueContext } from "./context.ts";
import { countTraffic } from "../traffic.ts";
import { GroupCommits } from "./batches.ts";
import type { Visitor } from "./types.ts";

/**
 * A record a join adds to its commit, written only while its key is as expected (absent, or at
 * `expect`): a spent proof-of-work solution, the place an enqueue key holds.
 */
export interface JoinRecord {
  key: Deno.KvKey;
  value: unknown;
  /** The versionstamp the key must still have; null or absent: the key must not exist. */
  expect?: string | null;
  expireIn?: number;
  /** The refusal when the key changed meanwhile (a replayed solution, a key taken). */
  conflict: () => Error;
}

/** A join's own keys: its queue, its id and what its guards add. */
export interface JoinOwn {
  q: string;
  id: string;
  /** The id came from the client: checked to be free (a generated one is 128 random bits). */
  supplied: boolean;
  records: JoinRecord[];
}

/** A join's records to write: its own keys, the visitor (with its arrival key) and the check-in. */
export interface JoinWrite extends JoinOwn {
  visitor: Visitor;
  /** The check-in second reserved in the ledger, or null. */
  checkin: number | null;
}

type Pending = JoinWrite & { resolve: (vs: string) => void; reject: (e: unknown) => void };

/**
 * A join commit under way at a store deadline its process saw late (it stalled) answers with its
 * own outcome within 100 ms more: cut off, a stalled host's joins were answered 503 though placed
 * (tests/multiprocess_sigstop_test.ts). A slow store gets no more (the page answers within 3 s).
 */
export const SETTLE = { settleMs: 100 };

/** What one commit may take: mutations (KV allows 1000) and checks (KV allows 100). */
const MUTATIONS = 900, CHECKS = 95;

/**
 * How many of the waiting joins the next commit takes, within KV's limits of an op: a join writes
 * its record, arrival, deadline, records and its share of the sums (counted per join, so a
 * commit's keys stay within the limits even for long queue names), and checks a supplied id and
 * its records. The same id twice (a double click) goes in the next commit, where its check tells.
 */
function cutJoins(waiting: JoinWrite[]): number {
  let used = 0, checks = 0;
  const ids = new Set<string>();
  for (const p of waiting) {
    used += 5 + (p.checkin === null ? 0 : 1) + p.records.length;
    checks += (p.supplied ? 1 : 0) + p.records.length;
    if (used > MUTATIONS || checks > CHECKS || ids.has(p.id)) break;
    ids.add(p.id);
  }
  return ids.size;
}

/**
 * An op with joins' records, each checked as its owner needs (the id, guard records), and the
 * sums once per queue: one `sum` per key a commit, not one per join (a sum is a read and a write
 * of its key in the store: per join, they were half of a join commit's mutations).
 */
function writeJoins(kv: Deno.Kv, batch: JoinWrite[], now: number): Deno.AtomicOperation {
  const op = kv.atomic();
  const sums = new Map<string, { joins: number; secs: number[] }>();
  for (const w of batch) {
    const { q, visitor: v, checkin } = w;
    putOwnRecords(op, w);
    op.set(keys.visitor(q, v.id), v)
      .set(keys.arrival(q, ...v.mark!), v)
      .set(keys.deadline(q, v.deadline, v.id), 0);
    const sum = sums.get(q) ?? { joins: 0, secs: [] };
    sum.joins++;
    if (checkin !== null) sum.secs.push(checkin);
    sums.set(q, sum);
  }
  for (const [q, { joins, secs }] of sums) {
    op.sum(keys.arrivalsPending(q), BigInt(joins));
    sumCheckins(op, q, secs);
    countTraffic(op, q, now, "in", joins);
  }
  return op;
}

/** Checks a join's own keys in `op` (a client's id is free) and writes its guards' records. */
export function putOwnRecords(op: Deno.AtomicOperation, j: JoinOwn): void {
  if (j.supplied) op.check({ key: keys.visitor(j.q, j.id), versionstamp: null });
  for (const x of j.records) {
    op.check({ key: x.key, versionstamp: x.expect ?? null })
      .set(x.key, x.value, x.expireIn ? { expireIn: x.expireIn } : undefined);
  }
}

/** What makes the refusal (it may count it) of a join whose own check fails now; null if none. */
export async function ownRefusal(ctx: QueueContext, j: JoinOwn): Promise<(() => Error) | null> {
  if (!j.supplied && j.records.length === 0) return null;
  // A join has at most a spent solution and an enqueue key: one read of at most 10 keys.
  const { q, id, records } = j;
  const got = await ctx.kv.getMany<unknown[]>([keys.visitor(q, id), ...records.map((r) => r.key)]);
  const taken = `visitorId "${id}" is already in queue "${q}"; send its tg_ticket to resume`;
  if (got[0].versionstamp !== null) return () => new UnauthorizedError(taken);
  const changed = records.findIndex((r, i) => got[i + 1].versionstamp !== (r.expect ?? null));
  return changed >= 0 ? records[changed].conflict : null;
}

/** Group commits of joins' own records, per app: up to four in flight (they never conflict). */
export class JoinWriter {
  #commits = new GroupCommits<Pending>({
    inFlight: 4,
    // Joins without records of their own that fill a commit.
    full: Math.floor(MUTATIONS / 6),
    cut: cutJoins,
    commit: (batch) => this.#commit(batch),
  });

  constructor(private ctx: QueueContext) {}

  /** Writes one join's records (with others that come meanwhile): its commit's versionstamp. */
  write(w: JoinWrite): Promise<string> {
    return new Promise((resolve, reject) => this.#commits.add({ ...w, resolve, reject }));
  }

  /** One batch: all in one commit, or, when a check lost, each join on its own (or refused). */
  async #commit(batch: Pending[]): Promise<void> {
    instanceMetrics.batchSize.observe([], batch.length);
    const op = (joins: Pending[]) => writeJoins(this.ctx.kv, joins, this.ctx.now());
    // A throw (the store busy past its retries) rejects every join of the batch (GroupCommits).
    const all = async () => {
      annotateSpan({ "tollgate.queue": batch[0].q, "tollgate.batch.size": batch.length });
      const res = await op(batch).commit();
      return res.ok && res.versionstamp;
    };
    const vs = await retryCommit(all, "join", SETTLE);
    if (vs) return batch.forEach((p) => p.resolve(vs));
    // Each on its own: landed; a check of its own lost, refused; else tried again.
    const one = async (p: Pending) => {
      const res = await op([p]).commit();
      if (res.ok) return res.versionstamp;
      const refusal = await ownRefusal(this.ctx, p);
      if (refusal) throw refusal();
      return null;
    };
    const each = (p: Pending) => retryCommit(() => one(p), "join", SETTLE);
    await Promise.all(batch.map((p) => each(p).then(p.resolve, p.reject)));
  }
}
