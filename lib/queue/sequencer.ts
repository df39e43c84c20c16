/**
 * The sequencer: the one place that numbers joins into the line. Joins write only their own
 * records (join_write.ts), with an arrival entry keyed (arrival ms, instance, counter); the tick
 * of each second, claimed so that one instance runs it, takes the arrivals in key order, gives
 * each the next arrival number and its line entry, and writes the counts, a chunk a commit. So a
 * join never checks what another join writes, and the line's order is arrival order across
 * instances (ties by instance id, then by that instance's order); a join whose commit landed after
 * a later arrival had been numbered is numbered at the next tick, behind it.
 *
 * A visitor that leaves before it is numbered leaves a note (`keys.leftEarly`), which the
 * sequencer takes in with the arrivals: nobody but the sequencer writes an unnumbered record.
 *
 * A backlog (more than a commit's worth waiting) is numbered up to `WIDTH` chunks a round, the
 * chunks after the first landing side by side from their numbering records (numbering.ts) while
 * the next round's counts commit goes out: a round costs about one round trip to the store whatever
 * its width (over a remote store the commits' latency, not their size, bounded the numbering:
 * bench/RESULTS.md).
 */
import { retryCommit } from "../store/commit.ts";
import { getAll } from "../store/get_all.ts";
import { density, listWindows, sameKey } from "./arrivals_ahead.ts";
import { keys } from "../store/keys.ts";
import { log } from "../log.ts";
import { instanceMetrics } from "../metrics/instance.ts";
import { leaveById, noteLeave } from "./leave_enter.ts";
import type { QueueContext } from "./context.ts";
import { pendingOf, takeIn } from "../store/sums.ts";
import { settleRound } from "./prequeue.ts";
import { windowStart } from "./prequeue_phase.ts";
import type { Counts, QueueSettings, Visitor } from "./types.ts";
import { takeSeq } from "../priority/line.ts";
import { laneSlots } from "../priority/store.ts";
import {
  type Chunk,
  landChunk,
  noteNumbered,
  type Numbering,
  otherRounds,
  writeNumbered,
} from "./numbering.ts";

/**
 * Arrivals numbered per commit: three mutations each (record, line entry, arrival entry), with
 * room left for early leavers (four each) and the counters, under KV's 1,000 a commit.
 */
export const SEQUENCE_CHUNK = 290;
/** Early leavers taken in per commit (each read, then up to four mutations). */
const LEFT_CHUNK = 20;
/** Chunks a round numbers at once (each after the first with a record of about 9 KB). */
const WIDTH = 6;
/** The most arrivals one round numbers. */
export const ROUND_MOST = WIDTH * SEQUENCE_CHUNK;
/** This process's sequencer runs, told apart in their numbering records. */
let runs = 0;

/** What one sequencing commit read: the arrivals and early leavers, in key order. */
interface Batch {
  arrivals: Deno.KvEntry<Visitor>[];
  left: Deno.KvEntryMaybe<Visitor>[];
  /**
   * The sum of joins not numbered yet, read after the lists, so it holds every listed arrival (a
   * join writes its entry and its one in the sum together): the sum read with the counts may
   * predate arrivals listed since, which then stayed in it for good (phantom waiters everywhere).
   */
  pending: number;
  /** The numbering records as listed with a batch read afresh (not with one read ahead). */
  numbering?: Deno.KvEntry<Numbering>[];
}

/**
 * Reads the next arrivals and early leavers of `q`. `ahead` reads the batch after one whose commit
 * is still in flight: arrivals only, after that batch's last key (`from`), without those it took
 * out (`skip`), its pages at once given that batch's density (`msPer`, see arrivals_ahead.ts);
 * leavers wait for a batch read after a commit landed.
 */
