/**
 * Admissions, expiries and drops into an op the caller commits with the counts: the tick's rounds
 * (by the rate budget) and the operator's force-admit. Silent waiters within their grace are
 * passed over and keep their place.
 */
import { retryCommit } from "../store/commit.ts";
import { deleteListed } from "../store/delete.ts";
import { keys } from "../store/keys.ts";
import { bucketCap, dropAt, openSlots, type QueueContext, refill, wholeTokens } from "./context.ts";
import { admitWaiting, logGone, releaseSlot, removeWaiting, returnToLine } from "./records.ts";
import { countTraffic } from "../traffic.ts";
import type { Counts, QueueSettings } from "./types.ts";
import { lotteryDrawsAtTick } from "./view.ts";
import { noteSessionEnd } from "../session/stats.ts";
import { chooseByLane } from "../priority/choose.ts";
import { addLaneAdmitted, slotOf } from "../priority/line.ts";
import { AHEAD, type Read, readKnown, startTickReads, type TickReads } from "./tick_reads.ts";

/** Visitors touched by one atomic op: each costs one check (limit 100) and up to 5 mutations. */
const CHUNK = 80;
/** Silent waiters passed over whose record notes it, at most, by one set of passed waiters. */
const PASS_NOTES = 10;
const notesIn = new WeakMap<Set<string>, number>();

/** One admitting op under way (a tick's round, a force-admit's commit): what its steps share. */
export interface Round {
  ctx: QueueContext;
  q: string;
  op: Deno.AtomicOperation;
  counts: Counts;
  settings: QueueSettings;
  /** Visitors the op changed other than by admitting them (dropped, expired). */
  handled: Set<string>;
  /** Silent waiters passed over (across a tick's rounds). */
  passed: Set<string>;
  /** Visitors the op admits: still in the line's index, so the next choice skips them. */
  admitted: Set<string>;
}

/** The ids a round's next choice skips. */
const skipOf = (r: Round) => new Set([...r.handled, ...r.passed, ...r.admitted]);

/**
 * Picks up to `n` waiters uniformly at random. While 1000 or fewer wait, from the full list;
 * beyond that by rejection sampling: a uniform arrival number between the head and the newest,
 * kept only when that arrival is still waiting, which is exactly uniform among the waiters.
 */
async function pickRandom({ ctx, q, counts }: Round, n: number, exclude: Set<string>) {
  const few = counts.waiting <= 1000;
  const ids = new Set<string>();
  const all: string[] = [];
  let head: number | null = null;
  for await (
    const e of ctx.kv.list<string>(keys.fifoLine(q, 0), { limit: few ? 1000 + exclude.size : 1 })
  ) {
    head ??= e.key[2] as number;
    if (!exclude.has(e.value)) all.push(e.value);
  }
  if (head === null) return [];
  // From the whole list: each pick is swapped out of the rest.
  while (few && ids.size < n && all.length > 0) {
    const j = Math.floor(ctx.random.float() * all.length);
    ids.add(all[j]);
    all[j] = all[all.length - 1];
    all.pop();
  }
  const span = counts.nextSeq - head;
  for (let round = 0; !few && ids.size < n && round < 200; round++) {
    const seqs = Array.from({ length: 10 }, () => head + Math.floor(ctx.random.float() * span));
    for (const e of await ctx.kv.getMany<string[]>(seqs.map((s) => keys.fifo(q, s)))) {
      if (e.value && !exclude.has(e.value) && ids.size < n) ids.add(e.value);
    }
  }
  return [...ids];
}

/** Chooses the next `n` waiters by the queue's mode. */
async function chooseWaiters(
  r: Round,
  n: number,
  ahead?: Deno.KvEntry<string>[],
): Promise<{ ids: string[]; fromHead: boolean }> {
  const { ctx, q } = r;
  const exclude = skipOf(r);
  if (n <= 0) return { ids: [], fromHead: true };
  if (r.settings.mode === "lottery") {
    return { ids: await pickRandom(r, n, exclude), fromHead: false };
  }
  // Waiters dropped earlier in the same op are still in the index: skip them. The line's head
  // read ahead with the tick's other lists serves when it is long enough.
  const ids: string[] = [];
  const limit = n + exclude.size;
  const iter = ahead && limit <= AHEAD
    ? ahead.slice(0, limit)
    : ctx.kv.list<string>(keys.fifoLine(q, 0), { limit });
  for await (const e of iter) {
    if (ids.length >= n) break;
    if (!exclude.has(e.value)) ids.push(e.value);
  }
  return { ids, fromHead: true };
}

/**
 * Admits the chosen visitors into `op`; returns how many. A silent waiter (past its liveness
 * deadline, within its grace) is passed over and keeps its place: nobody could learn of an
 * admission now, so its slot would be wasted; it goes into `passed` so the caller chooses past it.
 * One silent past its grace is dropped (into `handled`).
 */
