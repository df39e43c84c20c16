/**
 * One round of a join group commit: each join of the batch placed in the round's atomic op
 * (refused, admitted at once, or added to the back of the line), and after a failed commit the
 * joins that can no longer go sorted out, so the rest try again.
 */
import { NotOpenError, QueueFullError, UnauthorizedError } from "../errors.ts";
import { keys } from "../store/keys.ts";
import { openSlots, type QueueContext, type QueueView, wholeTokens } from "./context.ts";
import { grantSlot, putWaiting } from "./records.ts";
import { schedule } from "./visitor.ts";
import { addToChunk, CHUNK_MUTATIONS, chunkJoins, type JoinChunk, mayLog } from "./join_log.ts";
import { drawPending } from "./prequeue_phase.ts";
import type { Branding, Counts, QueueSettings, Visitor } from "./types.ts";

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

/** A join waiting in the batcher for its group commit. */
export interface Pending {
  id: string;
  supplied: boolean;
  records: JoinRecord[];
  /** When the join was added (`Date.now()`): its bound counts from here. */
  at: number;
  resolve: (v: Joined) => void;
  reject: (e: unknown) => void;
}

/** What one commit attempt places its joins with: the op, the state it read, its tallies. */
export interface Round {
  ctx: QueueContext;
  q: string;
  op: Deno.AtomicOperation;
  settings: QueueSettings;
  /** The counts this attempt read, advanced join by join (written once at the end). */
  counts: Counts;
  branding: Branding;
  now: number;
  open: boolean;
  /** False while a pre-queue refuses joins (before its window). */
  accepting: boolean;
  /** A join in a pre-queue's window: its waiting row is not yet in the line's order. */
  windowJoin: boolean;
  /** The line as newcomers see it: these counts, no departures between head and them. */
  line: QueueView;
  /** Ids already placed in this round: the same new id twice is a takeover. */
  seen: Set<string>;
  /** Guard records already written in this round: the same one twice, the first wins. */
  written: Set<string>;
  /** The check-in seconds of this round's waiters, summed once into the op. */
  checkins: number[];
  /** The distinct seconds of `checkins` (each one mutation). */
  seconds: Set<number>;
  /** Plain newcomers may go into chunks (see join_log.ts). */
  mayLog: boolean;
  /** Chunks of newcomers this round wrote. */
  chunks: JoinChunk[];
  /** Mutations the placed joins added to the op (records, their rows, one per check-in second). */
  mutations: number;
  joined: number;
  admitted: number;
}

/** The id of a KV key within one batch (two joins must not write the same record). */
export const idOf = (key: Deno.KvKey) => JSON.stringify(key);

/** A round over the state one attempt read, with nothing placed yet. */
export function newRound(
  r: Omit<
    Round,
    | "line"
    | "seen"
    | "written"
    | "checkins"
    | "seconds"
    | "mayLog"
    | "chunks"
    | "mutations"
    | "joined"
    | "admitted"
  >,
): Round {
  const line: QueueView = {
    settings: r.settings,
    counts: r.counts,
    head: null,
    gone: [],
    goneSet: new Set(),
    loadedAt: r.now,
  };
  return {
    ...r,
    line,
    seen: new Set(),
    written: new Set(),
    checkins: [],
    seconds: new Set(),
    // Queue mode outside a pre-queue's draw only: the chunk's order is the line's order.
    mayLog: mayLog(r.counts, r.now) && r.settings.mode === "queue" && !r.windowJoin &&
      !drawPending(r.settings),
    chunks: [],
    mutations: 0,
    joined: 0,
    admitted: 0,
  };
}

/** The most mutations one join can add to a round's op (see `Round.mutations`). */
export const mostMutations = (p: Pending) => 4 + p.records.length;

/**
 * Most joins one round takes in, chunks included. The turn holder's commits bound a queue's joins
 * at about this many per round trip: 1,600 held one instance at 100 ms a commit to about 8,000
 * joins a second (bench/scale_sim.ts). A commit of 3,200 measured about 410 KB in the simulation,
 * half of what KV allows in one (800 KiB); the joins' data is the service's own (ids it makes), so
 * no visitor input makes it larger.
 */
export const MOST_JOINS = 3200;

/** Mutations kept back from the joins written as themselves, for the chunks after them. */
const LOG_RESERVE = 40;

/**
 * How join `p` still fits the round's op within `budget` mutations: as itself, or, once they are
 * spent, a plain newcomer into a chunk (no records, no id of its own to check, a waiter); null
 * when it does not.
 */
export function fits(r: Round, p: Pending, budget: number): "direct" | "log" | null {
  const reserve = r.mayLog ? LOG_RESERVE : 0;
  if (r.mutations + mostMutations(p) <= budget - reserve) return "direct";
  return canLog(r, p, budget) ? "log" : null;
}

/** True when plain newcomer `p` can go into a chunk of the round within `budget` mutations. */
export function canLog(r: Round, p: Pending, budget: number): boolean {
  if (!r.mayLog || p.supplied || p.records.length > 0 || r.joined >= MOST_JOINS) return false;
  const open = r.chunks[r.chunks.length - 1];
  // A new chunk when none is open, it is full or the next arrival does not follow it; and perhaps
  // one new check-in second.
  const follows = open && open.ids.length < chunkJoins(r.q) &&
    open.seq + open.ids.length === r.counts.nextSeq;
  const need = (follows ? 0 : CHUNK_MUTATIONS) + 1;
  return !admitsAtOnce(r) && r.mutations + need <= budget;
}

