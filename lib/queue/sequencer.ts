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
 * A backlog (more than a commit's worth waiting) is numbered up to `WIDTH` chunks a round: the
 * counts commit carries the first chunk and the others' numbers in one record (`keys.numbering`);
 * the other chunks then land side by side, each checked against that record. A round so costs two
 * round trips to the store whatever its width (over a remote store the commits' latency, not
 * their size, bounded the numbering: bench/RESULTS.md). A round cut short (a crash between its
 * commits) is finished from the record by the next sequencer (`finish`).
 */
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import type { QueueContext } from "./context.ts";
import { pendingOf, takeIn } from "./enters.ts";
import { settleRound } from "./prequeue.ts";
import { windowStart } from "./prequeue_phase.ts";
import type { Counts, QueueSettings, Visitor } from "./types.ts";
import { takeSeq } from "../priority/line.ts";
import { laneSlots } from "../priority/store.ts";
import {
  finish,
  FRESH_MS,
  landChunks,
  newRecord,
  noteNumbered,
  type Numbering,
  writeNumbered,
} from "./numbering.ts";

/**
 * Arrivals numbered per commit: three mutations each (record, line entry, arrival entry), with
 * room left for early leavers (four each) and the counters, under KV's 1,000 a commit.
 */
export const SEQUENCE_CHUNK = 290;
/** Early leavers taken in per commit (each read, then up to four mutations). */
const LEFT_CHUNK = 20;
/** Chunks a round numbers at once (its record of the chunks after the first: about 45 KB). */
const WIDTH = 6;
/** The most arrivals one round numbers (two round trips to the store). */
export const ROUND_MOST = WIDTH * SEQUENCE_CHUNK;
/** This process's sequencer runs, told apart in their numbering records. */
let runs = 0;

/** What one sequencing commit read: the arrivals and early leavers, in key order. */
interface Batch {
  arrivals: Deno.KvEntry<Visitor>[];
  left: Deno.KvEntry<Visitor | null>[];
  /**
   * The sum of joins not numbered yet, read after the lists: it holds every listed arrival (a
   * join writes its entry and its one in the sum together), also those that landed after the
   * counts were read.
   */
  pending: number;
  /** The numbering record as read with a batch read afresh (not with one read ahead). */
  numbering?: Deno.KvEntryMaybe<Numbering>;
}

/**
 * Reads the next arrivals and early leavers of `q`. `ahead` reads the batch after one whose commit
 * is still in flight: arrivals only, after that batch's last key (`from`), without those it took
 * out (`skip`); leavers wait for a batch read after a commit landed.
 */
async function readBatch(
  ctx: QueueContext,
  q: string,
  ahead?: { from: Deno.KvKey; skip: Set<string> },
): Promise<Batch> {
  const arrivals: Deno.KvEntry<Visitor>[] = [];
  const notes: Deno.KvEntry<unknown>[] = [];
  const prefix = keys.arrivalPrefix(q);
  const same = (a: Deno.KvKey, b: Deno.KvKey) => a.every((x, i) => x === b[i]);
  const most = ROUND_MOST;
  const [, , numbering] = await Promise.all([
    (async () => {
      const sel = ahead ? { prefix, start: ahead.from } : { prefix };
      for await (const e of ctx.kv.list<Visitor>(sel, { limit: most + 1, batchSize: 500 })) {
        if (ahead && (same(e.key, ahead.from) || ahead.skip.has(e.value.id))) continue;
        if (arrivals.length < most) arrivals.push(e);
      }
    })(),
    (async () => {
      if (ahead) return;
      const it = ctx.kv.list({ prefix: keys.leftEarlyPrefix(q) }, { limit: LEFT_CHUNK });
      for await (const e of it) notes.push(e);
    })(),
    ahead ? undefined : ctx.kv.get<Numbering>(keys.numbering(q)),
  ]);
  const left: Deno.KvEntry<Visitor | null>[] = [];
  for (let i = 0; i < notes.length; i += 10) {
    const ids = notes.slice(i, i + 10).map((e) => e.key[2] as string);
    const got = await ctx.kv.getMany<Visitor[]>(ids.map((id) => keys.visitor(q, id)));
    left.push(...got as Deno.KvEntry<Visitor | null>[]);
  }
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
  left: Deno.KvEntry<Visitor | null>[],
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

/**
 * Numbers one arrival: its arrival number (and a closing window's round, into the counts commit
 * `op`), its record and line entry (unless a window join) into its chunk's commit `into`.
 * Returns its number and round (0 unless a window join).
 */
function numberOne(
  ctx: QueueContext,
  q: string,
  op: Deno.AtomicOperation,
  into: Deno.AtomicOperation,
  s: QueueSettings,
  c: Counts,
  e: Deno.KvEntry<Visitor>,
  lanes: Map<string, number>,
): [seq: number, round: number] {
  const ms = e.key[2] as number;
  const participant = ms >= windowStart(s) && inWindow(s, c, ms);
  // The window closes (at the first arrival from `opensAt` on) before anyone after it is numbered.
  if (!participant) settleRound(ctx, q, op, s, c, Math.max(ms, ctx.now()));
  const seq = participant ? c.nextSeq++ : nextInLine(c, lanes, e.value.lane);
  const round = participant ? c.preRound : 0;
  writeNumbered(into, q, e, seq, round);
  c.waiting++;
  c.numberedTo = Math.max(c.numberedTo, ms);
  return [seq, round];
}

/** What a sequencer run did: arrivals numbered, and early leavers numbered meanwhile. */
export interface Sequenced {
  numbered: number;
  leavers: string[];
}

/** The sequencer run of each queue in this process, while one runs (see `sequence`). */
const running = new WeakMap<QueueContext, Map<string, Promise<Sequenced>>>();

/** True while this process numbers `q`'s arrivals. */
export function sequencing(ctx: QueueContext, q: string): boolean {
  return running.get(ctx)?.has(q) ?? false;
}

/**
 * Numbers the arrivals of `q` that wait (and takes early leavers in), a round at a time, until
 * none is left or `budgetMs` has passed. Each round's counts commit checks the counts read before
 * its lists, so two sequencers never number one arrival twice. Returns how many it numbered, and
 * the leavers numbered meanwhile (their own leave goes on with the tick, see engine.ts). One run
 * at a time in a process: a call while one runs waits for it (and reports nothing of its own).
 */
export function sequence(ctx: QueueContext, q: string, budgetMs = 600): Promise<Sequenced> {
  const mine = running.get(ctx) ?? new Map<string, Promise<Sequenced>>();
  running.set(ctx, mine);
  const now = mine.get(q);
  const nothing = () => ({ numbered: 0, leavers: [] });
  if (now) return now.then(nothing, nothing);
  const run = sequenceRun(ctx, q, budgetMs).finally(() => mine.delete(q));
  mine.set(q, run);
  return run;
}

async function sequenceRun(ctx: QueueContext, q: string, budgetMs: number): Promise<Sequenced> {
  const end = Date.now() + budgetMs;
  let total = 0;
  const leavers: string[] = [];
  const run: Run = {
    id: `${ctx.instance}/${++runs}`,
    mine: null,
    lanes: await laneSlots(ctx.kv, q),
  };
  // What a commit that landed leaves for the next: its state (one read fewer a commit) and the
  // next batch, read while it was in flight. A lost commit makes the next round read afresh.
  let known: { state: State; next?: Promise<Batch> } | null = null;
  for (;;) {
    const out = await retryCommit(async () => {
      const state = known?.state ?? await ctx.readState(q);
      const batch = known?.next ? await known.next : await readBatch(ctx, q);
      known = null;
      const other = await otherRound(ctx, q, run, batch);
      if (other) return other === "finished" ? null : NONE;
      const done = await numberBatch(ctx, q, state, batch, run);
      if (done?.next) known = { state: done.next, next: done.ahead };
      return done;
    }, "sequence");
    // The round's other chunks, outside the retries of its counts commit (which landed).
    if (out.chunks && await landChunks(ctx, q, run.id, out.chunks)) run.mine = out.chunks.stamp;
    total += out.n;
    leavers.push(...out.numbered);
    if (out.taken === 0 && out.numbered.length === 0) break;
    if (Date.now() >= end) break;
  }
  // A read ahead nobody used (the budget ran out): its failure is nobody's.
  (known as { next?: Promise<Batch> } | null)?.next?.catch(() => {});
  // The record of this run's last wide round, every chunk of it landed: nothing to finish.
  const key = keys.numbering(q);
  if (run.mine) await ctx.kv.atomic().check({ key, versionstamp: run.mine }).delete(key).commit();
  if (total > 0 || leavers.length > 0) ctx.invalidate(q);
  return { numbered: total, leavers };
}

/** One sequencer run: its name in numbering records, the versionstamp of its own record. */
interface Run {
  id: string;
  /** Its numbering record as its last wide round left it, every chunk landed (null: none). */
  mine: string | null;
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
  taken: number;
  numbered: string[];
  next: State | null;
  ahead?: Promise<Batch>;
  /** A wide round's other chunks, to land once its counts commit did (see `landChunks`). */
  chunks?: { ops: Deno.AtomicOperation[]; stamp: string };
}

/** A round with nothing done. */
const NONE: Numbered = { n: 0, taken: 0, numbered: [], next: null };

/**
 * What a batch read afresh says of a numbering record this run did not leave: another
 * sequencer's round in flight ("stop": left to it), or a round cut short ("finished" here, then
 * read again). Null when there is none, or it is this run's own with every chunk landed.
 */
async function otherRound(
  ctx: QueueContext,
  q: string,
  run: Run,
  batch: Batch,
): Promise<"stop" | "finished" | null> {
  const found = batch.numbering;
  if (!found || found.versionstamp === run.mine) return null;
  run.mine = null;
  if (!found.value) return null;
  // This process runs one sequencer a queue: a record of another run of it is a dead run's.
  const dead = found.value.by.startsWith(`${ctx.instance}/`);
  const inFlight = !dead && ctx.now() - found.value.at < FRESH_MS;
  if (inFlight) return "stop";
  await finish(ctx, q, found as Deno.KvEntry<Numbering>);
  return "finished";
}

/**
 * Numbers the next round of arrivals (and takes early leavers in): its counts commit, checked
 * against `state`, then the round's other chunks side by side (see the header). Null when the
 * counts commit lost (the caller reads afresh and tries again).
 */
async function numberBatch(
  ctx: QueueContext,
  q: string,
  state: State,
  batch: Batch,
  run: Run,
): Promise<Numbered | null> {
  const { counts, entry, settings, settingsEntry } = state;
  if (!settings || (batch.arrivals.length === 0 && batch.left.length === 0)) return NONE;
  const mine = { key: keys.numbering(q), versionstamp: run.mine };
  const op = ctx.kv.atomic().check(entry, settingsEntry, mine);
  // The pre-queue's round opens with the window's first numbering (its commitment); it
  // closes at the first arrival from `opensAt` on (in `numberOne`), or before the draw.
  const opensAt = settings.opensAt ?? Infinity;
  settleRound(ctx, q, op, settings, counts, Math.min(ctx.now(), opensAt - 1));
  const { gone, numbered } = takeLeavers(op, q, batch.left);
  const { n, chunks } = numberChunks(ctx, q, op, state, batch.arrivals, gone, run);
  // Every arrival read is taken in, numbered or gone (never more than the sum holds). The
  // sum is the one read after the lists: the one read with the counts may predate arrivals
  // listed since, which then stayed in the sum for good (phantom waiters on every instance).
  takeIn(op, keys.arrivalsPending(q), Math.min(batch.pending, n + gone.size));
  op.set(keys.counts(q), counts);
  const sent = op.commit();
  // The next batch is read while this commit is in flight: after this one's last arrival,
  // without the early leavers it took out (their arrival entries go with this commit).
  // A batch of leavers alone reads nothing ahead: the next batch is read once this one landed.
  const last = batch.arrivals.at(-1)?.key;
  const ahead = last ? readBatch(ctx, q, { from: last, skip: gone }) : undefined;
  const res = await sent;
  if (!res.ok) {
    ahead?.catch(() => {});
    return null;
  }
  const next = { ...state, counts: structuredClone(counts) };
  next.entry = { key: entry.key, value: next.counts, versionstamp: res.versionstamp };
  // The record is this round's now, or gone: `landChunks` says once every chunk of it landed.
  run.mine = null;
  const rest = chunks.length > 0 ? { ops: chunks, stamp: res.versionstamp } : undefined;
  return { n, taken: n + gone.size, numbered, next, ahead, chunks: rest };
}

/**
 * Numbers a round's arrivals (less the early leavers `gone`): the first chunk into the counts
 * commit `op`, the others into commits of their own (returned), whose numbers `op` records
 * (`keys.numbering`); a round of one chunk deletes the record of the run's last wide round.
 */
function numberChunks(
  ctx: QueueContext,
  q: string,
  op: Deno.AtomicOperation,
  { settings, counts }: State,
  arrivals: Deno.KvEntry<Visitor>[],
  gone: Set<string>,
  run: Run,
): { n: number; chunks: Deno.AtomicOperation[] } {
  const record = newRecord(run.id, ctx.now(), (arrivals[0]?.key[2] ?? 0) as number);
  const chunks: Deno.AtomicOperation[] = [];
  let n = 0;
  for (const e of arrivals) {
    if (gone.has(e.value.id)) continue;
    const c = Math.floor(n++ / SEQUENCE_CHUNK);
    if (c > chunks.length) chunks.push(ctx.kv.atomic());
    const [seq, round] = numberOne(
      ctx,
      q,
      op,
      c ? chunks[c - 1] : op,
      settings!,
      counts,
      e,
      run.lanes,
    );
    if (c > 0) noteNumbered(record, e.key, seq, round);
  }
  if (chunks.length > 0) op.set(keys.numbering(q), record);
  else if (run.mine) op.delete(keys.numbering(q));
  return { n, chunks };
}