async function readBatch(
  run: Run,
  ahead?: { from: Deno.KvKey; skip: Set<string>; msPer?: number },
) {
  const { ctx, q } = run;
  const arrivals: Deno.KvEntry<Visitor>[] = [];
  const prefix = keys.arrivalPrefix(q);
  const [, notes, numbering] = await Promise.all([
    (async () => {
      const listed = ahead?.msPer !== undefined
        ? await listWindows(ctx.kv, q, ahead.from, ahead.msPer, ROUND_MOST + 1)
        : ctx.kv.list<Visitor>(ahead ? { prefix, start: ahead.from } : { prefix }, {
          limit: ROUND_MOST + 1,
          batchSize: 500,
        });
      for await (const e of listed) {
        if (ahead && (sameKey(e.key, ahead.from) || ahead.skip.has(e.value.id))) continue;
        if (arrivals.length < ROUND_MOST) arrivals.push(e);
      }
    })(),
    ahead
      ? []
      : Array.fromAsync(ctx.kv.list({ prefix: keys.leftEarlyPrefix(q) }, { limit: LEFT_CHUNK })),
    ahead
      ? undefined
      : Array.fromAsync(ctx.kv.list<Numbering>({ prefix: keys.numberingPrefix(q) })),
  ]);
  const left = await getAll<Visitor>(ctx.kv, notes.map((e) => keys.visitor(q, e.key[2] as string)));
  const pending = arrivals.length + left.length === 0
    ? 0
    : pendingOf(await ctx.kv.get<Deno.KvU64>(keys.arrivalsPending(q)));
  return { arrivals, left, pending, numbering };
}

/**
 * Takes early leavers in: one still unnumbered goes with its records (its arrival is taken in);
 * one numbered meanwhile is handed back for an ordinary leave. Returns the ids taken out here.
 */
function takeLeavers(
  op: Deno.AtomicOperation,
  q: string,
  left: Deno.KvEntryMaybe<Visitor>[],
): { gone: Set<string>; numbered: string[] } {
  const gone = new Set<string>();
  const numbered: string[] = [];
  for (const e of left) {
    const id = e.key[2] as string;
    op.delete(keys.leftEarly(q, id));
    const v = e.value;
    if (!v || v.state !== "waiting") continue;
    if (v.seq !== 0) {
      numbered.push(id);
      continue;
    }
    op.check(e).delete(e.key).delete(keys.deadline(q, v.deadline, id));
    if (v.mark) op.delete(keys.arrival(q, ...v.mark));
    gone.add(id);
  }
  return { gone, numbered };
}

/** True when an arrival at `ms` joined the open round's pre-queue window (the draw places it). */
function inWindow(s: QueueSettings, c: Counts, ms: number): boolean {
  return s.opensAt !== null && c.preRound === s.opensAt && c.preCutoff === 0 && ms < s.opensAt;
}

/**
 * The next arrival number of the line a join goes to: its priority lane's (by the lane's slot, see
 * lib/priority/line.ts) while the queue has that lane, else the main line's. Before the opening
 * everyone is numbered in the main line: the draw places them all alike.
 */
function nextInLine(c: Counts, lanes: Map<string, number>, lane?: string): number {
  const slot = lane === undefined ? undefined : lanes.get(lane);
  return slot === undefined ? c.nextSeq++ : takeSeq(c, slot);
}

/** The sequencer run of each queue in this process, while one runs (see `sequence`). */
const running = new WeakMap<QueueContext, Map<string, Promise<number>>>();

/** True while this process numbers `q`'s arrivals. */
export function sequencing(ctx: QueueContext, q: string): boolean {
  return running.get(ctx)?.has(q) ?? false;
}

/**
 * Numbers the arrivals of `q` that wait (and takes early leavers in), a round at a time, until
 * none is left or `budgetMs` has passed. Each round's counts commit checks the counts read before
 * its lists, so two sequencers never number one arrival twice. Visitors whose leave note came in
 * after they were numbered then leave as any numbered waiter does (the run took their note in, so
 * it sees to their leave, whoever called it). Returns how many it numbered. One run at a time in a
 * process: a call while one runs waits for it (and reports nothing of its own).
 */