async function admitInto(
  r: Round,
  { ids, fromHead }: { ids: string[]; fromHead: boolean },
  limit = Infinity,
  known?: Promise<Read[]>,
): Promise<number> {
  const { ctx, q, op, counts, settings, handled, passed, admitted } = r;
  const now = ctx.now();
  const branding = await ctx.branding(q);
  let n = 0;
  for (const e of await readKnown(ctx, q, ids.filter((id) => !handled.has(id)), known)) {
    const v = e.value;
    if (n >= limit) break;
    // Not placed by its draw yet (admissions wait for the draw; kept for safety).
    if (v.state !== "waiting" || e.unplaced) continue;
    if (v.deadline < now && dropAt(settings, v.deadline) >= now) {
      passed.add(v.id);
      // Its turn came while it was away: noted once (the turn e-mail is how it learns), a few
      // a round so the op stays within its checks (the others at a later tick).
      const notes = notesIn.get(passed) ?? 0;
      if (v.passedAt === undefined && notes < PASS_NOTES) {
        op.check(e).set(keys.visitor(q, v.id), { ...v, passedAt: now });
        notesIn.set(passed, notes + 1);
      }
      continue;
    }
    op.check(e);
    if (v.deadline < now) {
      // Silent past its grace: dropped, counted as abandoned.
      removeWaiting(op, q, v, counts, now);
      counts.abandoned++;
      handled.add(v.id);
      continue;
    }
    // The hold starts when the visitor can learn of it: its next check-in. Without
    // click-to-enter it also lasts as long as a late check-in would have kept its place.
    let hold = Math.max(now, v.nextCheckAt) + branding.admitHoldSeconds * 1000;
    if (!branding.clickToEnter) hold = Math.max(hold, v.deadline);
    admitWaiting(op, q, v, counts, now, hold);
    admitted.add(v.id);
    // Not from the head when a silent waiter ahead of it keeps its place: logged for positions.
    if (!fromHead || passed.size > 0) logGone(op, q, v, now);
    n++;
  }
  countTraffic(op, q, now, "out", n);
  return n;
}

/**
 * Admits the priority lanes' parts of `want` (lib/priority/choose.ts) into `op`, each lane from
 * its head in arrival order, passing over silent waiters; counts them per lane. Returns how many.
 */
async function admitFromLanes(r: Round, want: number): Promise<number> {
  let n = 0;
  for (const l of await chooseByLane(r.ctx.kv, r.q, r.counts.laneNext, want, skipOf(r))) {
    const got = await admitInto(r, { ids: l.ids, fromHead: true }, l.take);
    addLaneAdmitted(r.counts, l.slot, got);
    n += got;
  }
  return n;
}

/** Frees the slots of admissions and tokens that expired; drops waiters that stopped checking in. */
async function expireInto(r: Round, budget: number, reads: TickReads): Promise<number> {
  const { ctx, q, op, counts, handled } = r;
  const now = reads.now;
  // Expired slots first; lapsed waiters fill what is left of the budget.
  const [ids, lapsed] = await Promise.all([reads.expired, reads.lapsed]);
  const dead = lapsed.slice(0, budget - ids.length);
  let n = 0;
  const unplaced = new Set<number | undefined>();
  const { clickToEnter } = await ctx.branding(q);
  for (const e of await readKnown(ctx, q, [...new Set([...ids, ...dead])])) {
    const v = e.value;
    if (v.state === "waiting") {
      // Not numbered yet: its record is the sequencer's to write (it numbers it first).
      if (v.seq === 0 || dropAt(reads.settings, v.deadline) >= now) continue;
      // A participant its draw has not placed yet: the draw must not write its line entry unseen.
      if (e.unplaced && !unplaced.has(v.round)) op.check(e.unplaced);
      if (e.unplaced) unplaced.add(v.round);
      removeWaiting(op, q, v, counts, now);
      counts.abandoned++;
    } else if ((v.until ?? 0) > now) {
      continue;
    } else if (
      v.state === "admitted" && !clickToEnter && dropAt(reads.settings, v.deadline) >= now
    ) {
      // Admitted and never told (without click-to-enter, any check-in after the admission enters
      // it), within its grace: away when its turn came. Its place waits at the front.
      returnToLine(op, q, v, counts, now);
    } else {
      releaseSlot(op, q, v, counts);
      // A sliding session's end by idleness or its cap is counted as such (lib/session).
      noteSessionEnd(op, q, v);
    }
    op.check(e);
    handled.add(v.id);
    n++;
  }
  return n;
}

/** What one round of a tick did (see `tickRound`). */
export interface TickRound {
  /** Waiters admitted. */
  n: number;
  rate: number;
  open: boolean;
  /** It stopped at a limit of its own with work left: another round is due this second. */
  more: boolean;
}

