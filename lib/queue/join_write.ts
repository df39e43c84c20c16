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
import { countTraffic } from "./records.ts";
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

/** A join's records to write: the visitor (with its arrival key) and what its guards add. */
export interface JoinWrite {
  q: string;
  visitor: Visitor;
  /** The id came from the client: checked to be free (a generated one is 128 random bits). */
  supplied: boolean;
  records: JoinRecord[];
  /** The check-in second reserved in the ledger, or null. */
  checkin: number | null;
}

interface Pending extends JoinWrite {
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Mutations one commit may take (KV allows 1000; a join takes 5 plus its records). */
const MUTATIONS = 900;
/** Checks one commit may take (KV allows 100; a supplied id and each record take one). */
const CHECKS = 95;
/** Joins that fill a commit when they carry no records of their own. */
const FULL = Math.floor(MUTATIONS / 6);

/**
 * Mutations of one join: record, arrival, deadline, its records, and its share of the sums
 * (pending, traffic, check-in second), counted per join so that a commit's keys stay within KV's
 * limits even for long queue names; a batch writes each sum once.
 */
const mutationsOf = (p: JoinWrite) => 5 + (p.checkin === null ? 0 : 1) + p.records.length;
/** Checks of one join. */
const checksOf = (p: JoinWrite) => (p.supplied ? 1 : 0) + p.records.length;

/** How many of the waiting joins the next commit takes, within KV's limits of an op. */
function cutJoins(waiting: JoinWrite[]): number {
  let used = 0, checks = 0, i = 0;
  // The same id twice (a double click) goes in the next commit, where its check tells.
  const ids = new Set<string>();
  for (; i < waiting.length; i++) {
    const p = waiting[i];
    if (used + mutationsOf(p) > MUTATIONS || checks + checksOf(p) > CHECKS) break;
    if (ids.has(p.visitor.id)) break;
    ids.add(p.visitor.id);
    used += mutationsOf(p);
    checks += checksOf(p);
  }
  return i;
}

/**
 * Adds joins' records to `op`, each checked as its owner needs (the id, guard records), and the
 * sums once per queue: one `sum` per key a commit, not one per join (a sum is a read and a write
 * of its key in the store: per join, they were half of a join commit's mutations).
 */
function writeJoins(op: Deno.AtomicOperation, batch: JoinWrite[], now: number): void {
  const sums = new Map<string, { joins: number; secs: number[] }>();
  for (const { q, visitor: v, supplied, records, checkin } of batch) {
    putOwnRecords(op, q, v.id, supplied, records);
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
}

/** Checks a join's own keys in `op` (a client's id is free) and writes its guards' records. */
export function putOwnRecords(
  op: Deno.AtomicOperation,
  q: string,
  id: string,
  supplied: boolean,
  records: JoinRecord[],
): void {
  if (supplied) op.check({ key: keys.visitor(q, id), versionstamp: null });
  for (const x of records) {
    op.check({ key: x.key, versionstamp: x.expect ?? null })
      .set(x.key, x.value, x.expireIn ? { expireIn: x.expireIn } : undefined);
  }
}

/** Why a join's write lost its checks: its id taken, or one of its records changed; else null. */
export async function refusalOf(
  ctx: QueueContext,
  q: string,
  id: string,
  records: JoinRecord[],
): Promise<Error | null> {
  // A join has at most a spent solution and an enqueue key: one read of at most 10 keys.
  const got = await ctx.kv.getMany<unknown[]>([keys.visitor(q, id), ...records.map((r) => r.key)]);
  if (got[0].versionstamp !== null) {
    return new UnauthorizedError(
      `visitorId "${id}" is already in queue "${q}"; send its tg_ticket to resume`,
    );
  }
  const changed = records.findIndex((r, i) => got[i + 1].versionstamp !== (r.expect ?? null));
  return changed < 0 ? null : records[changed].conflict();
}

/** Group commits of joins' own records, per app: up to four in flight (they never conflict). */
export class JoinWriter {
  #commits = new GroupCommits<Pending>({
    inFlight: 4,
    full: FULL,
    cut: cutJoins,
    commit: (batch) => this.#commit(batch),
  });

  constructor(private ctx: QueueContext) {}

  /** Writes one join's records (with others that come meanwhile); rejects with its refusal. */
  write(w: JoinWrite): Promise<void> {
    return new Promise((resolve, reject) => this.#commits.add({ ...w, resolve, reject }));
  }

  /** One batch: all in one commit, or, when a check lost, each join on its own. */
  async #commit(batch: Pending[]): Promise<void> {
    instanceMetrics.batchSize.observe([], batch.length);
    // A throw (the store busy past its retries) rejects every join of the batch (GroupCommits).
    const ok = await retryCommit(async () => {
      annotateSpan({ "tollgate.queue": batch[0].q, "tollgate.batch.size": batch.length });
      const op = this.ctx.kv.atomic();
      writeJoins(op, batch, this.ctx.now());
      return (await op.commit()).ok;
    }, "join");
    if (ok) return batch.forEach((p) => p.resolve());
    await Promise.all(batch.map((p) => this.#alone(p)));
  }

  /** One join's own commit after its batch lost a check: written, or refused with the reason. */
  async #alone(p: Pending): Promise<void> {
    try {
      await retryCommit(async () => {
        const op = this.ctx.kv.atomic();
        writeJoins(op, [p], this.ctx.now());
        if ((await op.commit()).ok) return true;
        const why = await refusalOf(this.ctx, p.q, p.visitor.id, p.records);
        if (why) throw why;
        return null;
      }, "join");
      p.resolve();
    } catch (e) {
      p.reject(e);
    }
  }
}
