/**
 * The opening draw of a pre-queue, run at `opensAt`: fix the list of participants (arrival
 * numbers still waiting from the window), publish its hash and reveal the seed in one write, then
 * store every participant's place (a compact table, see placement.ts) and its line entry, and open
 * admissions. Participants' records are not rewritten: each reads as placed through the table.
 *
 * Crash safety: each step is a checked or repeatable write that a rerun resumes from. The seed was
 * fixed when the window opened and the list is stored under its hash before the state says
 * `listed`, so a rerun (here or on another instance) recomputes the same order and table. While
 * the draw runs, check-ins of participants write nothing (see `frozenForDraw`); every removal of a
 * participant bumps a guard key that each line-entry write checks, so a leave or lapse meanwhile
 * makes the draw read those records again and nobody comes back; and a removal that found no
 * places yet checks that they are still absent, so it cannot miss a line entry written meanwhile.
 * Places are arrival numbers kept after the window (`preCutoff` on), so later arrivals queue
 * behind them and exact positions keep working unchanged.
 */
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import type { QueueContext } from "./context.ts";
import { drawOrder } from "./draw_scheme.ts";
import { readList, storeList } from "./draw_list.ts";
import { storePlaces } from "./placement.ts";
import { type DrawRecord, settleRoundNow } from "./prequeue.ts";
import { prequeuePhase } from "./prequeue_phase.ts";
import type { QueueSettings, Visitor } from "./types.ts";

/** Records (or line entries) written per commit (an op allows 1000 mutations). */
const MOVE_CHUNK = 900;

/** Test hooks: a smaller write size, and a call after each write (a test may stop there). */
export interface DrawOptions {
  chunk?: number;
  onMoved?: (moved: number) => Promise<void> | void;
  /** Called as each step ends (the bench times them). */
  onStep?: (step: "listed" | "ordered" | "placed" | "moved" | "logged" | "done") => void;
}

/**
 * The window's waiting participants, arrival number to visitor id, and whether waiters from
 * before the window are in line. Participants who joined under a version that did not mark their
 * round are marked now, before any place exists, so they read as placed like the others.
 */
async function scanWindow(ctx: QueueContext, q: string, rec: DrawRecord, cutoff: number) {
  const byArrival = new Map<number, string>();
  const unmarked: Deno.KvEntry<Visitor>[] = [];
  let legacy = false;
  const iter = ctx.kv.list<Visitor>({ prefix: keys.visitorPrefix(q) }, { batchSize: 1000 });
  for await (const e of iter) {
    const v = e.value;
    if (v.state !== "waiting") continue;
    if (v.seq >= rec.preFrom && v.seq < cutoff && v.arrival === undefined) {
      byArrival.set(v.seq, v.id);
      if (v.round === undefined) unmarked.push(e as Deno.KvEntry<Visitor>);
    } else if (v.arrival !== undefined && v.arrival >= rec.preFrom && v.arrival < cutoff) {
      // Moved to its place by an older version's run of this draw (same order, same place).
      byArrival.set(v.arrival, v.id);
    } else if (v.seq < rec.preFrom) legacy = true;
  }
  for (let e of unmarked) {
    const a = e.value.seq;
    for (;;) {
      const next = { ...e.value, round: rec.round };
      if ((await ctx.kv.atomic().check(e).set(e.key, next).commit()).ok) break;
      const again = await ctx.kv.get<Visitor>(e.key);
      const v = again.value;
      if (v?.state !== "waiting" || v.seq !== a || v.round !== undefined) {
        if (v?.state !== "waiting" || v.seq !== a) byArrival.delete(a);
        break;
      }
      e = again as Deno.KvEntry<Visitor>;
    }
  }
  return { byArrival, legacy };
}

/** Fixes the list: stored under its hash, then hash and seed published in one checked write. */
async function fixList(
  ctx: QueueContext,
  q: string,
  entry: Deno.KvEntry<DrawRecord>,
) {
  const rec = entry.value;
  // Read before the scan: a removal after it shows in the guard, which every move checks.
  const guard = await ctx.kv.get<Deno.KvU64>(keys.drawGuard(q));
  const { counts } = await ctx.readCounts(q);
  const cutoff = counts.preCutoff, reserved = counts.preReserved;
  const { byArrival, legacy } = await scanWindow(ctx, q, rec, cutoff);
  const list = [...byArrival.keys()].sort((a, b) => a - b);
  const { hash, chunks } = await storeList(ctx, q, rec, list);
  const seed = (await ctx.kv.get<{ round: number; seed: string }>(keys.drawSeed(q))).value;
  if (!seed || seed.round !== rec.round) throw new Error(`draw seed of queue "${q}" is missing`);
  const next: DrawRecord = {
    ...rec,
    state: "listed",
    cutoff,
    reserved,
    count: list.length,
    listHash: hash,
    chunks,
    seed: seed.seed,
    listedAt: ctx.now(),
    legacy,
  };
  const res = await ctx.kv.atomic().check(entry).set(keys.draw(q), next).commit();
  if (res.ok) return { rec: next, scanned: { byArrival, guard } };
  // Another instance fixed it first: its list is the one (ours is left unused under our hash).
  const now = (await ctx.kv.get<DrawRecord>(keys.draw(q))).value!;
  return { rec: now, scanned: now.listHash === hash ? { byArrival, guard } : null };
}

