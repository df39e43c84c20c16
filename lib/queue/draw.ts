/**
 * The opening draw of a pre-queue, run at `opensAt`: fix the list of participants (arrival
 * numbers still waiting from the window), publish its hash and reveal the seed in one write, then
 * move every participant to its drawn place, and open admissions.
 *
 * Crash safety: each step is a checked write that a rerun resumes from. The seed was fixed when
 * the window opened and the list is stored under its hash before the state says `listed`, so a
 * rerun (here or on another instance) recomputes the same order. While the draw runs, a
 * participant's record changes only by the draw (check-ins answer without writing, see
 * `frozenForDraw`), and every removal of a participant bumps a guard key that each move checks:
 * a leave or lapse meanwhile makes the move read its records again, so nobody comes back or is
 * lost, and two runs write the same places.
 * Places are arrival numbers kept after the window (`preCutoff` on), so later arrivals queue
 * behind them and exact positions keep working unchanged.
 */
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import type { QueueContext } from "./context.ts";
import { drawOrder, listHashOf, type PublicDraw } from "./draw_scheme.ts";
import { type DrawRecord, settleRoundNow } from "./prequeue.ts";
import { prequeuePhase } from "./prequeue_phase.ts";
import type { QueueSettings, Visitor } from "./types.ts";

/** Records (or line entries) written per commit (an op allows 1000 mutations). */
const MOVE_CHUNK = 900;
/** Arrival numbers per stored list chunk (4 bytes each, under the 64 KiB value limit). */
const LIST_CHUNK = 16_000;

/** Test hooks: a smaller write size, and a call after each write (a test may stop there). */
export interface DrawOptions {
  chunk?: number;
  onMoved?: (moved: number) => Promise<void> | void;
  /** Called as each step ends (the bench times them). */
  onStep?: (step: "listed" | "ordered" | "records" | "moved" | "logged" | "done") => void;
}

type Entry = Deno.KvEntry<Visitor>;

/**
 * The window's waiting participants by arrival number: not moved yet (`byArrival`) and already
 * moved by an earlier run (`moved`); and whether waiters from before the window are in line.
 */
async function scanWindow(ctx: QueueContext, q: string, rec: DrawRecord, cutoff: number) {
  const byArrival = new Map<number, Entry>();
  const moved = new Map<number, Entry>();
  let legacy = false;
  const iter = ctx.kv.list<Visitor>({ prefix: keys.visitorPrefix(q) }, { batchSize: 1000 });
  for await (const e of iter) {
    const v = e.value;
    if (v.state !== "waiting") continue;
    if (v.seq >= rec.preFrom && v.seq < cutoff) byArrival.set(v.seq, e as Entry);
    else if (v.seq < rec.preFrom) legacy = true;
    else if (v.arrival !== undefined && v.arrival >= rec.preFrom && v.arrival < cutoff) {
      moved.set(v.arrival, e as Entry);
    }
  }
  return { byArrival, moved, legacy };
}

/** Stores the list in chunks under its hash (offsets from `preFrom`, 4 bytes big-endian each). */
async function storeList(ctx: QueueContext, q: string, rec: DrawRecord, list: number[]) {
  const hash = listHashOf(list);
  let chunks = 0;
  for (let i = 0; i < list.length || i === 0; i += LIST_CHUNK, chunks++) {
    const part = list.slice(i, i + LIST_CHUNK);
    const bytes = new Uint8Array(part.length * 4);
    const dv = new DataView(bytes.buffer);
    part.forEach((a, j) => dv.setUint32(j * 4, a - rec.preFrom));
    await ctx.kv.set(keys.drawList(q, hash, chunks), bytes);
  }
  return { hash, chunks };
}

/** Reads a fixed list back from its chunks. */
export async function readList(ctx: QueueContext, q: string, rec: DrawRecord): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < (rec.chunks ?? 0); i++) {
    const b = (await ctx.kv.get<Uint8Array>(keys.drawList(q, rec.listHash!, i))).value;
    if (!b) throw new Error(`draw list chunk ${i} of queue "${q}" is missing`);
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    for (let j = 0; j < b.length; j += 4) out.push(rec.preFrom + dv.getUint32(j));
  }
  return out;
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
  byArrival: Map<number, Entry>;
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
  byArrival: Map<number, Entry>,
  arrivals: number[],
  still: (a: number, v: Visitor) => boolean,
): Promise<void> {
  for (let k = 0; k < arrivals.length; k += 10) {
    const part = arrivals.slice(k, k + 10).filter((a) => byArrival.has(a));
    const got = await ctx.kv.getMany<Visitor[]>(part.map((a) => byArrival.get(a)!.key));
    got.forEach((g, j) => {
      if (g.value?.state === "waiting" && still(part[j], g.value)) {
        byArrival.set(part[j], g as Entry);
      } else byArrival.delete(part[j]);
    });
  }
}

