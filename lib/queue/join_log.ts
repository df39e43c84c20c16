/**
 * Logged joins: how one join commit takes in more joins than KV's 1,000 mutations allow.
 *
 * Every join commit checks and rewrites the queue's counts record (that keeps arrival numbers
 * unique and positions exact), so a queue gets about one join commit per round trip to the store
 * whichever instance sends it. With three mutations a join (record, line entry, deadline entry)
 * that bound a queue at 100 ms a commit to about 3,300 joins a second. So once a commit's
 * mutations are spent, further plain joins go into a compact chunk instead: one record holding up
 * to `CHUNK_JOINS` newcomers of consecutive arrival numbers, and in the line, at the chunk's first
 * arrival number, a marker entry. Right after the commit the instance that wrote it expands the
 * chunk in a commit of its own (records, line and deadline entries, the chunk deleted, checked
 * so it happens once), which touches no shared record and so runs beside the next join commit.
 * Its joins are answered after that, so no visitor ever holds a ticket to an unexpanded record.
 *
 * The marker keeps the line's order exact meanwhile: it sits where the chunk's first newcomer
 * will, so the head of the line is right, and an admission that reaches it expands the chunk
 * first (a writer that died leaves it to them). Nothing else reads chunk members before their
 * expansion: they have no tickets, no deadline entries, and the counts already include them.
 */
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { putWaiting } from "./records.ts";
import type { Counts, Visitor } from "./types.ts";
import { StoreBusyError } from "../errors.ts";
import type { Joined } from "./join_round.ts";

/** The line entry standing for a chunk (not a visitor id: ids never contain "~"). */
export const LOG_MARKER = "~log";
/** Newcomers in one chunk: its expansion writes three mutations each, under KV's 1,000. */
export const CHUNK_JOINS = 320;
/** KV's bound on the keys of one atomic op, its checks' and mutations' together (bytes). */
export const OP_KEY_BYTES = 81_920;
/**
 * Newcomers in one chunk of queue `q`: `CHUNK_JOINS`, fewer for a long name, which is in each of
 * the three keys its expansion writes a newcomer (about 100 bytes besides): with a name of 53
 * characters or more an expansion of 320 passed KV's 80 KiB of keys an op and never went through.
 */
export function chunkJoins(q: string): number {
  return Math.min(CHUNK_JOINS, Math.floor((OP_KEY_BYTES - 200) / (3 * q.length + 110)));
}
/** Mutations a chunk adds to the join commit: the chunk and its marker. */
export const CHUNK_MUTATIONS = 2;
/**
 * Seconds of counts written only by this release before chunks are written: a previous release
 * drops the field (`logSince`) when it writes the counts, and its admissions do not stop at a
 * marker, so while one runs beside this one (a rollout) joins are not logged.
 */
const LOG_AFTER_MS = 10_000;

/** A chunk as stored at `keys.joinLog(q, seq)`: newcomers `seq`, `seq + 1`, ... */
export interface JoinChunk {
  seq: number;
  joinedAt: number;
  ids: string[];
  nextCheckAt: number[];
  deadline: number[];
}

/** True for a line entry's value that stands for a chunk. */
export const isLogMarker = (v: unknown) => v === LOG_MARKER;

/** Notes in `c` that this release wrote it; true when chunks may be written to it now. */
export function mayLog(c: Counts, now: number): boolean {
  if (!c.logSince || c.logSince > now) {
    c.logSince = now;
    return false;
  }
  return now - c.logSince >= LOG_AFTER_MS;
}

/**
 * Adds waiter `v` to the open chunk of `chunks` (a new one when none is open or it has `max`).
 */
export function addToChunk(chunks: JoinChunk[], v: Visitor, max = CHUNK_JOINS): boolean {
  const last = chunks[chunks.length - 1];
  if (last && last.ids.length < max && last.seq + last.ids.length === v.seq) {
    last.ids.push(v.id);
    last.nextCheckAt.push(v.nextCheckAt);
    last.deadline.push(v.deadline);
    return false;
  }
  chunks.push({
    seq: v.seq,
    joinedAt: v.joinedAt,
    ids: [v.id],
    nextCheckAt: [v.nextCheckAt],
    deadline: [v.deadline],
  });
  return true;
}