export function sequence(ctx: QueueContext, q: string, budgetMs = 600): Promise<number> {
  const mine = running.get(ctx) ?? new Map<string, Promise<number>>();
  running.set(ctx, mine);
  const now = mine.get(q);
  if (now) return now.then(() => 0, () => 0);
  const run = sequenceRun(ctx, q, budgetMs).finally(() => mine.delete(q))
    .then(async ({ total, leavers }) => {
      // Once the run is over; a leave that fails gets its note back, for the next run.
      for (const id of leavers) {
        await leaveById(ctx, q, id).catch(async (e) => {
          log("warn", "leave after numbering failed", { queue: q, error: String(e) });
          await noteLeave(ctx, q, id).catch(() => {});
        });
      }
      return total;
    });
  mine.set(q, run);
  return run;
}

async function sequenceRun(ctx: QueueContext, q: string, budgetMs: number) {
  const end = Date.now() + budgetMs;
  let total = 0;
  const leavers: string[] = [];
  const lanes = await laneSlots(ctx.kv, q);
  const run: Run = { ctx, q, id: `${ctx.instance}/${++runs}`, rounds: 0, inFlight: [], lanes };
  // What a commit that landed leaves for the next: its state (one read fewer a commit) and the
  // next batch, read while it was in flight. A lost commit makes the next round read afresh.
  let known: { state: State; next?: Promise<Batch> } | null = null;
  for (;;) {
    const out = await retryCommit(async () => {
      // A batch read afresh lists every arrival not written yet: this run's chunks land first.
      if (!known?.next) await Promise.all(run.inFlight);
      const state = known?.state ?? await ctx.readState(q);
      const batch = known?.next ? await known.next : await readBatch(run);
      known = null;
      const other = await otherRounds(ctx, q, batch.numbering ?? []);
      if (other) return other === "finished" ? null : NONE;
      const done = await numberBatch(run, state, batch);
      if (done?.next) known = { state: done.next, next: done.ahead };
      return done;
    }, "sequence");
    // The round's other chunks land beside the next rounds (their arrivals are behind them).
    for (const c of out.chunks ?? []) {
      run.inFlight.push(landChunk(ctx, run.id, c).catch(() => {}));
    }
    total += out.n;
    leavers.push(...out.numbered);
    // Caught up with the arrivals there were (a batch not full): those that came meanwhile are
    // the next tick's. Chasing them kept a tick numbering for its whole budget at every rate,
    // and it ran past its second (bench/RESULTS.md).
    if (!out.more || Date.now() >= end) break;
  }
  // A read ahead nobody used (the budget ran out): its failure is nobody's.
  (known as { next?: Promise<Batch> } | null)?.next?.catch(() => {});
  // A chunk that could not land nor be finished stays for the next run of this process.
  await Promise.all(run.inFlight);
  if (total > 0 || leavers.length > 0) ctx.invalidate(q);
  if (total > 0) instanceMetrics.numbered.inc([q], total);
  return { total, leavers };
}

/** One sequencer run of queue `q`: its name in numbering records, its rounds, its chunks landing. */
interface Run {
  ctx: QueueContext;
  q: string;
  id: string;
  rounds: number;
  inFlight: Promise<void>[];
  lanes: Map<string, number>;
}

/** The counts and settings a sequencing commit checks (as `ctx.readState` reads them). */
type State = Pick<
  Awaited<ReturnType<QueueContext["readState"]>>,
  "counts" | "entry" | "settings" | "settingsEntry"
>;

/** What one sequencing round did, the state it left and the batch after it (read ahead). */
interface Numbered {
  n: number;
  /** Its batch was full (a round's most arrivals, or leavers): more may wait. */
  more: boolean;
  numbered: string[];
  next: State | null;
  ahead?: Promise<Batch>;
  /** A wide round's other chunks, to land once its counts commit did (see `landChunk`). */
  chunks?: Chunk[];
}

/** A round with nothing done. */
const NONE: Numbered = { n: 0, more: false, numbered: [], next: null };

/**
 * Numbers the next round of arrivals (and takes early leavers in): its counts commit, checked
 * against `state`, then the round's other chunks side by side (see the header). Null when the
 * counts commit lost (the caller reads afresh and tries again).
 */
