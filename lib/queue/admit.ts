import { lockRetried, recordOp, retryCommit, STORE_DEADLINE_MS } from "../store/commit.ts";
import { StoreBusyError } from "../errors.ts";
import { sleep } from "../clock.ts";
import { deleteListed } from "../store/delete.ts";
import { pruneTraffic } from "../traffic.ts";
import { keys } from "../store/keys.ts";
import { bucketCap, dropAt, openSlots, type QueueContext, refill, wholeTokens } from "./context.ts";
import { admitWaiting, countTraffic, logGone, releaseSlot, removeWaiting } from "./records.ts";
import type { Counts, QueueSettings, Visitor } from "./types.ts";
import { lotteryDrawsAtTick } from "./view.ts";
import { noteSessionEnd } from "../session/stats.ts";
import { takeInEnters } from "./enters.ts";
import { expandChunk, expandLeft, isLogMarker } from "./join_log.ts";
import {
  AHEAD,
  type Read,
  readKnown,
  readVisitors,
  startTickReads,
  type TickReads,
} from "./tick_reads.ts";

/** Visitors touched by one atomic op: each costs one check (limit 100) and up to 5 mutations. */
export const CHUNK = 80;

/**
 * Picks up to `n` waiters uniformly at random. While 1000 or fewer wait, from the full list;
 * beyond that by rejection sampling: a uniform arrival number between the head and the newest,
 * kept only when that arrival is still waiting, which is exactly uniform among the waiters.
 */
async function pickRandom(
  ctx: QueueContext,
  q: string,
  n: number,
  counts: Counts,
  exclude: Set<string>,
) {
  const ids = new Set<string>();
  const all: string[] = [];
  let head: number | null = null;
  for await (
    const e of ctx.kv.list<string>({ prefix: keys.fifoPrefix(q) }, {
      limit: counts.waiting <= 1000 ? 1000 + exclude.size : 1,
    })
  ) {
    head ??= e.key[2] as number;
    if (!exclude.has(e.value) && !isLogMarker(e.value)) all.push(e.value);
  }
  if (head === null) return [];
  if (counts.waiting <= 1000) {
    for (let i = 0; i < n && all.length > 0; i++) {
      const j = Math.floor(ctx.random.float() * all.length);
      ids.add(all[j]);
      all[j] = all[all.length - 1];
      all.pop();
    }
    return [...ids];
  }
  const span = counts.nextSeq - head;
  for (let round = 0; ids.size < n && round < 200; round++) {
    const seqs = Array.from({ length: 10 }, () => head! + Math.floor(ctx.random.float() * span));
    for (const e of await ctx.kv.getMany<string[]>(seqs.map((s) => keys.fifo(q, s)))) {
      if (e.value && !isLogMarker(e.value) && !exclude.has(e.value) && ids.size < n) {
        ids.add(e.value);
      }
    }
  }
  return [...ids];
}

/** Chooses the next `n` waiters by the queue's mode. */
async function chooseWaiters(
  ctx: QueueContext,
  q: string,
  settings: QueueSettings,
  n: number,
  counts: Counts,
  exclude = new Set<string>(),
  expanded = new Set<number>(),
  ahead?: Deno.KvEntry<string>[],
): Promise<{ ids: string[]; fromHead: boolean }> {
  if (n <= 0) return { ids: [], fromHead: true };
  if (settings.mode === "lottery") {
    return { ids: await pickRandom(ctx, q, n, counts, exclude), fromHead: false };
  }
  // Waiters dropped earlier in the same op are still in the index: skip them. The line's head
  // read ahead with the tick's other lists serves when it is long enough.
  const ids: string[] = [];
  const limit = n + exclude.size;
  const iter = ahead && limit <= AHEAD
    ? ahead.slice(0, limit)
    : ctx.kv.list<string>({ prefix: keys.fifoPrefix(q) }, { limit });
  for await (const e of iter) {
    if (ids.length >= n) break;
    const seq = e.key[2] as number;
    if (isLogMarker(e.value)) {
      // Joins not expanded yet stand here in the line: expanded first, so none behind them goes
      // first (a marker left without its chunk, which nothing writes, is passed over).
      if (expanded.has(seq)) continue;
      expanded.add(seq);
      await expandChunk(ctx.kv, q, seq);
      return await chooseWaiters(ctx, q, settings, n, counts, exclude, expanded);
    }
    if (!exclude.has(e.value)) ids.push(e.value);
  }
  return { ids, fromHead: true };
}

