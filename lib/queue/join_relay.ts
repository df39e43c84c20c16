/**
 * Relayed joins: how many instances commit joins through one queue without taking turns for
 * each batch.
 *
 * A queue gets about one join commit per round trip to the store (each checks and rewrites the
 * counts record). Taking turns at it (join_turn.ts) kept instances from losing most of their
 * commits, but with ten instances at 100 ms a commit a turn came round every second or two, and
 * joins waited for it. So an instance that finds another's turn live hands its plain joins (no id
 * of their own, no records to check) to the store instead: one inbox record per batch, which no
 * other instance writes, so it never conflicts. Whoever commits joins next takes every inbox
 * record into its own commit (the records deleted there, checked, so each is placed once), places
 * their joins first, and writes each sender's answers into a result record of the same commit.
 * The sender reads its result, expands the chunks its joins went into (join_log.ts) if the
 * committer has not yet, and answers its visitors: positions exact as of that commit, whichever
 * instance made it. A sender whose result does not come in time takes its inbox record back
 * (checked, so the joins are either placed once or not at all) and answers 503.
 */
import { sleep } from "../clock.ts";
import { NotOpenError, QueueFullError, StoreBusyError } from "../errors.ts";
import { beforeDeadline, lockRetried } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import {
  admitsAtOnce,
  canLog,
  type Joined,
  MOST_JOINS,
  type Pending,
  placeJoin,
  type Round,
} from "./join_round.ts";
import { CHUNK_MUTATIONS, chunkJoins, expandChunk } from "./join_log.ts";
import { takesRelays, type TurnDecision } from "./join_turn.ts";
import type { QueueContext, QueueView } from "./context.ts";
import type { Counts, QueueSettings, Visitor } from "./types.ts";

/** Joins in one inbox record (its answers stay well under KV's 64 KiB a value). */
export const RELAY_JOINS = 200;
/** How long an inbox record lives unclaimed (its sender has long answered 503 by then). */
const INBOX_TTL_MS = 30_000;
/** How long a result waits for its sender. */
const RESULT_TTL_MS = 30_000;

/** An inbox record: the new visitor ids a sender hands over, oldest first. */
export interface Relayed {
  /** When the sender wrote it (its joins came before that): the committer takes the oldest first. */
  at: number;
  /** When its sender takes it back unless placed (unix ms, its clock): left alone near it. */
  until: number;
  ids: string[];
}

/** One answer in a result record: a waiter, a visitor admitted at once, or a refusal. */
export type RelayAnswer =
  | { w: [seq: number, nextCheckAt: number, deadline: number, head: number]; r?: number }
  | { a: Visitor }
  | { e: "not_open" | "queue_full" };

/** A result record: the answers in the inbox record's order, and the counts the commit left. */
export interface RelayResult {
  answers: RelayAnswer[];
  joinedAt: number;
  counts: Counts;
  /** Arrival numbers of the chunks the waiters went into (to expand before answering). */
  chunks: number[];
  max: number;
}

/** The inbox records waiting for queue `q`'s next join commit, oldest first (keyed by time). */
export async function readInbox(
  kv: Deno.Kv,
  q: string,
  limit = 100,
): Promise<Deno.KvEntry<Relayed>[]> {
  return await Array.fromAsync(kv.list<Relayed>({ prefix: keys.joinInboxPrefix(q) }, { limit }));
}

/** Hands `ids` to the next join commit of `q`: the inbox record's entry, to claim back or await. */
export async function relay(
  kv: Deno.Kv,
  q: string,
  me: string,
  n: number,
  ids: string[],
  until: number,
): Promise<Deno.KvEntry<Relayed> | null> {
  const value: Relayed = { at: Date.now(), until, ids };
  const key = keys.joinInbox(q, value.at, me, n);
  const res = await kv.atomic().check({ key, versionstamp: null })
    .set(key, value, { expireIn: INBOX_TTL_MS }).commit();
  return res.ok ? { key, value, versionstamp: res.versionstamp } : null;
}