/** What the moves know: records by arrival number, and the guard read before they were. */
interface Known {
  byArrival: Map<number, string>;
  guard: Deno.KvEntryMaybe<Deno.KvU64>;
}

/**
 * Writes `items` in commits of `size`, each checked against the guard. After a lost check (a
 * participant left) the guard is read again and every later commit first calls `refresh` on its
 * items, reading their records afresh. Returns how many items were written.
 */
async function guarded<T>(
  ctx: QueueContext,
  q: string,
  known: Known,
  items: T[],
  size: number,
  put: (op: Deno.AtomicOperation, item: T, now: number) => boolean,
  refresh: (items: T[]) => Promise<void>,
  onDone?: (n: number) => Promise<void> | void,
): Promise<number> {
  let total = 0, fresh = false;
  for (let i = 0; i < items.length; i += size) {
    const chunk = items.slice(i, i + size);
    let n = 0;
    await retryCommit(async () => {
      if (fresh) {
        known.guard = await ctx.kv.get<Deno.KvU64>(keys.drawGuard(q));
        await refresh(chunk);
      }
      const op = ctx.kv.atomic().check(known.guard);
      const now = ctx.now();
      n = 0;
      for (const item of chunk) if (put(op, item, now)) n++;
      if (n === 0 || (await op.commit()).ok) return true;
      fresh = true;
      return null;
    }, "draw");
    total += n;
    await onDone?.(total);
  }
  return total;
}

/** Reads the records of `arrivals` afresh (10 keys a read); keeps those `still` accepts. */
async function reread(
  ctx: QueueContext,
  q: string,
  byArrival: Map<number, string>,
  arrivals: number[],
  still: (a: number, v: Visitor) => boolean,
): Promise<void> {
  for (let k = 0; k < arrivals.length; k += 10) {
    const part = arrivals.slice(k, k + 10).filter((a) => byArrival.has(a));
    const got = await ctx.kv.getMany<Visitor[]>(
      part.map((a) => keys.visitor(q, byArrival.get(a)!)),
    );
    got.forEach((g, j) => {
      if (g.value?.state !== "waiting" || !still(part[j], g.value)) byArrival.delete(part[j]);
    });
  }
}

/**
 * Stores the places (the table, then its pointer record, which says it is complete) before any
 * line entry: a removal that read no pointer checks that it is still absent, so it fails and
 * reads the record as placed once line entries may exist.
 */
async function storeTable(ctx: QueueContext, q: string, rec: DrawRecord, order: number[]) {
  const ptr = keys.drawPlaced(q, rec.round);
  if ((await ctx.kv.get(ptr)).value) return;
  const p = { preFrom: rec.preFrom, cutoff: rec.cutoff!, listHash: rec.listHash! };
  const placed = await storePlaces(ctx.kv, q, p, order);
  await ctx.kv.atomic().check({ key: ptr, versionstamp: null }).set(ptr, placed).commit();
}

/**
 * Places the participants: the table of places by arrival number (a few compact writes), then
 * their line entries in place order, in writes checked against the guard. Their records are not
 * rewritten (that was half the draw's writes): each is read through the table until its next
 * write (see placement.ts). Admissions wait for all of it; a rerun redoes what is missing.
 */
