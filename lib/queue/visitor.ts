/**
 * A visitor's calls while it waits: status (from memory when its slot is not due, else settled
 * against the store), heartbeats, and the schedule of its next check-in. Enter and leave are in
 * leave_enter.ts.
 */
import { NotFoundError, UnauthorizedError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import type { TicketClaims } from "../tokens.ts";
import {
  bucketCap,
  lineOf,
  openSlots,
  type QueueContext,
  type QueueView,
  refill,
  wholeTokens,
} from "./context.ts";
import { admitWaiting, logGone } from "./records.ts";
import { countTraffic } from "../traffic.ts";
import { enterInBatch } from "./enter_batch.ts";
import { livenessDeadline, type ScheduleInput } from "./timeslot.ts";
import { planCheckIn, sumCheckins } from "./checkins.ts";
import type { Branding } from "../branding.ts";
import type { Visitor, VisitorView } from "./types.ts";
import { drawPending } from "./prequeue_phase.ts";
import { joinBack, laneBack, laneJoinView } from "../priority/metrics.ts";
import { frozenForDraw } from "./prequeue.ts";
import { placedEntry } from "./placement.ts";
import { retryAfterDraw, waitForDraw } from "./draw_wait.ts";
import {
  admittedView,
  lotteryDrawsAtTick,
  lotteryOdds,
  provisionalView,
  waitingView,
} from "./view.ts";

/** A visitor call's result: the view, and a fresh ticket when the schedule changed. */
export type Outcome = { view: VisitorView; ticket?: string };

/** Rejects a ticket for another queue or a visitor id that does not match it. */
export function checkTicket(q: string, t: TicketClaims | null, visitorId?: string): TicketClaims {
  if (!t) throw new UnauthorizedError("missing or invalid tg_ticket cookie; join the queue first");
  const why = ticketMismatch(q, t, visitorId);
  if (why !== null) throw new UnauthorizedError(why);
  return t;
}

/** Why ticket `t` may not act in queue `q` (for `visitorId`, when given); null when it may. */
function ticketMismatch(q: string, t: Readonly<TicketClaims>, visitorId?: string): string | null {
  if (t.queue !== q) return `tg_ticket is for queue "${t.queue}", not "${q}"`;
  if (visitorId !== undefined && visitorId !== t.sub) {
    return `visitorId "${visitorId}" does not match the tg_ticket`;
  }
  return null;
}

/**
 * True when an admission is gone in all but the sweep: its hold or token ran out and the next
 * tick frees the slot. (A late waiter is kept: checking in before the sweep saves its place.)
 */
function lapsed(v: Visitor, now: number): boolean {
  return v.state !== "waiting" && (v.until ?? Infinity) <= now;
}

/** A visitor's record, or none for a join that left before it was numbered (a note waits). */
export async function readVisitor(kv: Deno.Kv, q: string, id: string) {
  const [e, note] = await kv.getMany<[Visitor, 1]>([keys.visitor(q, id), keys.leftEarly(q, id)]);
  const early = e.value?.state === "waiting" && e.value.seq === 0 && note.value !== null;
  return early ? { ...e, value: null, versionstamp: null } : e;
}

/**
 * Reads a visitor that is still in the queue, as the opening draw placed it (see placement.ts);
 * 404 `not_in_queue` when it is gone or lapsed. `placedNow`: the record still held its arrival
 * number, so this is its first read since the draw placed it.
 */
export async function liveEntry(ctx: QueueContext, q: string, id: string) {
  const raw = await readVisitor(ctx.kv, q, id);
  if (!raw.value || lapsed(raw.value, ctx.now())) {
    throw new NotFoundError("not_in_queue", `visitor "${id}" is not in queue "${q}"`);
  }
  // Check-ins write no removal: before the opening no place can exist, so none is read. Only
  // while this instance's view still says the draw is pending: another instance's clock may be
  // ahead and have drawn already, and then the place table is read.
  const view = ctx.freshView(q);
  const pending = view !== undefined && drawPending(view.settings);
  const at = pending ? ctx.now() : undefined;
  const entry = await placedEntry(ctx.kv, q, raw as Deno.KvEntry<Visitor>, at);
  return { entry, placedNow: raw.value.round !== undefined && entry.value.round === undefined };
}

/** Signs a ticket for a waiting or admitted visitor. */
export function ticketFor(ctx: QueueContext, q: string, v: Visitor): Promise<string> {
  return ctx.signer.signTicket({
    sub: v.id,
    queue: q,
    iat: Math.floor(ctx.now() / 1000),
    seq: v.seq,
    nextCheckAt: v.state === "waiting" ? v.nextCheckAt : 0,
    // A join not numbered yet: its arrival time lets statuses know so from memory.
    ...(v.state === "waiting" && v.seq === 0 && v.mark ? { arrivedAt: v.mark[0] } : {}),
  });
}

/**
 * A waiter's next timeslot (see `planCheckIn`), its liveness deadline, and the second reserved in
 * the occupancy ledger, to be summed in KV (null with a fixed poll interval).
 */
export function schedule(
  ctx: QueueContext,
  q: string,
  v: QueueView,
  seq: number,
  kind: "join" | "renew",
  position?: number,
): [number, number, number | null] {
  const now = ctx.now();
  const s = v.settings;
  const periodMs = ctx.periodMs(v.counts.waiting);
  const fixed = ctx.config.WAITING_ROOM_POLL_INTERVAL_MS;
  if (fixed) {
    const nca = (Math.floor(now / 1000) + Math.max(1, Math.ceil(fixed / 1000))) * 1000;
    return [nca, livenessDeadline(nca, periodMs), null];
  }
  const input: ScheduleInput = {
    nowMs: now,
    waiting: v.counts.waiting,
    // Before the opening draw nobody has a position: the budget alone places check-ins.
    position: s.mode === "queue" && !drawPending(s) ? position ?? ctx.position(v, seq) : undefined,
    frontToCome: s.mode === "queue" && drawPending(s),
    rate: ctx.lineRate(v),
    kind,
  };
  const sec = planCheckIn(ctx.checkins, q, input);
  return [sec * 1000, livenessDeadline(sec * 1000, periodMs), sec];
}

/**
 * `GET /status`: answers a waiter whose slot is not due from the cached view without touching KV;
 * a due check-in renews liveness (and draws the lottery); an admitted visitor enters.
 */
export async function status(
  ctx: QueueContext,
  q: string,
  ticket: TicketClaims | null,
  visitorId?: string,
): Promise<Outcome> {
  const t = checkTicket(q, ticket, visitorId);
  const v = await ctx.view(q);
  const branding = await ctx.branding(q);
  const mem = fromMemory(ctx, q, t, v, branding);
  return mem ?? await settle(ctx, q, t.sub, "status");
}

/**
 * A status answered from the view alone: a waiter whose slot is not due, or a join that surely
 * waits unnumbered (it arrived after the last arrival the sequencer numbered) behind a backlog
 * too long to count (see `unnumbered`), given the back of the line and asked back the
 * next second. Nothing else is written for such a join, so its record need not be read (every
 * second of a backlog, for every join in it: the store reads the ticks needed, bench/RESULTS.md).
 */
function fromMemory(
  ctx: QueueContext,
  q: string,
  t: Readonly<TicketClaims>,
  v: QueueView,
  branding: Branding,
): Outcome | undefined {
  if (notDue(ctx, t, v)) {
    return { view: waitingView(ctx, q, t.sub, t.seq, t.nextCheckAt, v, branding) };
  }
  const position = farBehind(ctx, v);
  if (t.seq !== 0 || !(t.arrivedAt! > v.counts.numberedTo) || position === null) return;
  const nextCheckAt = Math.max(t.nextCheckAt, (Math.floor(ctx.now() / 1000) + 1) * 1000);
  return { view: provisionalView(ctx, q, { id: t.sub, nextCheckAt }, v, position, branding) };
}

/** True when the ticket's waiter is still in line by `v` and its slot is not due: read-only. */
function notDue(ctx: QueueContext, t: Readonly<TicketClaims>, v: QueueView): boolean {
  if (!(ctx.now() < t.nextCheckAt && t.seq > 0) || v.goneSet.has(t.seq)) return false;
  const { head, next } = lineOf(v, t.seq);
  return head !== null && t.seq >= head && t.seq < next;
}

/**
 * `status` for the common case, answered without an await: a valid ticket of this queue whose
 * slot is not due, with the view and branding cached. Undefined in every other case, which then
 * goes to `status` (errors included).
 */
export function statusNow(
  ctx: QueueContext,
  q: string,
  t: Readonly<TicketClaims>,
  visitorId?: string,
): Outcome | undefined {
  if (ticketMismatch(q, t, visitorId) !== null) return undefined;
  const v = ctx.freshView(q);
  const branding = v && ctx.freshBranding(q);
  return v && branding ? fromMemory(ctx, q, t, v, branding) : undefined;
}

/**
 * Reads a visitor and moves it along: due check-in, or entry when click-to-enter is off. A
 * participant's check-in that comes while the opening draw runs is held until the draw is done
 * (see draw_wait.ts), then answered with its place; a page load (a join that resumes) is not
 * held, a page must answer within seconds: it gets a check-in slot in the budget.
 */
export async function settle(
  ctx: QueueContext,
  q: string,
  id: string,
  why: "status" | "heartbeat" | "join",
): Promise<Outcome> {
  let hold = why !== "join";
  for (;;) {
    const out = await settleOnce(ctx, q, id, why, hold);
    if (typeof out !== "number") return out;
    const done = await waitForDraw(ctx, q, out);
    // Done: read the settings afresh (this instance's view may still say the draw runs).
    if (done) ctx.invalidate(q);
    else hold = false;
  }
}

/**
 * One pass of `settle`: the outcome, or the round whose draw a participant waits for (the
 * caller holds it when `hold`; otherwise, or held too long already, it is answered with a
 * check-in slot in the budget).
 */
function settleOnce(
  ctx: QueueContext,
  q: string,
  id: string,
  why: "status" | "heartbeat" | "join",
  hold: boolean,
): Promise<Outcome | number> {
  return retryCommit<Outcome | number>(async () => {
    const { entry, placedNow } = await liveEntry(ctx, q, id);
    const rec = entry.value;
    const v = await ctx.viewOf(q, rec.seq);
    const branding = await ctx.branding(q);
    const now = ctx.now();
    if (rec.state === "entered") return { view: await admittedView(ctx, q, rec) };
    if (rec.state === "admitted") {
      if (branding.clickToEnter) return { view: await admittedView(ctx, q, rec) };
      return await enterNow(ctx, q, entry);
    }
    if (rec.state === "waiting" && rec.seq === 0) return await unnumbered(ctx, q, rec, v);
    if (frozenForDraw(v, rec, now)) {
      // The opening draw is placing pre-queue participants: their records change only by it.
      const round = v.settings.opensAt!;
      if (hold) return round;
      const nca = Math.max(rec.nextCheckAt, await retryAfterDraw(ctx, q, v.counts.waiting));
      return { view: waitingView(ctx, q, id, rec.seq, nca, v, branding) };
    }
    // The first check-in after the draw is due whenever it comes: its slot was set before its
    // place was known, and the next one follows the drawn place (the front every 5 s).
    const due = now >= rec.nextCheckAt || (placedNow && v.settings.mode === "queue");
    /** The answer without a write: the record as it is. */
    const unchanged = async () => ({
      view: waitingView(ctx, q, id, rec.seq, rec.nextCheckAt, v, branding),
      ticket: await ticketFor(ctx, q, rec),
    });
    if (why !== "heartbeat" && !due) return await unchanged();
    if (why !== "heartbeat" && v.settings.mode === "lottery") {
      const won = await drawLottery(ctx, q, entry, v);
      if (won === null) return null;
      if (won) return won;
    }
    // A due check-in gets its next slot; a heartbeat only extends the deadline, so it can
    // neither skip nor add lottery draws.
    let next: Visitor;
    let slot: number | null = null;
    if (why === "heartbeat") {
      const period = ctx.periodMs(v.counts.waiting);
      // At most one write per renewal interval (the heartbeat interval where set, else the
      // check-in period): a deadline set within it is fresh, and the repeat is answered unwritten.
      const every = ctx.config.WAITING_ROOM_HEARTBEAT_INTERVAL_MS ?? period;
      if (rec.deadline >= livenessDeadline(now - every, period)) return await unchanged();
      const deadline = livenessDeadline(now, period);
      next = { ...rec, deadline: Math.max(rec.deadline, deadline) };
    } else {
      await ctx.checkins.refresh(q, Math.floor(now / 1000), ctx.periodMs(v.counts.waiting) / 1000);
      const [nca, deadline, reserved] = schedule(ctx, q, v, rec.seq, "renew");
      next = { ...rec, nextCheckAt: nca, deadline };
      slot = reserved;
    }
    const op = ctx.kv.atomic().check(entry)
      .delete(keys.deadline(q, rec.deadline, id))
      .set(keys.deadline(q, next.deadline, id), next.seq)
      .set(keys.visitor(q, id), next);
    if (slot !== null) sumCheckins(op, q, [slot]);
    // Back within its grace after going silent: it kept its place (counted beside `abandoned`).
    if (rec.deadline < now) op.sum(keys.returned(q), 1n);
    if (!(await op.commit()).ok) return null;
    return {
      view: waitingView(ctx, q, id, next.seq, next.nextCheckAt, v, branding),
      ticket: await ticketFor(ctx, q, next),
    };
  }, "check-in");
}

/** A due lottery check-in draws with the current odds; a winner is admitted in the same commit. */
async function drawLottery(
  ctx: QueueContext,
  q: string,
  entry: Deno.KvEntry<Visitor>,
  v: QueueView,
): Promise<Outcome | false | null> {
  const now = ctx.now();
  if (lotteryDrawsAtTick(ctx, v) || !ctx.isOpen(v.settings, now)) return false;
  if (ctx.random.float() >= lotteryOdds(ctx, v)) return false;
  const branding = await ctx.branding(q);
  const next = await ctx.serial(q, async () => {
    const { counts, entry: ce, settings, settingsEntry: se } = await ctx.readState(q);
    if (!settings || settings.mode !== "lottery" || !ctx.isOpen(settings, now)) return false;
    const rate = ctx.ratePerSecond(settings);
    refill(counts, rate, now, true, bucketCap(rate));
    if (wholeTokens(counts) < 1 || openSlots(settings, counts) < 1) return false;
    counts.tokens--;
    const op = ctx.kv.atomic().check(entry, ce, se);
    const hold = now + branding.admitHoldSeconds * 1000;
    const ttl = branding.clickToEnter ? undefined : ctx.config.ACCESS_TOKEN_TTL_SECONDS;
    const next = admitWaiting(op, q, entry.value, counts, now, hold, ttl);
    logGone(op, q, entry.value, now);
    countTraffic(op, q, now, "out", 1);
    op.set(keys.counts(q), counts);
    return (await op.commit()).ok ? next : null;
  });
  if (!next) return next; // false: no draw; null: lost a check, retry
  ctx.invalidate(q);
  return { view: await admittedView(ctx, q, next) };
}

/** Moves an admitted visitor to entered and issues its token. */
export async function enterNow(
  ctx: QueueContext,
  q: string,
  entry: Deno.KvEntry<Visitor>,
): Promise<Outcome | null> {
  // Enters that come together share one commit, which leaves the counts record alone (enters.ts).
  const next = await enterInBatch(ctx, q, entry);
  if (!next) return null;
  ctx.invalidate(q);
  return { view: await admittedView(ctx, q, next) };
}

/** `POST /heartbeat`: renews a waiter's liveness at any time; answers like status. */
export async function heartbeat(
  ctx: QueueContext,
  q: string,
  ticket: TicketClaims | null,
  visitorId: string,
): Promise<Outcome> {
  const t = checkTicket(q, ticket, visitorId);
  await ctx.view(q);
  return await settle(ctx, q, t.sub, "heartbeat");
}

/** Joins not numbered yet up to which those ahead of an unnumbered join are counted one by one. */
const COUNT_AHEAD = 100;

/** Behind a backlog too long to count: the back of the line as last read; null otherwise. */
function farBehind(ctx: QueueContext, v: QueueView): number | null {
  return v.pending > COUNT_AHEAD ? joinBack(ctx, v, v.counts.waiting) : null;
}

/**
 * The answer to a join not numbered yet, written nowhere (only the sequencer writes an unnumbered
 * record); one due meanwhile is asked back the next second, after the tick, by its ticket. Its
 * place: in a lane, the back of the lane's line (as its join was told); else the numbered waiters
 * plus the arrivals before its own, listed while the view's backlog is short, else the back of the
 * line as last read (listing a long backlog for each of its statuses, every second until the tick
 * numbers them, took the CPU the ticks needed: bench/RESULTS.md).
 */
async function unnumbered(
  ctx: QueueContext,
  q: string,
  rec: Visitor,
  v: QueueView,
): Promise<Outcome> {
  const now = ctx.now();
  const nca = Math.max(rec.nextCheckAt, (Math.floor(now / 1000) + 1) * 1000);
  const asked = { ...rec, nextCheckAt: nca };
  let position = (rec.lane === undefined ? null : laneBack(ctx, v, rec.lane)) ?? farBehind(ctx, v);
  if (position === null) {
    let ahead = 0;
    const end = keys.arrival(q, ...rec.mark!);
    const list = ctx.kv.list({ start: keys.arrivalPrefix(q), end }, { limit: COUNT_AHEAD });
    for await (const _ of list) ahead++;
    position = joinBack(ctx, v, v.counts.waiting - v.pending + ahead + 1);
  }
  const view = provisionalView(ctx, q, asked, v, position, await ctx.branding(q));
  return {
    view: laneJoinView(ctx, view, v, rec.lane, position),
    ...(nca === rec.nextCheckAt ? {} : { ticket: await ticketFor(ctx, q, asked) }),
  };
}