/** Takes the inbox record back: true when no commit had placed its joins (now none will). */
export async function withdraw(kv: Deno.Kv, e: Deno.KvEntry<Relayed>): Promise<boolean> {
  return (await kv.atomic().check(e).delete(e.key).commit()).ok;
}

/** The result of the inbox record at `key` (sender `me`, number `n`), once a commit wrote it. */
export async function readResult(kv: Deno.Kv, q: string, me: string, n: number) {
  return (await kv.get<RelayResult>(keys.joinResult(q, me, n))).value;
}

/** What a committer writes for one inbox record it placed (in the same op). */
export function writeResult(
  op: Deno.AtomicOperation,
  q: string,
  e: Deno.KvEntry<Relayed>,
  result: RelayResult,
): void {
  const [, , , me, n] = e.key as [string, string, number, string, number];
  op.check(e).delete(e.key).set(keys.joinResult(q, me, n), result, { expireIn: RESULT_TTL_MS });
}

/** One placed join as its sender will read it. */
export function toAnswer(r: Joined | Error): RelayAnswer {
  if (r instanceof QueueFullError) return { e: "queue_full" };
  if (r instanceof Error) return { e: "not_open" };
  if (r.line === null) return { a: r.visitor };
  const v = r.visitor;
  const w: RelayAnswer = { w: [v.seq, v.nextCheckAt, v.deadline, r.line.head!] };
  // A pre-queue window's join: the round whose draw places it.
  if (v.round !== undefined) w.r = v.round;
  return w;
}

/** The sender's answers from a result: as its own commit would have given them. */
export function fromResult(
  q: string,
  ids: string[],
  res: RelayResult,
  settings: QueueSettings,
  now: number,
): (Joined | Error)[] {
  const base: Omit<QueueView, "head"> = {
    settings,
    counts: res.counts,
    gone: [],
    goneSet: new Set(),
    loadedAt: now,
  };
  return res.answers.map((a, i): Joined | Error => {
    if ("e" in a) {
      return a.e === "queue_full" ? new QueueFullError(q, res.max) : new NotOpenError(q);
    }
    if ("a" in a) return { visitor: a.a, line: null };
    const [seq, nextCheckAt, deadline, head] = a.w;
    const visitor: Visitor = {
      id: ids[i],
      seq,
      joinedAt: res.joinedAt,
      state: "waiting",
      nextCheckAt,
      deadline,
    };
    if (a.r !== undefined) visitor.round = a.r;
    return { visitor, line: { ...base, head } };
  });
}

/** An inbox record a round placed, with its joins' answers. */
export interface Taken {
  entry: Deno.KvEntry<Relayed>;
  results: (Joined | Error)[];
}

const noop = () => {};

/** A relayed join as the round places it (plain: no id of its own, no records). */
const plain = (id: string): Pending => ({
  id,
  supplied: false,
  records: [],
  at: 0,
  resolve: noop,
  reject: noop,
});

/**
 * Places the inbox records that fit the round whole (before its own joins: they came first),
 * into chunks where it may write them, at most `checks` of them; returns the records taken with
 * their answers.
 */
export function placeRelayed(
  r: Round,
  inbox: Deno.KvEntry<Relayed>[],
  budget: number,
  landsBy: number,
  checks: number,
): Taken[] {
  const taken: Taken[] = [];
  for (const entry of inbox) {
    // Each record taken is checked (KV allows 100 checks in an op; the batch's own come first).
    if (taken.length >= checks) break;
    // Its sender takes it back before this commit lands: its check would fail the commit.
    if (entry.value.until < landsBy) continue;
    const m = entry.value.ids.length;
    const logged = canLog(r, plain(""), budget);
    // Its worst case: a chunk mutation pair per chunk begun and a new check-in second a join,
    // or three mutations and a second a join written as themselves; and its delete and result.
    const worst = (logged ? m + CHUNK_MUTATIONS * (Math.ceil(m / chunkJoins(r.q)) + 1) : 4 * m) + 2;
    if (r.joined + m > MOST_JOINS || r.mutations + worst > budget) break;
    r.mutations += 2;
    const results = entry.value.ids.map((id) =>
      placeJoin(r, plain(id), logged && !admitsAtOnce(r))
    );
    taken.push({ entry, results });
  }
  return taken;
}