/** Places one join in the round's op (`logged`: into a chunk): its answer, or its refusal. */
export function placeJoin(r: Round, p: Pending, logged = false): Joined | Error {
  if (!r.accepting) return new NotOpenError(r.q);
  if (r.seen.has(p.id)) {
    // The same new id twice in one batch (a double click): the second is a takeover.
    return new UnauthorizedError(`visitorId "${p.id}" is already joining queue "${r.q}"`);
  }
  r.seen.add(p.id);
  if (p.supplied) r.op.check({ key: keys.visitor(r.q, p.id), versionstamp: null });
  if (r.counts.waiting >= r.settings.maxWaitingVisitors) {
    return new QueueFullError(r.q, r.settings.maxWaitingVisitors);
  }
  // The same solution or enqueue key twice in one batch: the first one wins.
  const twice = p.records.find((x) => r.written.has(idOf(x.key)));
  if (twice) return twice.conflict();
  writeRecords(r, p);
  const seq = r.counts.nextSeq++;
  r.joined++;
  const atOnce = admitsAtOnce(r);
  // A waiter's record, its arrival and deadline rows; an admission's record and expiry row.
  if (!logged || atOnce) r.mutations += 3 + p.records.length;
  return atOnce ? admitAtOnce(r, p, seq) : joinLine(r, p, seq, logged);
}

/** Writes a join's guard records, each checked to be as the join expects. */
function writeRecords(r: Round, p: Pending): void {
  for (const x of p.records) {
    r.written.add(idOf(x.key));
    r.op.check({ key: x.key, versionstamp: x.expect ?? null })
      .set(x.key, x.value, x.expireIn ? { expireIn: x.expireIn } : undefined);
  }
}

/** True when the line is empty and a slot and a token are free: no wait at all. */
export function admitsAtOnce(r: Round): boolean {
  return r.open && r.counts.waiting === 0 && openSlots(r.settings, r.counts) > 0 &&
    wholeTokens(r.counts) >= 1;
}

/** Capacity at once: a slot without ever waiting (a wait of zero in the averages). */
function admitAtOnce(r: Round, p: Pending, seq: number): Joined {
  const { counts, now, branding } = r;
  counts.tokens--;
  counts.waitCount++;
  r.admitted++;
  const fresh: Visitor = {
    id: p.id,
    seq,
    joinedAt: now,
    state: "waiting",
    nextCheckAt: 0,
    deadline: 0,
  };
  const hold = now + branding.admitHoldSeconds * 1000;
  const ttl = branding.clickToEnter ? undefined : r.ctx.config.ACCESS_TOKEN_TTL_SECONDS;
  return { visitor: grantSlot(r.op, r.q, fresh, counts, now, hold, ttl), line: null };
}

/** Adds the newcomer to the back of the line, with its first check-in scheduled. */
function joinLine(r: Round, p: Pending, seq: number, logged: boolean): Joined {
  r.counts.waiting++;
  // The newcomer is last in line: its position is the waiting count, exact because the commit
  // checks the counts record (whichever instance wrote it last).
  const own = { ...r.line, head: seq - r.counts.waiting + 1 };
  const [nextCheckAt, deadline, checkin] = schedule(r.ctx, r.q, own, seq, "join");
  if (checkin !== null) {
    if (!r.seconds.has(checkin)) r.mutations++;
    r.seconds.add(checkin);
    r.checkins.push(checkin);
  }
  const v: Visitor = {
    id: p.id,
    seq,
    joinedAt: r.now,
    state: "waiting",
    nextCheckAt,
    deadline,
  };
  // A window join waits for the draw, which places it without rewriting this record.
  if (r.windowJoin) v.round = r.counts.preRound;
  if (!logged) putWaiting(r.op, r.q, v, !r.windowJoin);
  else if (addToChunk(r.chunks, v, chunkJoins(r.q))) r.mutations += CHUNK_MUTATIONS;
  return { visitor: v, line: own };
}

/**
 * After a failed join commit: rejects the joins whose records changed meanwhile (a solution used
 * by another instance, an enqueue key taken) and returns the others, to be committed again.
 */
export async function dropConflicts(kv: Deno.Kv, items: Pending[]): Promise<Pending[]> {
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

/**
 * After a failed join commit: rejects the joins whose client-supplied id another join took
 * meanwhile (that visitor resumes with its ticket) and returns the others.
 */
export async function dropTaken(kv: Deno.Kv, q: string, items: Pending[]): Promise<Pending[]> {
  const supplied = items.filter((p) => p.supplied);
  if (supplied.length === 0) return items;
  const taken = new Set<string>();
  for (let i = 0; i < supplied.length; i += 10) {
    const got = await kv.getMany(supplied.slice(i, i + 10).map((p) => keys.visitor(q, p.id)));
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
  return items.filter((p) => !taken.has(p.id));
}
