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

/**
 * Arrivals numbered per commit: three mutations each (record, line entry, arrival entry), with
 * room left for early leavers (four each) and the counters, under KV's 1,000 a commit.
 */
export const SEQUENCE_CHUNK = 290;
/** Early leavers taken in per commit (each read, then up to four mutations). */
const LEFT_CHUNK = 20;

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
  await Promise.all([
    (async () => {
      const sel = ahead ? { prefix, start: ahead.from } : { prefix };
      for await (const e of ctx.kv.list<Visitor>(sel, { limit: SEQUENCE_CHUNK + 1 })) {
        if (ahead && (same(e.key, ahead.from) || ahead.skip.has(e.value.id))) continue;
        if (arrivals.length < SEQUENCE_CHUNK) arrivals.push(e);
      }
    })(),
    (async () => {
      if (ahead) return;
      const it = ctx.kv.list({ prefix: keys.leftEarlyPrefix(q) }, { limit: LEFT_CHUNK });
      for await (const e of it) notes.push(e);
    })(),
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
  return { arrivals, left, pending };
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

/** Numbers one arrival into `op`: its arrival number, line entry (unless a window join), record. */
function numberOne(
  ctx: QueueContext,
  q: string,
  op: Deno.AtomicOperation,
  s: QueueSettings,
  c: Counts,
  e: Deno.KvEntry<Visitor>,
  lanes: Map<string, number>,
): void {
  const ms = e.key[2] as number;
  const participant = ms >= windowStart(s) && inWindow(s, c, ms);
  // The window closes (at the first arrival from `opensAt` on) before anyone after it is numbered.
  if (!participant) settleRound(ctx, q, op, s, c, Math.max(ms, ctx.now()));
  const { mark: _, ...rest } = e.value;
  const v: Visitor = { ...rest, seq: participant ? c.nextSeq++ : nextInLine(c, lanes, rest.lane) };
  if (participant) v.round = c.preRound;
  // Its deadline entry stays as the join wrote it (nothing reads its value): three mutations.
  op.set(keys.visitor(q, v.id), v).delete(e.key);
  if (!participant) op.set(keys.fifo(q, v.seq), v.id);
  c.waiting++;
  c.numberedTo = Math.max(c.numberedTo, ms);
}

/**
 * Numbers the arrivals of `q` that wait (and takes early leavers in), a chunk a commit, until none
 * is left or `budgetMs` has passed. Each commit checks the counts read before its lists, so two
 * sequencers never number one arrival twice. Returns how many it numbered, and the leavers
 * numbered meanwhile (their own leave goes on with the tick, see engine.ts).
 */
export async function sequence(
  ctx: QueueContext,
  q: string,
  budgetMs = 600,
): Promise<{ numbered: number; leavers: string[] }> {
  const end = Date.now() + budgetMs;
  let total = 0;
  const leavers: string[] = [];
  const lanes = await laneSlots(ctx.kv, q);
  // What a commit that landed leaves for the next: its state (one read fewer a commit) and the
  // next batch, read while it was in flight. A lost commit makes the next round read afresh.
  let known: { state: State; next?: Promise<Batch> } | null = null;
  for (;;) {
    const out = await retryCommit(async () => {
      const state = known?.state ?? await ctx.readState(q);
      const batch = known?.next ? await known.next : await readBatch(ctx, q);
      known = null;
      const done = await numberBatch(ctx, q, state, batch, lanes);
      if (done?.next) known = { state: done.next, next: done.ahead };
      return done;
    }, "sequence");
    total += out.n;
    leavers.push(...out.numbered);
    if (out.taken === 0 && out.numbered.length === 0) break;
    if (Date.now() >= end) break;
  }
  // A read ahead nobody used (the budget ran out): its failure is nobody's.
  (known as { next?: Promise<Batch> } | null)?.next?.catch(() => {});
  if (total > 0 || leavers.length > 0) ctx.invalidate(q);
  return { numbered: total, leavers };
}

/** The counts and settings a sequencing commit checks (as `ctx.readState` reads them). */
type State = Pick<
  Awaited<ReturnType<QueueContext["readState"]>>,
  "counts" | "entry" | "settings" | "settingsEntry"
>;

/** What one sequencing commit did, the state it left and the batch after it (read ahead). */
interface Numbered {
  n: number;
  taken: number;
  numbered: string[];
  next: State | null;
  ahead?: Promise<Batch>;
}

/**
 * Numbers the next chunk of arrivals (and takes early leavers in) in one commit checked against
 * `state`; null when the commit lost (the caller reads afresh and tries again).
 */
async function numberBatch(
  ctx: QueueContext,
  q: string,
  state: State,
  batch: Batch,
  lanes: Map<string, number>,
): Promise<Numbered | null> {
  const { counts, entry, settings, settingsEntry } = state;
  const none = { n: 0, taken: 0, numbered: [], next: null };
  if (!settings) return none;
  if (batch.arrivals.length === 0 && batch.left.length === 0) return none;
  const op = ctx.kv.atomic().check(entry, settingsEntry);
  // The pre-queue's round opens with the window's first numbering (its commitment); it
  // closes at the first arrival from `opensAt` on (in `numberOne`), or before the draw.
  const opensAt = settings.opensAt ?? Infinity;
  settleRound(ctx, q, op, settings, counts, Math.min(ctx.now(), opensAt - 1));
  const { gone, numbered } = takeLeavers(op, q, batch.left);
  let n = 0;
  for (const e of batch.arrivals) {
    if (gone.has(e.value.id)) continue;
    numberOne(ctx, q, op, settings, counts, e, lanes);
    n++;
  }
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
  return { n, taken: n + gone.size, numbered, next, ahead };
}
