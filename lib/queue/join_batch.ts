import {
  AppError,
  NotOpenError,
  QueueFullError,
  StoreBusyError,
  UnauthorizedError,
} from "../errors.ts";
import { instanceMetrics } from "../metrics/instance.ts";
import { annotateSpan } from "../metrics/tracing.ts";
import { retryCommit, STORE_DEADLINE_MS } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import {
  bucketCap,
  openSlots,
  type QueueContext,
  type QueueView,
  refill,
  wholeTokens,
} from "./context.ts";
import { QueueBatches } from "./batches.ts";
import { settleRound } from "./prequeue.ts";
import { prequeuePhase } from "./prequeue_phase.ts";
import { countTraffic, grantSlot, putWaiting } from "./records.ts";
import { sumCheckins } from "./checkins.ts";
import { schedule } from "./visitor.ts";
import type { Counts, Visitor } from "./types.ts";

/**
 * A record a join adds to its group commit, written only while its key is as expected (absent,
 * or at `expect`): a spent proof-of-work solution, the place an enqueue key holds.
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

/**
 * A committed join: the visitor, and for a waiter the line as its own commit left it (exact
 * counts, head set so that its position is 1 + the waiters ahead of it at that commit).
 */
export interface Joined {
  visitor: Visitor;
  line: QueueView | null;
}

interface Pending {
  id: string;
  supplied: boolean;
  records: JoinRecord[];
  /** When the join was added (`Date.now()`): its bound counts from here. */
  at: number;
  resolve: (v: Joined) => void;
  reject: (e: unknown) => void;
}

/** Another join took the enqueue key first: the join resumes that place instead. */
export class KeyTakenError extends Error {}

/** The id of a KV key within one batch (two joins must not write the same record). */
const idOf = (key: Deno.KvKey) => JSON.stringify(key);

/** Largest group commit: three mutations a join (an op allows 1000). */
const MAX_BATCH = 250;
/** Joins with a client-supplied id per commit: each costs one check (an op allows 100). */
const MAX_SUPPLIED = 90;

/** Times one batch steps aside for a starved tick (bounded: joins must answer in time). */
const MAX_TICK_YIELDS = 3;

/** True when a line is waiting but the tick of the last whole second has not run. */
function tickStarved(c: Counts, now: number): boolean {
  return c.waiting > 0 && c.tickAt > 0 && c.tickAt < Math.floor(now / 1000) - 1;
}

/** Checks a join adds to its commit: its supplied id and its records. */
const checksOf = (p: Pending) => (p.supplied ? 1 : 0) + p.records.length;

/** Takes the next batch: up to MAX_BATCH joins, with up to MAX_SUPPLIED checks between them. */
function takeBatch(list: Pending[]): Pending[] {
  let checks = 0, i = 0;
  while (i < list.length && i < MAX_BATCH && checks + checksOf(list[i]) <= MAX_SUPPLIED) {
    checks += checksOf(list[i]);
    i++;
  }
  // A single join always goes, whatever it carries (at most a handful of records).
  return list.splice(0, Math.max(1, i));
}

/**
 * Group commit of joins: joins that arrive while a commit is in flight are written together in
 * the next one, so the hot counter is checked once per batch instead of once per visitor.
 */
export class JoinBatcher {
  #batches = new QueueBatches<Pending>(takeBatch, (q, batch) => this.#commit(q, batch));
  #stepMs = 10;

  constructor(private ctx: QueueContext) {}

  /** Queues a new visitor (and its guard records) for the next group commit of queue `q`. */
  add(q: string, id: string, supplied: boolean, records: JoinRecord[] = []): Promise<Joined> {
    return new Promise((resolve, reject) => {
      this.#batches.add(q, { id, supplied, records, at: Date.now(), resolve, reject });
    });
  }