async function placeAll(
  ctx: QueueContext,
  q: string,
  rec: DrawRecord,
  scanned: Known | null,
  opts: DrawOptions,
): Promise<number> {
  let known: Known, list: number[];
  if (scanned) {
    known = scanned;
    list = [...known.byArrival.keys()].sort((a, b) => a - b);
  } else {
    const guard = await ctx.kv.get<Deno.KvU64>(keys.drawGuard(q));
    const scan = await scanWindow(ctx, q, rec, rec.cutoff!);
    known = { byArrival: scan.byArrival, guard };
    list = await readList(ctx, q, rec);
  }
  const order = drawOrder(rec.seed!, list, rec.listHash!);
  opts.onStep?.("ordered");
  await storeTable(ctx, q, rec, order);
  if (rec.legacy) await logWindowGone(ctx, q, list);
  opts.onStep?.("placed");
  const placeOf = new Map<number, number>();
  order.forEach((a, i) => placeOf.set(a, rec.cutoff! + i));
  const byArrival = known.byArrival;
  // Still waiting, and still this arrival (as the window left it, or as placed).
  const still = (a: number, v: Visitor) =>
    (v.seq === a && v.round === rec.round) || v.arrival === a;
  return await guarded(
    ctx,
    q,
    known,
    order.filter((a) => byArrival.has(a)),
    opts.chunk ?? MOVE_CHUNK,
    (op, a) => {
      const id = byArrival.get(a);
      if (id === undefined) return false;
      op.set(keys.fifo(q, placeOf.get(a)!), id);
      return true;
    },
    (chunk) => reread(ctx, q, byArrival, chunk, still),
    opts.onMoved,
  );
  // One that leaves after its line entry is written removes the entry itself (it reads its
  // record through the stored places).
}

/**
 * Waiters from before the window are still in line: the window's arrival numbers lie between
 * them and the places, so they are logged as gone (positions count past them). Plain writes: a
 * rerun writes the same keys.
 */
async function logWindowGone(ctx: QueueContext, q: string, list: number[]): Promise<void> {
  const now = ctx.now();
  for (let i = 0; i < list.length; i += 1000) {
    const op = ctx.kv.atomic();
    for (const a of list.slice(i, i + 1000)) op.set(keys.gone(q, now, a), 1);
    await op.commit();
  }
}

/** Logs the places nobody took (left before being moved, or spare), so positions stay exact. */
async function logEmptyPlaces(ctx: QueueContext, q: string, rec: DrawRecord): Promise<void> {
  const from = rec.cutoff!, to = rec.cutoff! + rec.reserved!;
  const taken = new Set<number>();
  for await (
    const e of ctx.kv.list({ start: keys.fifo(q, from), end: keys.fifo(q, to) }, {
      batchSize: 1000,
    })
  ) taken.add(e.key[2] as number);
  let op = ctx.kv.atomic(), n = 0;
  const now = ctx.now();
  for (let s = from; s < to; s++) {
    if (taken.has(s)) continue;
    op.set(keys.gone(q, now, s), 1);
    if (++n % 900 === 0) await op.commit(), op = ctx.kv.atomic();
  }
  await op.commit();
}

/** Marks the draw done and opens admissions, in one write checked against both records. */
async function finish(ctx: QueueContext, q: string, round: number): Promise<DrawRecord> {
  const out = await retryCommit(async () => {
    const [entry, { settings, entry: se, guardsEntry }] = await Promise.all([
      ctx.kv.get<DrawRecord>(keys.draw(q)),
      ctx.readSettingsEntry(q),
    ]);
    const rec = entry.value!;
    if (rec.state === "done" || !settings) return rec;
    const done: DrawRecord = { ...rec, state: "done", drawnAt: ctx.now() };
    const s: QueueSettings = { ...settings, drawnFor: round };
    const res = await ctx.kv.atomic().check(entry, se, guardsEntry).set(keys.draw(q), done)
      .set(keys.queue(q), s).commit();
    return res.ok ? done : null;
  }, "draw finish");
  ctx.invalidate(q);
  return out;
}

/**
 * Runs (or resumes) the opening draw of `q` when it is due; the record when done, else null.
 * Safe to call again at any point, from any instance.
 */
export async function runDraw(
  ctx: QueueContext,
  q: string,
  opts: DrawOptions = {},
): Promise<DrawRecord | null> {
  await settleRoundNow(ctx, q);
  const settings = await ctx.readSettings(q);
  if (!settings || prequeuePhase(settings, ctx.now()) !== "drawing") return null;
  let entry = await ctx.kv.get<DrawRecord>(keys.draw(q));
  if (!entry.value || entry.value.round !== settings.opensAt) return null;
  let known: Known | null = null;
  if (entry.value.state === "committed") {
    const fixed = await fixList(ctx, q, entry as Deno.KvEntry<DrawRecord>);
    known = fixed.scanned;
    opts.onStep?.("listed");
    entry = await ctx.kv.get<DrawRecord>(keys.draw(q));
  }
  const rec = entry.value!;
  if (rec.state === "listed") {
    const moved = await placeAll(ctx, q, rec, known, opts);
    opts.onStep?.("moved");
    // Every place taken by this run: nothing to log (a rerun cannot tell, so it looks).
    if (!(known && moved === rec.count && rec.count === rec.reserved)) {
      await logEmptyPlaces(ctx, q, rec);
    }
    opts.onStep?.("logged");
  }
  const done = await finish(ctx, q, rec.round);
  opts.onStep?.("done");
  return done;
}