async function numberBatch(run: Run, state: State, batch: Batch): Promise<Numbered | null> {
  const { ctx, q } = run;
  const { counts, entry, settings, settingsEntry } = state;
  if (!settings || (batch.arrivals.length === 0 && batch.left.length === 0)) return NONE;
  const op = ctx.kv.atomic().check(entry, settingsEntry);
  // The pre-queue's round opens with the window's first numbering (its commitment); it
  // closes at the first arrival from `opensAt` on (in `numberChunks`), or before the draw.
  const opensAt = settings.opensAt ?? Infinity;
  settleRound(ctx, q, op, settings, counts, Math.min(ctx.now(), opensAt - 1));
  const { gone, numbered } = takeLeavers(op, q, batch.left);
  const { n, chunks } = numberChunks(run, op, state, batch.arrivals, gone);
  // Every arrival read is taken in, numbered or gone (never more than the sum holds).
  takeIn(op, keys.arrivalsPending(q), Math.min(batch.pending, n + gone.size));
  op.set(keys.counts(q), counts);
  // In line with this process's other commits on the counts (`ctx.serial`): a tick's commit in
  // flight would otherwise lose to rounds back to back, and its second went by (bench/RESULTS.md).
  const sent = ctx.serial(q, () => op.commit());
  // The next batch is read while this commit is in flight: after this one's last arrival,
  // without the early leavers it took out (their arrival entries go with this commit).
  // A batch of leavers alone reads nothing ahead: the next batch is read once this one landed.
  const last = batch.arrivals.at(-1)?.key;
  const msPer = density(batch.arrivals);
  const ahead = last ? readBatch(run, { from: last, skip: gone, msPer }) : undefined;
  const res = await sent.catch((e) => {
    ahead?.catch(() => {});
    throw e;
  });
  if (!res.ok) {
    ahead?.catch(() => {});
    return null;
  }
  const next = { ...state, counts: structuredClone(counts) };
  next.entry = { key: entry.key, value: next.counts, versionstamp: res.versionstamp };
  const rest = chunks.map(({ op, key }) => ({ op, key, stamp: res.versionstamp }));
  const more = batch.arrivals.length >= ROUND_MOST || batch.left.length >= LEFT_CHUNK;
  return { n, more, numbered, next, ahead, chunks: rest };
}

/**
 * Numbers a round's arrivals (less the early leavers `gone`): each gets its arrival number (and
 * a closing window's round) in the counts commit `op`, its record and line entry (unless a window
 * join) in its chunk's commit: the first chunk's is `op`, the others' are returned, each with its
 * numbers in a record `op` writes (see numbering.ts).
 */
function numberChunks(
  run: Run,
  op: Deno.AtomicOperation,
  { settings: s, counts: c }: State,
  arrivals: Deno.KvEntry<Visitor>[],
  gone: Set<string>,
): { n: number; chunks: { op: Deno.AtomicOperation; key: Deno.KvKey }[] } {
  const { ctx, q } = run;
  const chunks: { op: Deno.AtomicOperation; key: Deno.KvKey; record: Numbering }[] = [];
  const round = ++run.rounds;
  let n = 0;
  for (const e of arrivals) {
    if (gone.has(e.value.id)) continue;
    const i = Math.floor(n++ / SEQUENCE_CHUNK);
    const ms = e.key[2] as number;
    if (i > chunks.length) {
      const record = { by: run.id, at: ctx.now(), inst: [], base: ms, round: 0, entries: [] };
      const key = keys.numbering(q, `${run.id}:${round}:${i}`);
      chunks.push({ op: ctx.kv.atomic(), key, record });
    }
    const participant = ms >= windowStart(s!) && inWindow(s!, c, ms);
    // The window closes (at the first arrival from `opensAt` on) before anyone after it is numbered.
    if (!participant) settleRound(ctx, q, op, s!, c, Math.max(ms, ctx.now()));
    const seq = participant ? c.nextSeq++ : nextInLine(c, run.lanes, e.value.lane);
    const w = participant ? c.preRound : 0;
    const into = i ? chunks[i - 1] : null;
    writeNumbered(into?.op ?? op, q, e, seq, w);
    if (into) noteNumbered(into.record, e.key, seq, w);
    c.waiting++;
    c.numberedTo = Math.max(c.numberedTo, ms);
  }
  for (const x of chunks) op.set(x.key, x.record);
  return { n, chunks };
}