  async #commit(q: string, batch: Pending[]): Promise<void> {
    const ctx = this.ctx;
    // A join's bound counts from when it was added: waiting for the batch ahead (stuck on a
    // locked store, or a backlog) and behind this instance's other counts writers uses it up
    // too, so every visitor hears within it. Joins already out of time are never written.
    const started = Date.now();
    let items = batch.filter((p) => started - p.at < STORE_DEADLINE_MS);
    for (const p of batch) {
      if (!items.includes(p)) p.reject(new StoreBusyError("join", "no commit took it in time"));
    }
    if (items.length === 0) return;
    let committed: Counts | null = null;
    let yields = 0;
    const end = Math.min(...items.map((p) => p.at)) + STORE_DEADLINE_MS;
    const retry = <T>(step: () => Promise<T | null>) =>
      retryCommit(step, "join", { deadlineMs: end - Date.now() });
    const results = await ctx.serial(q, () =>
      retry(async () => {
        annotateSpan({ "tollgate.queue": q, "tollgate.batch.size": items.length });
        const now = ctx.now();
        // The state this instance's last join commit left, if any: its checks fail (and the
        // retry reads afresh) when anything else wrote the counts or settings since.
        const cached = ctx.joinState.get(q);
        ctx.joinState.delete(q);
        const [{ counts, entry, settings, settingsEntry }, branding] = await Promise.all([
          cached ? { ...cached, counts: { ...cached.counts } } : ctx.readState(q),
          ctx.branding(q),
        ]);
        if (!settings) throw new AppError(404, "unknown_queue", `unknown queue "${q}"`);
        if (yields < MAX_TICK_YIELDS && tickStarved(counts, now)) {
          // Other instances' join batches keep winning the counts record, so no tick has landed
          // for over a second: step aside for about a commit's time, then read afresh.
          yields++;
          await new Promise((r) => setTimeout(r, Math.random() * 2 * this.#stepMs));
          return null;
        }
        await ctx.checkins.refresh(q, Math.floor(now / 1000), ctx.periodMs(counts.waiting) / 1000);
        const open = ctx.isOpen(settings, now);
        const rate = ctx.ratePerSecond(settings);
        refill(counts, rate, now, open, bucketCap(rate));
        const op = ctx.kv.atomic().check(entry, settingsEntry);
        // A pre-queue refuses joins before its window and publishes its commitment with the first.
        const accepting = settleRound(ctx, q, op, settings, counts, now) !== "refused";
        const windowJoin = prequeuePhase(settings, now) === "window";
        const out: (Joined | Error)[] = [];
        let joined = 0, admitted = 0;
        const slots: number[] = [];
        const seen = new Set<string>();
        const written = new Set<string>();
        // The line as newcomers see it: these counts, no departures between head and them.
        const line: QueueView = {
          settings,
          counts,
          head: null,
          gone: [],
          goneSet: new Set(),
          loadedAt: now,
        };
        for (const p of items) {
          if (!accepting) {
            out.push(new NotOpenError(q));
            continue;
          }
          if (seen.has(p.id)) {
            // The same new id twice in one batch (a double click): the second is a takeover.
            out.push(
              new UnauthorizedError(`visitorId "${p.id}" is already joining queue "${q}"`),
            );
            continue;
          }
          seen.add(p.id);
          if (p.supplied) op.check({ key: keys.visitor(q, p.id), versionstamp: null });
          if (counts.waiting >= settings.maxWaitingVisitors) {
            out.push(new QueueFullError(q, settings.maxWaitingVisitors));
            continue;
          }
          // The same solution or enqueue key twice in one batch: the first one wins.
          const twice = p.records.find((r) => written.has(idOf(r.key)));
          if (twice) {
            out.push(twice.conflict());
            continue;
          }
          for (const r of p.records) {
            written.add(idOf(r.key));
            op.check({ key: r.key, versionstamp: r.expect ?? null })
              .set(r.key, r.value, r.expireIn ? { expireIn: r.expireIn } : undefined);
          }
          const seq = counts.nextSeq++;
          joined++;
          if (
            open && counts.waiting === 0 && openSlots(settings, counts) > 0 &&
            wholeTokens(counts) >= 1
          ) {
            // Capacity at once: a slot without ever waiting (a wait of zero in the averages).
            counts.tokens--;
            counts.waitCount++;
            admitted++;
            const fresh: Visitor = {
              id: p.id,
              seq,
              joinedAt: now,
              state: "waiting",
              nextCheckAt: 0,
              deadline: 0,
            };
            const hold = now + branding.admitHoldSeconds * 1000;
            const ttl = branding.clickToEnter ? undefined : ctx.config.ACCESS_TOKEN_TTL_SECONDS;
            out.push({ visitor: grantSlot(op, q, fresh, counts, now, hold, ttl), line: null });
            continue;
          }
          counts.waiting++;
          // The newcomer is last in line: its position is the waiting count, exact because the
          // commit checks the counts record (whichever instance wrote it last).
          const own = { ...line, head: seq - counts.waiting + 1 };
          const [nca, deadline, slot] = schedule(ctx, q, own, seq, "join");
          if (slot !== null) slots.push(slot);
          const v: Visitor = {
            id: p.id,
            seq,
            joinedAt: now,
            state: "waiting",
            nextCheckAt: nca,
            deadline,
          };
          putWaiting(op, q, v, !windowJoin);
          out.push({ visitor: v, line: own });
        }
        sumCheckins(op, q, slots);
        countTraffic(op, q, now, "in", joined);
        countTraffic(op, q, now, "out", admitted);
        op.set(keys.counts(q), counts);
        const res = await op.commit();
        // How long a step takes here (reads and commit): the time to step aside for a tick.
        this.#stepMs = (this.#stepMs + ctx.now() - now) / 2;
        if (res.ok) {
          // Each answer's line shares `counts`, so it shows the waiting count this commit left.
          committed = counts;
          ctx.joinState.set(q, {
            counts: { ...counts },
            entry: { key: entry.key, versionstamp: res.versionstamp },
            settings,
            settingsEntry,
          });
          return out;
        }
        items = await dropConflicts(ctx.kv, items);
        if (items.length === 0) return [];
        const supplied = items.filter((p) => p.supplied);
        if (supplied.length > 0) {
          const taken = new Set<string>();
          for (let i = 0; i < supplied.length; i += 10) {
            const got = await ctx.kv.getMany(
              supplied.slice(i, i + 10).map((p) => keys.visitor(q, p.id)),
            );
            for (const g of got) if (g.value) taken.add(g.key[2] as string);
          }
          for (const p of items) {
            if (taken.has(p.id)) {
              p.reject(
                new UnauthorizedError(
                  `visitorId "${p.id}" is already in queue "${q}"; send its tg_ticket to resume`,
                ),
              );
            }
          }
          items = items.filter((p) => !taken.has(p.id));
          if (items.length === 0) return [];
        }
        return null;
      }));
    instanceMetrics.batchSize.observe([], batch.length);
    const waiters = results.filter((r): r is Joined => !(r instanceof Error) && r.line !== null);
    if (committed) {
      ctx.noteJoined(q, committed, waiters[0]?.visitor.seq ?? null, waiters.length);
    }
    results.forEach((r, i) => r instanceof Error ? items[i].reject(r) : items[i].resolve(r));
  }
}

/**
 * After a failed join commit: rejects the joins whose records changed meanwhile (a solution used
 * by another instance, an enqueue key taken) and returns the others, to be committed again.
 */
async function dropConflicts(kv: Deno.Kv, items: Pending[]): Promise<Pending[]> {
  const withRecords = items.filter((p) => p.records.length > 0);
  if (withRecords.length === 0) return items;
  const failed = new Set<Pending>();
  const all = withRecords.flatMap((p) => p.records.map((r) => ({ p, r })));
  for (let i = 0; i < all.length; i += 10) {
    const part = all.slice(i, i + 10);
    const got = await kv.getMany(part.map((x) => x.r.key));
    got.forEach((g, k) => {
      const { p, r } = part[k];
      if (g.versionstamp !== (r.expect ?? null) && !failed.has(p)) {
        failed.add(p);
        p.reject(r.conflict());
      }
    });
  }
  return items.filter((p) => !failed.has(p));
}