/**
 * One round of a tick's work on `r.counts`, into `r.op`: frees expired slots, drops lapsed waiters
 * and admits by the rate budget (refilled to `now`), at most `CHUNK` visitors, each checked in the
 * op. The caller claims the second and writes the counts.
 */
export async function tickRound(r: Round, now: number): Promise<TickRound> {
  const { ctx, q, counts, settings, passed } = r;
  const reads = startTickReads(ctx, q, CHUNK / 2, CHUNK, settings);
  const expired = await expireInto(r, CHUNK / 2, reads);
  const open = ctx.isOpen(settings, now);
  const rate = ctx.ratePerSecond(settings);
  refill(counts, rate, now, open, bucketCap(rate));
  let n = 0;
  // Expiries past this round's budget may wait still.
  let more = expired >= CHUNK / 2;
  if (open && (settings.mode === "queue" || lotteryDrawsAtTick(ctx, { settings, counts }))) {
    const room = Math.min(wholeTokens(counts), openSlots(settings, counts));
    const want = Math.min(room, counts.waiting, CHUNK - expired);
    const ahead = await reads.line;
    // Priority lanes take their parts of the second first; the main line the rest.
    n += await admitFromLanes(r, want);
    // Silent waiters met on the way are passed over: the next choice goes past them (a few
    // times at most: each is a read of the line), and past the ones admitted (in this round's op,
    // not yet out of the line). Each takes a few more than needed: a few silent cost no read.
    for (let i = 0, before = -1; i < 4 && n < want && passed.size !== before; i++) {
      before = passed.size;
      const extra = passed.size > 0 || i > 0 ? 40 : 0;
      const chosen = await chooseWaiters(r, want - n + extra, ahead);
      n += await admitInto(r, chosen, want - n, reads.head);
    }
    counts.tokens -= n;
    // Admissions the round's size cut short, or lapsed waiters took the place of, with budget and
    // waiters left. (Not after every round that admitted many: at 50 a second that was one commit
    // more on the counts every second, bench/scale_sim.ts.)
    const cut = want === CHUNK - expired || n < want;
    more ||= cut && wholeTokens(counts) >= 1 && counts.waiting > 0 &&
      openSlots(settings, counts) > 0;
  }
  return { n, rate, open, more };
}

/**
 * Operator force-admit: up to `count` waiters into open slots, ignoring the rate budget but
 * respecting capacity, pause, opening time and health pause; selection follows the mode.
 */
export async function forceAdmit(ctx: QueueContext, q: string, count: number): Promise<number> {
  let total = 0;
  const passed = new Set<string>();
  while (total < count) {
    const n = await ctx.serial(q, () =>
      retryCommit(async () => {
        const { counts, entry, settings, settingsEntry } = await ctx.readState(q);
        if (!settings || !ctx.isOpen(settings, ctx.now())) return -1;
        const want = Math.min(count - total, openSlots(settings, counts), counts.waiting, CHUNK);
        if (want <= 0) return -1;
        const op = ctx.kv.atomic().check(entry, settingsEntry);
        const silent = passed.size;
        const handled = new Set<string>();
        const r = { ctx, q, op, counts, settings, handled, passed, admitted: new Set<string>() };
        // Priority lanes first, by their parts, as at the tick; the main line the rest.
        const inLanes = await admitFromLanes(r, want);
        const got = inLanes + await admitInto(r, await chooseWaiters(r, want - inLanes));
        // Waiters silent past their grace met on the way are dropped, those within it passed
        // over; keep going while anything changed.
        if (got === 0 && handled.size === 0) return passed.size > silent ? 0 : -1;
        op.set(keys.counts(q), counts);
        return (await op.commit()).ok ? got : null;
      }, "force-admit"));
    if (n < 0) break;
    total += n;
  }
  ctx.invalidate(q);
  return total;
}

/** Deletes old check-in counts and gone-log entries behind the head of the line. */
export async function compactGoneLog(ctx: QueueContext, q: string): Promise<void> {
  ctx.invalidate(q);
  const v = await ctx.view(q).catch(() => null);
  if (!v) return; // the queue was deleted meanwhile: its records went with it
  const end = keys.checkins(q, Math.floor(ctx.now() / 1000) - 120);
  await deleteListed(ctx.kv, { start: keys.checkinsPrefix(q), end }, { limit: 5000 });
  // Gone-log entries still inside their line (the main line's, or a priority lane's) are needed
  // for exact positions.
  const heads = new Map([[0, v.head], ...(v.laneHeads ?? [])]);
  const keep = (k: Deno.KvKey) =>
    (k[3] as number) >= (heads.get(slotOf(k[3] as number)) ?? Infinity);
  await deleteListed(ctx.kv, { prefix: keys.gonePrefix(q) }, { limit: 5000, keep });
}