/** Writes each taken record's answers (after the round: with the counts it leaves). */
export function writeResults(r: Round, taken: Taken[]): void {
  const counts = { ...r.counts };
  for (const t of taken) {
    const seqs = t.results.flatMap((x) => x instanceof Error || !x.line ? [] : [x.visitor.seq]);
    const chunks = r.chunks.filter((c) => seqs.some((s) => s >= c.seq && s < c.seq + c.ids.length))
      .map((c) => c.seq);
    writeResult(r.op, r.q, t.entry, {
      answers: t.results.map(toAnswer),
      joinedAt: r.now,
      counts,
      chunks,
      max: r.settings.maxWaitingVisitors,
    });
  }
}

/** What a sender needs of its instance: the queue's state, and a join attempt of its own. */
export interface Sender {
  ctx: QueueContext;
  /** Runs a join attempt on this instance soon (it takes the inbox, this record included). */
  kick: (q: string) => void;
}

/**
 * Hands plain joins `items` (at most `RELAY_JOINS`) to the next join commit of `q` as inbox
 * record `n`, and answers each from the result that commit writes, by `end` (unix ms): a result
 * late or never written takes the record back and answers 503. Never throws.
 */
export async function sendRelayed(
  s: Sender,
  q: string,
  items: Pending[],
  settings: QueueSettings,
  n: number,
  end: number,
): Promise<void> {
  const { ctx } = s;
  const me = ctx.turns.me;
  const busy = (why: string) => {
    for (const p of items) p.reject(new StoreBusyError("join", why));
  };
  const ids = items.map((p) => p.id);
  const pollMs = Math.max(20, ctx.turns.commitMs / 3);
  // Taking it back, and a result that came meanwhile, each take a round trip: done by `end`.
  const until = end - 2 * pollMs - 2 * ctx.turns.commitMs;
  // Every store call is bounded by `end`, as a join's own commit is (a locked file waits 5 s).
  const bounded = <T>(p: Promise<T>) => beforeDeadline(p, end, "join");
  const entry = await lockRetried(() => relay(ctx.kv, q, me, n, ids, until), end, "join")
    .catch(() => null);
  if (!entry) return busy("its hand-over to the next join commit did not go through");
  let looked = Date.now();
  for (;;) {
    // The counts come with each look for the result, one look shared by this instance's senders
    // (relay_poll.ts): a turn nobody holds any more is seen within a poll.
    const look = await bounded(ctx.relayPolls.next(q, keys.joinResult(q, me, n), pollMs))
      .catch(() => ({ result: null, counts: null }));
    const res = look.result;
    if (res) return await answer(s, q, items, ids, settings, res, end);
    if (Date.now() >= until) {
      // Taken back: no commit placed them, and none will. Else a commit has, and wrote their
      // result in the same commit: it is read at once (a poll's wait used up the little time left
      // on a saturated store, and placed joins answered 503). Only a take-back the store did not
      // answer leaves it open: a commit may still land, so that waits a poll first. Bounded too:
      // on a store that does not answer (a locked file), the joins gathered behind this record
      // wait for it to end (join_batch.ts), and they must be answered in time as well.
      const back = await lockRetried(() => withdraw(ctx.kv, entry), end, "join").catch(() => null);
      if (back) return busy("no join commit took it");
      if (back === null) await sleep(pollMs);
      const late = await bounded(readResult(ctx.kv, q, me, n)).catch(() => null);
      if (late) return await answer(s, q, items, ids, settings, late, end);
      return busy("its join commit did not answer in time");
    }
    // Nobody's turn any more (its holder left, or gave up its turn with nothing to do): the
    // sender of the oldest record takes the inbox (one instance, so their commits do not collide).
    const counts = look.counts;
    if (counts && Date.now() - looked > ctx.turns.commitMs) {
      if (!ctx.turns.heldByOther(counts, Date.now()) || !takesRelays(counts.turnBy)) {
        looked = Date.now();
        // The oldest record whose sender still waits (one left by an instance that stopped
        // would otherwise keep every sender from kicking).
        const oldest = await bounded(
          ctx.relayPolls.shared(q, ctx.turns.commitMs, () => oldestLive(ctx.kv, q)),
        ).catch(() => undefined);
        if (!oldest || oldest.key[3] === me) s.kick(q);
      }
    }
  }
}