/**
 * Admits the chosen visitors into `op`; returns how many. A silent waiter (past its liveness
 * deadline, within its grace) is passed over and keeps its place: nobody could learn of an
 * admission now, so its slot would be wasted; it goes into `passed` so the caller chooses past it.
 */
async function admitInto(
  ctx: QueueContext,
  q: string,
  op: Deno.AtomicOperation,
  counts: Counts,
  ids: string[],
  fromHead: boolean,
  handled = new Set<string>(),
  known?: Promise<Read[]>,
  passed = new Set<string>(),
  settings?: QueueSettings,
  limit = Infinity,
  admitted = new Set<string>(),
): Promise<number> {
  const now = ctx.now();
  const branding = await ctx.branding(q);
  let n = 0;
  for (const e of await readKnown(ctx, q, ids.filter((id) => !handled.has(id)), known)) {
    if (n >= limit) break;
    // Not placed by its draw yet (admissions wait for the draw; kept for safety).
    if (e.value.state !== "waiting" || e.unplaced) continue;
    if (e.value.deadline < now) {
      if (settings && dropAt(settings, e.value.deadline) >= now) {
        passed.add(e.value.id);
        continue;
      }
      // Silent past its grace: it is dropped, not admitted.
      op.check(e);
      dropLapsed(op, q, e.value, counts, now);
      handled.add(e.value.id);
      continue;
    }
    op.check(e);
    // The hold starts when the visitor can learn of it: its next check-in. Without
    // click-to-enter it also lasts as long as a late check-in would have kept its place.
    let hold = Math.max(now, e.value.nextCheckAt) + branding.admitHoldSeconds * 1000;
    if (!branding.clickToEnter) hold = Math.max(hold, e.value.deadline);
    admitWaiting(op, q, e.value, counts, now, hold);
    admitted.add(e.value.id);
    // Not from the head when a silent waiter ahead of it keeps its place: logged for positions.
    if (!fromHead || passed.size > 0) logGone(op, q, e.value, now);
    n++;
  }
  countTraffic(op, q, now, "out", n);
  return n;
}

/** Drops a waiter that stopped checking in; counted as abandoned. */
function dropLapsed(op: Deno.AtomicOperation, q: string, v: Visitor, counts: Counts, now: number) {
  removeWaiting(op, q, v, counts, now);
  counts.abandoned++;
}

