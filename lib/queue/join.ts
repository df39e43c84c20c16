/**
 * `POST /join` in four phases: validate (a ticket or an enqueue key that holds a place resumes
 * it), guard (the pre-queue's hours, the waiting cap, the per-client allowance), write (the
 * visitor's own records, see join_write.ts; only a join that may go in at once commits against
 * the counts) and answer (a provisional position until the sequencer numbers the join at the
 * next tick, see sequencer.ts).
 */
import { joinBack, laneJoinView } from "../priority/metrics.ts";
import {
  JoinUnconfirmedError,
  NotFoundError,
  NotOpenError,
  QueueFullError,
  StoreBusyError,
  UnauthorizedError,
} from "../errors.ts";
import { growingPause, retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { b64url, type TicketClaims } from "../tokens.ts";
import { bucketCap, openSlots, type QueueContext, refill, wholeTokens } from "./context.ts";
import {
  type JoinOwn,
  type JoinRecord,
  type JoinWriter,
  ownRefusal,
  putOwnRecords,
  SETTLE,
} from "./join_write.ts";
import { GroupCommits } from "./batches.ts";
import { prequeuePhase } from "./prequeue_phase.ts";
import type { Branding } from "../branding.ts";
import { grantSlot } from "./records.ts";
import { countTraffic } from "../traffic.ts";
import type { Counts, QueueSettings, Visitor } from "./types.ts";
import { admittedView, provisionalView } from "./view.ts";
import { type Outcome, readVisitor, schedule, settle, ticketFor } from "./visitor.ts";
import { leaveById } from "./leave_enter.ts";
import { sequence } from "./sequencer.ts";

/** A join's result: the visitor's view (admitted or waiting) and the ticket to set. */
export type JoinOutcome = Outcome & { ticket: string };

/** What the join guards passed: records for the join's commit, the enqueue key's hash. */
export interface JoinGuardPass {
  records: JoinRecord[];
  /** SHA-256 of the enqueue key, base64url: the key holds at most one place in the queue. */
  enqueueKey?: string;
  /** A new place's priority lane (a lane token's, or a code's set by `beforeNewPlace`). */
  lane?: string;
}

/** How long the record of an enqueue key's place outlives its last write (a stale one is reused). */
const KEY_TTL_MS = 7 * 86_400_000;

/** Another join took the enqueue key first: the join resumes that place instead. */
class KeyTakenError extends Error {}

/** New visitor id: a sortable time prefix and 128 random bits, base64url. */
export function newVisitorId(ctx: QueueContext): string {
  // A time prefix (base 36, sorting in byte order) keeps new records close: faster commits.
  const t = ctx.now().toString(36).toUpperCase().padStart(9, "0");
  return t + b64url(ctx.random.bytes(16));
}

/** Resumes `id`'s place: its view and a ticket; null when gone (a lapsed admission freed). */
async function resumeHeld(ctx: QueueContext, q: string, id: string): Promise<JoinOutcome | null> {
  try {
    const out = await settle(ctx, q, id, "join");
    const rec = out.ticket ? null : (await ctx.kv.get<Visitor>(keys.visitor(q, id))).value;
    return { ...out, ticket: out.ticket ?? (rec ? await ticketFor(ctx, q, rec) : "") };
  } catch (e) {
    if (!(e instanceof NotFoundError && e.code === "not_in_queue")) throw e;
    await leaveById(ctx, q, id);
    // One that left before it was numbered is taken in now, so its id can join again.
    if ((await ctx.kv.get(keys.visitor(q, id))).value) await sequence(ctx, q);
    return null;
  }
}

/**
 * `POST /join`: a ticket for this queue resumes its visitor (a body id is ignored), or one gone
 * joins again at the back under its id. `guard`: records for the write, and an enqueue key whose
 * place is resumed (from any browser). `beforeNewPlace` may refuse a new place (run once).
 */
export async function join(
  ctx: QueueContext,
  writer: JoinWriter,
  q: string,
  ticket: TicketClaims | null,
  visitorId?: string,
  guard: JoinGuardPass = { records: [] },
  beforeNewPlace?: () => Promise<void>,
): Promise<JoinOutcome> {
  await ctx.view(q);
  let id = visitorId;
  let supplied = visitorId !== undefined;
  if (ticket && ticket.queue === q) {
    const resumed = await resumeHeld(ctx, q, ticket.sub);
    if (resumed) return resumed;
    id = ticket.sub;
    supplied = true;
  }
  const j = { q, id: id ?? newVisitorId(ctx), supplied, records: guard.records };
  for (let attempt = 0;; attempt++) {
    const records = [...guard.records];
    if (guard.enqueueKey !== undefined) {
      // The place the enqueue key holds is resumed; else the key is claimed for `id` in the
      // join's write (a visitor that is gone frees it; then the key joins again, at the back).
      const key = keys.enqueueKey(q, guard.enqueueKey);
      const held = await ctx.kv.get<string>(key);
      const outcome = held.value === null ? null : await resumeHeld(ctx, q, held.value);
      if (outcome) return outcome;
      const conflict = () => new KeyTakenError();
      records.push({ key, value: j.id, expect: held.versionstamp, expireIn: KEY_TTL_MS, conflict });
    }
    // Only now is this a new place (not a held one resumed): the per-client limit counts it.
    if (attempt === 0) await beforeNewPlace?.();
    try {
      return await place(ctx, writer, { ...j, records }, guard.lane);
    } catch (e) {
      if (e instanceof StoreBusyError) throw await unconfirmed(ctx, j, e);
      // The key taken by another join (resumed next), or a client's id that left unnumbered.
      if (attempt >= 3 || !(e instanceof KeyTakenError || await tookInLeaver(ctx, j, e))) throw e;
    }
  }
}

/** True when `e` refused a client's id that left before it was numbered, now taken in. */
async function tookInLeaver(ctx: QueueContext, j: JoinOwn, e: unknown): Promise<boolean> {
  if (!(e instanceof UnauthorizedError) || !j.supplied) return false;
  if ((await readVisitor(ctx.kv, j.q, j.id)).value) return false;
  await sequence(ctx, j.q);
  return true;
}

/** Guards, writes and answers a new place: in at once, or at the back of the line. */
async function place(ctx: QueueContext, writer: JoinWriter, j: JoinOwn, lane?: string) {
  const { q } = j;
  const v = await ctx.view(q);
  const now = ctx.now();
  if (prequeuePhase(v.settings, now) === "before") throw new NotOpenError(q);
  // The cap counts the line as read plus this instance's joins: other instances' second over it.
  const max = v.settings.maxWaitingVisitors;
  const line = (ctx.freshView(q) ?? v).counts;
  if (line.waiting >= max) throw new QueueFullError(q, max);
  // Its arrival order now: one that tried to go in at once stays ahead of those meanwhile.
  const arrival = ctx.nextArrival();
  if (roomNow(ctx, v.settings, { ...line }, now)) {
    const admitted = await admitAtOnce(ctx, j);
    if (admitted) return admitted;
  }
  // The seconds other instances filled (read once a second): the check-in budget is shared. Read
  // before the row is taken: a view renewal that lands after the row drops it (model test, CI).
  await ctx.checkins.refresh(q, Math.floor(now / 1000), ctx.periodMs(v.counts.waiting) / 1000);
  const { back, landed, undo: untake } = ctx.noteArrival(q, v);
  const undo = (e: unknown): never => {
    untake();
    throw e;
  };
  // The cap again, with the row taken: joins in flight together all passed the count above.
  if (back > max) undo(new QueueFullError(q, max));
  // A join into a priority lane: the back of that lane's line (its own positions).
  const position = joinBack(ctx, v, back, lane);
  const [nextCheckAt, deadline, checkin] = schedule(ctx, q, v, v.counts.nextSeq, "join", position);
  const when = { joinedAt: now, nextCheckAt, deadline };
  const mark: Visitor["mark"] = [now, ctx.instance, arrival];
  const visitor: Visitor = { id: j.id, seq: 0, state: "waiting", ...when, mark };
  if (lane !== undefined) visitor.lane = lane;
  landed(await writer.write({ ...j, visitor, checkin }).catch(undo));
  const view = provisionalView(ctx, q, visitor, v, position, await ctx.branding(q));
  return {
    view: laneJoinView(ctx, view, v, lane, position),
    ticket: await ticketFor(ctx, q, visitor),
  };
}

/** True when `c` (refilled to `now` here) lets one in: open, an empty line, a slot and a token. */
function roomNow(ctx: QueueContext, s: QueueSettings, c: Counts, now: number): boolean {
  const rate = ctx.ratePerSecond(s);
  const open = ctx.isOpen(s, now);
  refill(c, rate, now, open, bucketCap(rate));
  return open && c.waiting === 0 && openSlots(s, c) > 0 && wholeTokens(c) >= 1;
}

/** A join waiting to be let in at once, with what its commit needs. */
interface AtOnce {
  j: JoinOwn;
  branding: Branding;
  resolve: (v: Visitor | false) => void;
  reject: (e: unknown) => void;
  /** Its own check failed (`refuseOwn`): it takes the line, where its refusal is told. */
  refused?: boolean;
}

/**
 * Joins of one instance that may go in at once share a round: one commit on the counts. It tries
 * three times, then its joins take the line, as do joins that come once it lost a check (a commit
 * a join, or rounds all waited for, made a crowd's first joins its slowest: bench/RESULTS.md).
 */
interface Rounds {
  commits: GroupCommits<AtOnce>;
  /** Joins waiting for a round: more than a round's worth take the line. */
  waiting: number;
  /** The round in flight lost a check. */
  contended: boolean;
}
const rounds = new WeakMap<QueueContext, Map<string, Rounds>>();
const AT_ONCE_TRIES = 3;
/** A visitor let in at once is written as a waiter that never checks in, then given its slot. */
const NO_CHECK_IN = { state: "waiting", nextCheckAt: 0, deadline: 0 } as const;
/** Joins a round takes: each may check its id and guard records (KV allows 100 checks). */
const PER_ROUND = 20;

/** `q`'s rounds of joins let in at once in this instance. */
function roundsOf(ctx: QueueContext, q: string): Rounds {
  const m = rounds.get(ctx) ?? new Map<string, Rounds>();
  rounds.set(ctx, m);
  let r = m.get(q);
  if (!r) {
    const commit = (batch: AtOnce[]) => commitAtOnce(ctx, q, r!, batch);
    const commits = new GroupCommits({ inFlight: 1, full: PER_ROUND, commit });
    m.set(q, r = { commits, waiting: 0, contended: false });
  }
  return r;
}

/** Commits a round (see `Rounds`) and tells each join whether it went in. */
async function commitAtOnce(ctx: QueueContext, q: string, r: Rounds, batch: AtOnce[]) {
  let lost = 0;
  const step = async () => {
    const out = await tryAtOnce(ctx, q, batch);
    if (out !== null) return out;
    r.contended = true;
    // Out of tries, a join whose own check fails takes the line; the others try once more.
    if (++lost === AT_ONCE_TRIES && await refuseOwn(ctx, batch)) return null;
    return lost >= AT_ONCE_TRIES ? batch.map(() => false as const) : null;
  };
  // No pause after a lost check; a lock error (another process holds the file) backs off.
  const pause = (i: number, took: number) => lost === i + 1 ? 0 : growingPause(i, took);
  try {
    const outs = await ctx.serial(q, () => retryCommit(step, "join", { ...SETTLE, pause }));
    batch.forEach((p, i) => p.resolve(outs[i]));
  } finally {
    r.contended = false;
  }
}

/** Marks the joins of `batch` whose own check fails (a taken id, a spent solution); true if any. */
async function refuseOwn(ctx: QueueContext, batch: AtOnce[]): Promise<boolean> {
  const found = await Promise.all(batch.map(async (p) => !!(await ownRefusal(ctx, p.j))));
  found.forEach((f, i) => batch[i].refused ||= f);
  return found.some(Boolean);
}

/**
 * A join let in at once: the only join that commits against the counts (checked with the line's
 * pending joins, so the budget and the capacity stay exact). Null when the line is no longer empty
 * or the budget or the slots are gone: then it waits like any other.
 */
async function admitAtOnce(ctx: QueueContext, j: JoinOwn): Promise<JoinOutcome | null> {
  const { q } = j;
  if (await ctx.queueAll?.(q)) return null;
  const branding = await ctx.branding(q);
  const r = roundsOf(ctx, q);
  if (r.contended || r.waiting >= PER_ROUND) return null;
  r.waiting++;
  const admitted = await new Promise<Visitor | false>((resolve, reject) =>
    r.commits.add({ j, branding, resolve, reject })
  ).finally(() => r.waiting--);
  if (!admitted) return null;
  ctx.invalidate(q);
  return {
    view: await admittedView(ctx, q, admitted),
    ticket: await ticketFor(ctx, q, admitted),
  };
}

/**
 * One try of a round: each join's records and slot while there is room, in one commit on the
 * counts. All false when a line formed; null when the commit lost a check (a join's own too).
 */
async function tryAtOnce(ctx: QueueContext, q: string, batch: AtOnce[]) {
  const none = batch.map(() => false as const);
  if ((ctx.freshView(q)?.pending ?? 0) > 0) return none;
  const now = ctx.now();
  const state = await ctx.readState(q);
  const { counts, settings } = state;
  if (!settings) throw new NotFoundError("unknown_queue", `unknown queue "${q}"`);
  if (state.arrivals > 0) return none;
  const op = ctx.kv.atomic().check(state.entry, state.settingsEntry, state.arrivalsEntry);
  const ids = new Set<string>();
  const outs = batch.map(({ j, branding, refused }): Visitor | false => {
    // The same id twice (a double click): the second takes the line, where its check tells.
    if (refused || ids.has(j.id) || !roomNow(ctx, settings, counts, now)) return false;
    ids.add(j.id);
    putOwnRecords(op, j);
    counts.tokens--;
    counts.waitCount++;
    const v: Visitor = { id: j.id, seq: counts.nextSeq++, joinedAt: now, ...NO_CHECK_IN };
    const hold = now + branding.admitHoldSeconds * 1000;
    const ttl = branding.clickToEnter ? undefined : ctx.config.ACCESS_TOKEN_TTL_SECONDS;
    return grantSlot(op, q, v, counts, now, hold, ttl);
  });
  const n = outs.filter(Boolean).length;
  if (n === 0) return none;
  countTraffic(op, q, now, "in", n);
  countTraffic(op, q, now, "out", n);
  op.set(keys.counts(q), counts);
  return (await op.commit()).ok ? outs : null;
}

/**
 * The 503 of a join that ran out of time: its write may still land (a late commit, a paused
 * instance), so it carries the ticket of its id, for a retry to resume or take that place.
 */
async function unconfirmed(ctx: QueueContext, { q, id }: JoinOwn, e: StoreBusyError) {
  const claims = { sub: id, queue: q, iat: Math.floor(ctx.now() / 1000), seq: 0, nextCheckAt: 0 };
  const why = e.message.replace(/^join: /, "").replace(/; try again in a few seconds$/, "");
  return new JoinUnconfirmedError(why, id, await ctx.signer.signTicket(claims));
}