/**
 * The oldest inbox record whose sender still waits: among the first ten, else the first hundred
 * (records whose senders gave up stay until they expire, and ten of them in front must not make
 * every sender behind commit at once).
 */
async function oldestLive(kv: Deno.Kv, q: string): Promise<Deno.KvEntry<Relayed> | undefined> {
  const live = (list: Deno.KvEntry<Relayed>[]) => list.find((e) => e.value.until > Date.now());
  const first = await readInbox(kv, q, 10);
  return live(first) ?? (first.length < 10 ? undefined : live(await readInbox(kv, q)));
}

/** Answers a sender's joins from their result, once the chunks they went into are expanded. */
async function answer(
  s: Sender,
  q: string,
  items: Pending[],
  ids: string[],
  settings: QueueSettings,
  res: RelayResult,
  end: number,
): Promise<void> {
  // The committer expands its chunks right after its commit: give it that long, so this one
  // mostly finds them done (one read) instead of writing the same expansion beside it.
  if (res.chunks.length > 0) {
    await sleep(
      Math.min(s.ctx.turns.commitMs, Math.max(0, end - Date.now() - s.ctx.turns.commitMs)),
    );
  }
  const ms = Math.max(1, end - Date.now());
  const ok = await Promise.all(res.chunks.map((c) => expandChunk(s.ctx.kv, q, c, undefined, ms)))
    .then(() => true, () => false);
  const out = fromResult(q, ids, res, settings, s.ctx.now());
  const waiters = out.filter((r): r is Joined => !(r instanceof Error) && r.line !== null);
  if (waiters.length > 0) s.ctx.noteJoined(q, res.counts, waiters[0].visitor.seq, waiters.length);
  out.forEach((r, i) => {
    if (r instanceof Error) return items[i].reject(r);
    if (!ok && r.line !== null) {
      return items[i].reject(new StoreBusyError("join", "its place was written but not in time"));
    }
    items[i].resolve(r);
  });
}

/**
 * Whether an attempt commits (`go`) and whether it hands its plain joins over first (`relay`):
 * to another instance's live turn when that one takes them; while handed-over joins wait for
 * whoever commits next (the sender of the oldest takes them, so the others do not race it: the
 * joins this one cannot hand over still commit, and take them). A kick commits when nobody's turn
 * is live, or its holder does not take joins handed over (a previous release during a rollout:
 * their commits may then collide).
 */
export function relayOrGo(
  ctx: QueueContext,
  c: Counts,
  turn: TurnDecision,
  kicked: boolean,
  waiting: boolean,
): { go: boolean; relay: boolean } {
  if (kicked) {
    const free = !ctx.turns.heldByOther(c, Date.now()) || !takesRelays(c.turnBy);
    if (turn.go || free) return { go: true, relay: false };
  }
  if (!turn.go) return { go: false, relay: takesRelays(c.turnBy) };
  const other = c.turnBy !== ctx.turns.me;
  return { go: true, relay: other && waiting && (c.turnBy === "" || takesRelays(c.turnBy)) };
}

/** A join another instance's commit can place: no id of its own to check, no records. */
export const relayable = (p: Pending) => !p.supplied && p.records.length === 0;