/** Frees the slots of admissions and tokens that expired; drops waiters that stopped checking in. */
async function expireInto(
  ctx: QueueContext,
  q: string,
  op: Deno.AtomicOperation,
  counts: Counts,
  budget: number,
  handled: Set<string>,
  reads: TickReads,
): Promise<number> {
  const now = reads.now;
  // Expired slots first; lapsed waiters fill what is left of the budget.
  const [ids, lapsed] = await Promise.all([reads.expired, reads.lapsed]);
  const dead = lapsed.slice(0, budget - ids.length);
  let n = 0;
  const unplaced = new Set<string>();
  for (const e of await readVisitors(ctx, q, [...new Set([...ids, ...dead])])) {
    const v = e.value;
    if (v.state === "waiting") {
      if (dropAt(reads.settings, v.deadline) >= now) continue;
      // A participant its draw has not placed yet: the draw must not write its line entry unseen.
      if (e.unplaced && !unplaced.has(String(v.round))) {
        unplaced.add(String(v.round));
        op.check(e.unplaced);
      }
      dropLapsed(op, q, v, counts, now);
    } else {
      if ((v.until ?? 0) > now) continue;
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
  /** Slots freed and waiters dropped. */
  expired: number;
  /** Waiters admitted. */
  n: number;
  rate: number;
  open: boolean;
  /** It stopped at a limit of its own with work left: another round is due this second. */
  more: boolean;
}

/**
 * One round of a tick's work on `counts`, into `op`: frees expired slots, drops lapsed waiters and
 * admits by the rate budget (refilled to `now`), at most `CHUNK` visitors, each checked in `op`.
 * `handled` collects the visitors it changed, `passed` the silent waiters passed over (kept across
 * a tick's rounds). The caller claims the second and writes the counts.
 */
export async function tickRound(
  ctx: QueueContext,
  q: string,
  op: Deno.AtomicOperation,
  counts: Counts,
  settings: QueueSettings,
  now: number,
  handled: Set<string>,
  passed = new Set<string>(),
): Promise<TickRound> {
  const reads = startTickReads(ctx, q, CHUNK / 2, settings.mode === "queue", CHUNK, settings);
  const expired = await expireInto(ctx, q, op, counts, CHUNK / 2, handled, reads);
  const open = ctx.isOpen(settings, now);
  const rate = ctx.ratePerSecond(settings);
  refill(counts, rate, now, open, bucketCap(rate));
  let n = 0;
  // Expiries past this round's budget may wait still.
  let more = expired >= CHUNK / 2;
  if (open && (settings.mode === "queue" || lotteryDrawsAtTick(ctx, { settings, counts }))) {
    const want = Math.min(
      wholeTokens(counts),
      openSlots(settings, counts),
      counts.waiting,
      CHUNK - expired,
    );
    const ahead = await reads.line;
    // Silent waiters met on the way are passed over: the next choice goes past them (a few
    // times at most: each is a read of the line).
    // The ones admitted are in this round's op, not yet out of the line: the next choice skips
    // them. Each choice takes a few more than needed, so a few silent ones cost no extra read.
    const admitted = new Set<string>();
    for (let i = 0, before = -1; i < 4 && n < want && passed.size !== before; i++) {
      before = passed.size;
      const skip = new Set([...handled, ...passed, ...admitted]);
      const extra = passed.size > 0 || i > 0 ? 40 : 0;
      const chosen = await chooseWaiters(
        ctx,
        q,
        settings,
        want - n + extra,
        counts,
        skip,
        undefined,
        ahead,
      );
      n += await admitInto(
        ctx,
        q,
        op,
        counts,
        chosen.ids,
        chosen.fromHead,
        handled,
        reads.head,
        passed,
        settings,
        want - n,
        admitted,
      );
    }
    counts.tokens -= n;
    // Admissions the round's size cut short, or lapsed waiters took the place of, with budget and
    // waiters left. (Not after every round that admitted many: at 50 a second, the round after
    // each tick held the turn holder's joins up by a commit every second, bench/scale_sim.ts.)
    const cut = want === CHUNK - expired || n < want;
    more ||= cut && wholeTokens(counts) >= 1 && counts.waiting > 0 &&
      openSlots(settings, counts) > 0;
  }
  return { expired, n, rate, open, more };
}

/** Fields a tick changes by adding to them, so its changes can be applied to newer counts. */
const ADDED = [
  "waiting",
  "holding",
  "entered",
  "abandoned",
  "admitted",
  "waitMsSum",
  "waitCount",
] as const;

/**
 * A tick's changes (`mine` against `base`, the counts it read first) applied to `fresh`, the
 * counts as they are now: added fields by their difference, the bucket refilled to now less this
 * tick's `n`. Null when that is no longer valid (the bucket or capacity would be overdrawn).
 */
function rebase(
  base: Counts,
  mine: Counts,
  fresh: Counts,
  t: { settings: QueueSettings; n: number; rate: number; now: number; open: boolean },
): Counts | null {
  const out = { ...fresh, tickAt: Math.max(fresh.tickAt, mine.tickAt) };
  for (const f of ADDED) out[f] = fresh[f] + mine[f] - base[f];
  refill(out, t.rate, Math.max(t.now, fresh.tokensAt), t.open, bucketCap(t.rate));
  out.tokens -= t.n;
  if (out.waiting < 0) return null;
  const over = out.holding + out.entered > t.settings.capacity;
  if (t.n > 0 && (out.tokens < -1e-9 || over)) return null;
  return out;
}

/** Commits of a tick's changes against counts read again, before it reads everything afresh. */
const COUNTS_TRIES = 4;

/**
 * When, within its second, a tick left to the turn holder looks again (ms). (800 ms gave the
 * holder's carrying commits more time, but a holder whose commit failed then ticked so late that
 * the budget of a second was lost to the bucket's cap: 2,843 a minute against 3,000 once.)
 */
const LOOK_AGAIN_AT = 600;

/** Which instance runs a queue's tick of a second, where no turn holder does (see `claimTick`). */
interface TickClaim {
  sec: number;
  by: string;
  /** When it was claimed (unix ms). */
  at?: number;
}

/** How long a claim of a second's tick stands before another instance may take it over. */
const CLAIM_MS = 600;

/**
 * Claims second `sec`'s tick of `q` for this instance with a small checked write that only other
 * claimers contend for: false when another instance has it. A claim whose tick has not landed
 * within `CLAIM_MS` (its instance stopped, or its store calls failed) is taken over once.
 * `claim` is the claim as read beside the queue's state.
 */
async function claimTick(
  ctx: QueueContext,
  q: string,
  sec: number,
  claim: Deno.KvEntryMaybe<TickClaim>,
): Promise<boolean> {
  const me = ctx.turns.me;
  const held = claim.value;
  if (held && held.sec > sec) return false;
  if (held && held.sec === sec) {
    if (held.by === me) return true;
    await sleep((held.at ?? 0) + CLAIM_MS - Date.now());
    if ((await ctx.readCounts(q)).counts.tickAt >= sec) return false;
  }
  // Checked against the claim as read: of several taking one over, one does.
  const claimed = { sec, by: me, at: Date.now() };
  const r = await lockRetried(
    () =>
      ctx.kv.atomic().check(claim).set(keys.tickClaim(q), claimed, { expireIn: 60_000 }).commit(),
    Date.now() + STORE_DEADLINE_MS,
    "tick",
  );
  return r.ok;
}

/** Result of an admission tick. */
export interface TickResult {
  /** The second it was the tick of. */
  sec: number;
  /** Later rounds of a tick whose first a join commit carried (not a tick of its own). */
  more?: boolean;
  ran: boolean;
  admitted: number;
  expired: number;
  /** Waiting count as the tick's last commit left it (when it ran). */
  waiting: number;
  /** The time (unix ms) the rate budget was counted up to by the tick's last commit. */
  bucketAt: number;
  /** The budget it left unspent (admissions). */
  bucketLeft: number;
}

/**
 * One admission tick for queue `q`: claimed per second with a checked write on the counts, so
 * exactly one instance runs it; frees expired slots, drops lapsed waiters, admits by the budget.
 */
export async function tick(
  ctx: QueueContext,
  q: string,
  carried?: { sec: number },
): Promise<TickResult> {
  // Going on from a tick a join commit carried (its first round), for second `carried.sec`.
  const sec = carried?.sec ?? Math.floor(ctx.now() / 1000);
  const from = carried ? 1 : 0;
  const result: TickResult = {
    sec,
    ...(carried ? { more: true } : {}),
    ran: false,
    admitted: 0,
    expired: 0,
    waiting: 0,
    bucketAt: 0,
    bucketLeft: 0,
  };
  // Rounds go on until the second's work is done (about 900 ms at most), so high rates finish.
  const started = Date.now();
  let looked = false;
  let claimed = false;
  // Silent waiters passed over by this tick's rounds (see `admitInto`).
  const passed = new Set<string>();
  for (let round = from; round === from || Date.now() - started < 900; round++) {
    const more = await retryCommit(async () => {
      let now = ctx.now();
      // The second's claim is read beside the state where one may be needed (a round trip less
      // for a tick that runs where nobody holds the turn, see `claimTick`).
      const readClaim = () =>
        round === 0 && !claimed ? ctx.kv.get<TickClaim>(keys.tickClaim(q)) : null;
      let [{ counts, entry, settings, settingsEntry }, claim] = await Promise.all([
        ctx.readState(q),
        readClaim(),
      ]);
      if (!settings) return false;
      // A later second's tick has run: this second's work is its now (its rounds never land after
      // a later tick's, so every tick's admissions come after the one before).
      if (counts.tickAt > sec || (round === 0 && counts.tickAt >= sec)) return false;
      // Another instance holds the join turn: its join commits would keep beating this tick's, so
      // it runs the tick itself (see join_turn.ts), and so does this one while it holds the turn
      // and its join commits carry the ticks (see join_batch.ts). This one looks again later in
      // the second and ticks then unless that one did (a turn handed on can leave a second
      // without its tick).
      const leftToHolder = ctx.turns.carriesTicks(q, counts) ||
        ctx.turns.heldByOther(counts, Date.now());
      if (round === 0 && !looked && leftToHolder) {
        looked = true;
        await sleep(LOOK_AGAIN_AT - Date.now() % 1000);
        now = ctx.now();
        [{ counts, entry, settings, settingsEntry }, claim] = await Promise.all([
          ctx.readState(q),
          readClaim(),
        ]);
        if (!settings || counts.tickAt >= sec) return false;
      }
      // Any other instance than the turn's holder claims the second first, so one of them runs
      // the tick's reads: with no live turn, 50 instances each reading and committing a tick every
      // second slowed the store until no tick landed for seconds (bench/scale_sim.ts).
      if (round === 0 && !claimed && counts.turnBy !== ctx.turns.me) {
        if (!(await claimTick(ctx, q, sec, claim!))) return false;
        claimed = true;
      }
      const base = { ...counts };
      const rec = recordOp();
      const op = rec.op.check(settingsEntry);
      const handled = new Set<string>();
      const { n, rate, open, more: again } = await tickRound(
        ctx,
        q,
        op,
        counts,
        settings,
        now,
        handled,
        passed,
      );
      // A later round with nothing to do writes nothing (the second is claimed already).
      if (round > 0 && n === 0 && handled.size === 0) return false;
      counts.tickAt = Math.max(counts.tickAt, sec);
      // The reads above take several round trips, and other instances' join batches landing
      // meanwhile starved a tick that checked its first read (bench/scale_sim.ts). So the
      // counts are read again now and this tick's changes applied to them, when still valid;
      // the visitors it changed are checked one by one in the same commit. Only this last read
      // and the commit wait for this instance's other counts writers (its join batches go on
      // during the reads above instead of queueing behind the whole tick).
      // Lost to another counts writer (most often), only the counts are read again, a few times;
      // lost with the counts unchanged (a visitor it checked changed), the whole tick reads again.
      return await ctx.serial(q, async () => {
        let out: Counts | null = null;
        let seen: string | null = null;
        for (let i = 0; i < COUNTS_TRIES && !out; i++) {
          const fresh = await ctx.readCounts(q);
          if (i > 0 && fresh.entry.versionstamp === seen) return null;
          seen = fresh.entry.versionstamp;
          let next: Counts | null = counts;
          if (fresh.entry.versionstamp !== entry.versionstamp) {
            const later = fresh.counts.tickAt > sec;
            if (later || (round === 0 && fresh.counts.tickAt >= sec)) return false;
            next = rebase(base, counts, fresh.counts, { settings, n, rate, now, open });
            if (!next) return null;
          }
          // Enters since are taken in as well (read in the same snapshot as the counts checked).
          const written = { ...next };
          const sent = rec.build(ctx.kv).check(fresh.entry);
          takeInEnters(sent, q, written, fresh.pending);
          if ((await sent.set(keys.counts(q), written).commit()).ok) out = written;
        }
        if (!out) return null;
        // Before this instance's next join attempt (next in line): its cached join state is stale.
        ctx.invalidate(q);
        result.ran = true;
        result.admitted += n;
        result.expired += handled.size;
        result.waiting = out.waiting;
        result.bucketAt = out.tokensAt;
        result.bucketLeft = out.tokens;
        return again;
      });
    }, "tick").catch((e) => {
      // A later round that found no write in time: the second's tick has run all the same (its
      // first round landed), and says so.
      if (round === 0 || !(e instanceof StoreBusyError)) throw e;
      return false;
    });
    if (!more) break;
  }
  // (Later rounds of a carried tick: the carrying commit's caller ran it.)
  if (result.ran && !carried) await afterTick(ctx, q, sec);
  return result;
}

/**
 * The work after a tick of second `sec` that ran on this instance (its own or carried by a join
 * commit): chunks a writer left, and the once-a-minute upkeep.
 */
export async function afterTick(ctx: QueueContext, q: string, sec: number): Promise<void> {
  // Chunks of joins a writer left unexpanded (it stopped, or its commit landed after its joins
  // gave up): their waiters have no deadline entries, so nothing else would drop them. Looked
  // for by the instance whose tick ran only (an admission that reaches one expands it itself).
  await expandLeft(ctx, q).catch(() => {});
  ctx.invalidate(q);
  // Upkeep once a minute per instance, from whichever tick of that minute this instance ran
  // (a fixed second could be missed when ticks come only from requests).
  const minute = Math.floor(sec / 60);
  if ((ctx.upkeepMinute.get(q) ?? -1) < minute) {
    ctx.upkeepMinute.set(q, minute);
    await compactGoneLog(ctx, q);
    // KV `sum` cannot carry an expiry, so old traffic buckets are pruned here, once a minute.
    await pruneTraffic(ctx.kv, q, ctx.now());
  }
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
        const now = ctx.now();
        const { counts, entry, settings, settingsEntry } = await ctx.readState(q);
        if (!settings || !ctx.isOpen(settings, now)) return -1;
        const want = Math.min(
          count - total,
          openSlots(settings, counts),
          counts.waiting,
          CHUNK,
        );
        if (want <= 0) return -1;
        const op = ctx.kv.atomic().check(entry, settingsEntry);
        const chosen = await chooseWaiters(ctx, q, settings, want, counts, passed);
        const dropped = new Set<string>();
        const silent = passed.size;
        const got = await admitInto(
          ctx,
          q,
          op,
          counts,
          chosen.ids,
          chosen.fromHead,
          dropped,
          undefined,
          passed,
          settings,
        );
        // Waiters silent past their grace met on the way are dropped, those within it passed
        // over; keep going while anything changed.
        if (got === 0 && dropped.size === 0) return passed.size > silent ? 0 : -1;
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
async function compactGoneLog(ctx: QueueContext, q: string): Promise<void> {
  let head: number | null = null;
  for await (const e of ctx.kv.list({ prefix: keys.fifoPrefix(q) }, { limit: 1 })) {
    head = e.key[2] as number;
  }
  const old = Math.floor(ctx.now() / 1000) - 120;
  const end = keys.checkins(q, old);
  await deleteListed(ctx.kv, { start: keys.checkinsPrefix(q), end }, { limit: 5000 });
  // Gone-log entries still inside the line are needed for exact positions.
  await deleteListed(ctx.kv, { prefix: keys.gonePrefix(q) }, {
    limit: 5000,
    keep: (k) => head !== null && (k[3] as number) >= head,
  });
}
