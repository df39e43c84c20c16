/**
 * Deleting a queue. The queue disappears at once (its settings record goes in one atomic op
 * with a tombstone, so joins, status calls and ticks answer 404 from then on); its visitors,
 * indexes and statistics are then removed in chunks. The tombstone says the cleanup is unfinished
 * until it is, so a cleanup cut short by a crash is resumed (`resumeQueueDeletions`). The name
 * stays taken until the last access token issued for the queue has expired: tokens carry no
 * generation, so a new queue of the same name would make them valid again.
 */
import { AppError, ConflictError, NotFoundError } from "../errors.ts";
import { deleteListed } from "../store/delete.ts";
import { keys } from "../store/keys.ts";
import { pendingOf } from "../store/sums.ts";
import type { QueueContext } from "./context.ts";
import { type Counts, EMPTY_COUNTS, withDefaults } from "./types.ts";

/** What stays of a deleted queue, at `keys.queueTombstone(q)`. */
export interface QueueTombstone {
  deletedAt: number;
  /** When the name may be used again (the last access token has expired by then). */
  reusableAt: number;
  /** True until every record of the queue is gone. */
  cleaning: boolean;
}

/** What `deleteQueue` answers. */
export interface QueueDeleted {
  queue: string;
  /** Visitors that were waiting (removed when forced). */
  removedWaiting: number;
  reusableAt: number;
}

/** 409 `conflict` when `q` was deleted and its name is not free yet. */
export async function requireNameFree(kv: Deno.Kv, q: string, now: number): Promise<void> {
  const t = (await kv.get<QueueTombstone>(keys.queueTombstone(q))).value;
  if (t && (t.cleaning || t.reusableAt > now)) {
    throw new ConflictError(
      "conflict",
      `the queue name "${q}" was deleted and is free again at ` +
        `${new Date(t.reusableAt).toISOString()}, when its last access token has expired`,
    );
  }
}

/**
 * Deletes `q`. Refused (409) while visitors wait unless `force`, and for the last queue.
 * Answers once the queue is gone and its records are cleaned up.
 */
export async function deleteQueue(
  ctx: QueueContext,
  q: string,
  opts: { force?: boolean; names: string[] },
): Promise<QueueDeleted> {
  const now = ctx.now();
  const [se, ce, ae] = await ctx.kv.getMany<[unknown, Counts, Deno.KvU64]>([
    keys.queue(q),
    keys.counts(q),
    keys.arrivalsPending(q),
  ]);
  if (se.value === null) {
    const t = (await ctx.kv.get<QueueTombstone>(keys.queueTombstone(q))).value;
    if (!t) throw new NotFoundError("unknown_queue", `unknown queue "${q}"`);
    // Deleted already (maybe cut short): finish the cleanup, answer as before.
    if (t.cleaning) await cleanUp(ctx, q);
    return { queue: q, removedWaiting: 0, reusableAt: t.reusableAt };
  }
  if (opts.names.length <= 1) {
    throw new ConflictError("conflict", "the last queue cannot be deleted; create another first");
  }
  // Joins not numbered yet wait too (see sequencer.ts).
  const waiting = withDefaults(EMPTY_COUNTS, ce.value).waiting + pendingOf(ae);
  if (waiting > 0 && !opts.force) {
    throw new AppError(
      409,
      "conflict",
      `${waiting} visitor(s) wait in "${q}"; delete it with force to remove them too`,
      { reason: "visitors_waiting", waiting },
    );
  }
  const reusableAt = now + ctx.config.ACCESS_TOKEN_TTL_SECONDS * 1000;
  const tomb: QueueTombstone = { deletedAt: now, reusableAt, cleaning: true };
  const ok = await ctx.kv.atomic().check(se)
    .delete(keys.queue(q))
    .set(keys.queueTombstone(q), tomb)
    .commit();
  if (!ok.ok) throw new ConflictError("conflict", `"${q}" changed meanwhile; try again`);
  ctx.invalidate(q);
  await cleanUp(ctx, q);
  return { queue: q, removedWaiting: waiting, reusableAt };
}

/** Removes every record of a deleted queue, 500 keys per atomic op, then marks it clean. */
async function cleanUp(ctx: QueueContext, q: string): Promise<void> {
  const kv = ctx.kv;
  for (
    const prefix of [
      // Joins not numbered yet first: a numbering landing meanwhile writes line entries.
      keys.arrivalPrefix(q),
      keys.leftEarlyPrefix(q),
      keys.numberingPrefix(q),
      keys.fifoPrefix(q),
      keys.deadlinePrefix(q),
      keys.expiryPrefix(q),
      keys.gonePrefix(q),
      keys.checkinsPrefix(q),
      keys.trafficPrefix(q),
      keys.visitorPrefix(q),
      // The pre-queue's draw: a queue made again under this name starts without one.
      keys.drawListPrefix(q),
      keys.drawPlacesPrefix(q),
      keys.drawPlacedPrefix(q),
      // Its sessions' marks and counters: a queue made again under this name starts afresh.
      keys.sessionMarkPrefix(q),
      keys.sessionStatPrefix(q),
    ]
  ) await deleteListed(kv, { prefix });
  await kv.atomic().delete(keys.counts(q)).delete(keys.queueBranding(q))
    .delete(keys.depthArmed(q)).delete(keys.draw(q)).delete(keys.drawSeed(q))
    .delete(keys.drawGuard(q)).delete(keys.drawPublished(q)).delete(keys.joinGuards(q))
    .delete(keys.tickClaim(q)).delete(keys.entersPending(q)).delete(keys.arrivalsPending(q))
    .delete(keys.sessionSettings(q))
    .commit();
  const t = await kv.get<QueueTombstone>(keys.queueTombstone(q));
  if (t.value?.cleaning) {
    await kv.atomic().check(t).set(keys.queueTombstone(q), { ...t.value, cleaning: false })
      .commit();
  }
  ctx.invalidate(q);
}

/** Finishes the cleanup of every deletion a crash cut short; returns the queues resumed. */
export async function resumeQueueDeletions(ctx: QueueContext): Promise<string[]> {
  const out: string[] = [];
  for await (const e of ctx.kv.list<QueueTombstone>({ prefix: keys.queueTombstones() })) {
    if (!e.value.cleaning) continue;
    const q = e.key[1] as string;
    // A queue made again under that name (after the wait) is not the deleted one.
    if ((await ctx.kv.get(keys.queue(q))).value !== null) continue;
    await cleanUp(ctx, q);
    out.push(q);
  }
  return out;
}