/**
 * Moves the participants to their drawn places in two passes of plain writes, each in key order
 * (random order made the writes several times slower on a KV file): the records take their place
 * as their arrival-order key, keeping the arrival number, in arrival order; then the line gets
 * their entries, in place order. Admissions wait for both; a rerun redoes what is missing.
 */
async function moveAll(
  ctx: QueueContext,
  q: string,
  rec: DrawRecord,
  scanned: Known | null,
  opts: DrawOptions,
): Promise<number> {
  const cutoff = rec.cutoff!;
  let known: Known, list: number[];
  const moved = new Map<number, Entry>();
  if (scanned) {
    known = scanned;
    list = [...known.byArrival.keys()].sort((a, b) => a - b);
  } else {
    const guard = await ctx.kv.get<Deno.KvU64>(keys.drawGuard(q));
    const scan = await scanWindow(ctx, q, rec, cutoff);
    known = { byArrival: scan.byArrival, guard };
    for (const [a, e] of scan.moved) moved.set(a, e);
    list = await readList(ctx, q, rec);
  }
  const order = drawOrder(rec.seed!, list, rec.listHash!);
  const placeOf = new Map<number, number>();
  order.forEach((a, i) => placeOf.set(a, cutoff + i));
  opts.onStep?.("ordered");
  const size = opts.chunk ?? MOVE_CHUNK;
  const byArrival = known.byArrival;
  // Pass 1: records.
  const unmoved = list.filter((a) => byArrival.has(a));
  const n = await guarded(
    ctx,
    q,
    known,
    unmoved,
    rec.legacy ? Math.floor(size / 2) : size,
    (op, a, now) => {
      const e = byArrival.get(a);
      if (!e) return false;
      const v: Visitor = { ...e.value, seq: placeOf.get(a)!, arrival: a };
      op.set(e.key, v);
      // Waiters from before the window still in line: the vacated numbers count as gone.
      if (rec.legacy) op.set(keys.gone(q, now, a), 1);
      moved.set(a, { ...e, value: v });
      return true;
    },
    (chunk) => reread(ctx, byArrival, chunk, (a, v) => v.seq === a),
    opts.onMoved,
  );
  opts.onStep?.("records");
  // Pass 2: line entries, for everyone moved (now or by an earlier run) and still waiting.
  const placed = order.filter((a) => moved.has(a));
  await guarded(
    ctx,
    q,
    known,
    placed,
    size,
    (op, a) => {
      const e = moved.get(a);
      if (!e) return false;
      op.set(keys.fifo(q, e.value.seq), e.value.id);
      return true;
    },
    (chunk) => reread(ctx, moved, chunk, (a, v) => v.seq === placeOf.get(a)),
  );
  // One that leaves after its line entry is written removes the entry itself.
  return n;
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
  let known: Parameters<typeof moveAll>[3] = null;
  if (entry.value.state === "committed") {
    const fixed = await fixList(ctx, q, entry as Deno.KvEntry<DrawRecord>);
    known = fixed.scanned;
    opts.onStep?.("listed");
    entry = await ctx.kv.get<DrawRecord>(keys.draw(q));
  }
  const rec = entry.value!;
  if (rec.state === "listed") {
    const moved = await moveAll(ctx, q, rec, known, opts);
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

/** The record as anyone may see it once published: no opening time, no internal numbers. */
export async function publicDraw(
  ctx: QueueContext,
  q: string,
  rec: DrawRecord,
): Promise<PublicDraw> {
  const out: PublicDraw = {
    scheme: rec.scheme,
    queue: q,
    state: rec.state,
    commitment: rec.commitment,
    committedAt: rec.committedAt,
  };
  if (rec.state === "committed") return out;
  const list = await readList(ctx, q, rec);
  return {
    ...out,
    count: rec.count,
    listHash: rec.listHash,
    seed: rec.seed,
    list,
    order: drawOrder(rec.seed!, list, rec.listHash!),
    drawnAt: rec.drawnAt,
  };
}