/** Writes `chunks` and their markers into a join commit. */
export function writeChunks(op: Deno.AtomicOperation, q: string, chunks: JoinChunk[]): void {
  for (const c of chunks) {
    op.set(keys.joinLog(q, c.seq), c).set(keys.fifo(q, c.seq), LOG_MARKER);
  }
}

/** The waiters a chunk stands for, as their records read once it is expanded. */
export function chunkVisitors(c: JoinChunk): Visitor[] {
  return c.ids.map((id, i) => ({
    id,
    seq: c.seq + i,
    joinedAt: c.joinedAt,
    state: "waiting",
    nextCheckAt: c.nextCheckAt[i],
    deadline: c.deadline[i],
  }));
}

/**
 * Expands the chunk at arrival number `seq` of queue `q` into its waiters' records and entries,
 * once: true when it is expanded now or was before (by its writer or an admission). Its writer
 * passes the chunk and the versionstamp its commit gave it, and saves the read.
 */
export function expandChunk(
  kv: Deno.Kv,
  q: string,
  seq: number,
  written?: { chunk: JoinChunk; versionstamp: string },
  deadlineMs?: number,
): Promise<boolean> {
  return retryCommit(
    async () => {
      const e = written
        ? { key: keys.joinLog(q, seq), value: written.chunk, versionstamp: written.versionstamp }
        : await kv.get<JoinChunk>(keys.joinLog(q, seq));
      if (!e.value) return true;
      const op = kv.atomic().check(e).delete(e.key);
      for (const v of chunkVisitors(e.value)) putWaiting(op, q, v);
      // A lost check: nothing but an expansion changes a chunk, so another one did it.
      await op.commit();
      return true;
    },
    "join-log",
    { deadlineMs },
  );
}

/** Chunks older than this were left by their writer (it expands its own within its bound). */
const LEFT_AFTER_MS = 3000;

/** Expands the chunks of `q` their writers left (older than their joins' bound; a tick's step). */
export async function expandLeft(
  ctx: { kv: Deno.Kv; now: () => number },
  q: string,
): Promise<void> {
  const old: number[] = [];
  for await (const e of ctx.kv.list<JoinChunk>({ prefix: keys.joinLogPrefix(q) }, { limit: 5 })) {
    if (ctx.now() - e.value.joinedAt > LEFT_AFTER_MS) old.push(e.value.seq);
  }
  for (const s of old) await expandChunk(ctx.kv, q, s);
}

/** Expands every chunk of queue `q` still in the store (the doctor's first step). */
export async function expandAll(kv: Deno.Kv, q: string): Promise<number> {
  const seqs: number[] = [];
  for await (const e of kv.list({ prefix: keys.joinLogPrefix(q) })) seqs.push(e.key[2] as number);
  for (const s of seqs) await expandChunk(kv, q, s);
  return seqs.length;
}

/** A chunk a join commit wrote, with the versionstamp that commit gave it. */
export interface Written {
  chunk: JoinChunk;
  versionstamp: string;
}

/**
 * Expands the chunks a join commit wrote (each in a commit of its own, side by side); the joins
 * of a chunk that could not be expanded in time are answered 503 instead (their places lapse
 * unclaimed, as when an answer is lost; an admission that meets the chunk expands it).
 */
export async function expandWritten(
  kv: Deno.Kv,
  q: string,
  chunks: Written[],
  results: (Joined | Error)[],
  end: number,
): Promise<void> {
  if (chunks.length === 0) return;
  const ms = Math.max(1, end - Date.now());
  const done = await Promise.all(
    chunks.map((w) => expandChunk(kv, q, w.chunk.seq, w, ms).catch(() => false)),
  );
  const failed = chunks.filter((_, i) => !done[i]);
  if (failed.length === 0) return;
  results.forEach((r, i) => {
    if (chunkOf(failed, r)) {
      results[i] = new StoreBusyError("join", "its place was written but not in time");
    }
  });
}

/** The chunk of `chunks` that holds the waiter of `r`, if any. */
export function chunkOf(chunks: Written[], r: Joined | Error) {
  if (chunks.length === 0 || r instanceof Error || r.line === null) return undefined;
  const seq = r.visitor.seq;
  return chunks.find(({ chunk: c }) => seq >= c.seq && seq < c.seq + c.ids.length);
}
