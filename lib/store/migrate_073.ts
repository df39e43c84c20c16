/**
 * The 0.8.0 migration from 0.7.3's join layout: 0.7.3 wrote crowds of joins compactly (a chunk
 * record and a marker in the line, expanded later) and handed joins between instances through
 * inbox and result records under join turns. 0.8.0 joins write their own records and the tick
 * numbers them (lib/queue/sequencer.ts), so at start every chunk left is expanded into ordinary
 * line entries, and the hand-over records (whose joins were answered, or timed out and were told
 * to retry with the ticket of their id) and the turn registrations are deleted.
 */
import { retryCommit, STARTUP_DEADLINE_MS } from "./commit.ts";
import { deleteListed } from "./delete.ts";
import { keys } from "./keys.ts";
import { putWaiting } from "../queue/records.ts";
import type { Visitor } from "../queue/types.ts";

/** A chunk of joins as 0.7.3 wrote it (lib/queue/join_log.ts of that release). */
interface JoinChunk {
  seq: number;
  joinedAt: number;
  ids: string[];
  nextCheckAt: number[];
  deadline: number[];
}

/** The waiters of a chunk, as their own records. */
function chunkVisitors(c: JoinChunk): Visitor[] {
  return c.ids.map((id, i) => ({
    id,
    seq: c.seq + i,
    joinedAt: c.joinedAt,
    state: "waiting",
    nextCheckAt: c.nextCheckAt[i],
    deadline: c.deadline[i],
  }));
}

/** Expands one chunk into its waiters' records and line entries (the marker is overwritten). */
async function expandChunk(kv: Deno.Kv, q: string, e: Deno.KvEntry<JoinChunk>): Promise<void> {
  const all = chunkVisitors(e.value);
  // Three mutations a waiter: at most 300 waiters a commit; the chunk goes with the last part.
  for (let i = 0; i < all.length; i += 300) {
    const part = all.slice(i, i + 300);
    const last = i + 300 >= all.length;
    await retryCommit(
      async () => {
        const op = kv.atomic();
        for (const v of part) putWaiting(op, q, v);
        if (last) op.check(e).delete(e.key);
        // A lost check: another instance expanded it (the same writes).
        await op.commit();
        return true;
      },
      "migrate",
      { deadlineMs: STARTUP_DEADLINE_MS },
    );
  }
}

/** Brings every queue's join records from 0.7.3's layout to 0.8.0's. */
export async function migrateJoinLayout(kv: Deno.Kv): Promise<void> {
  for await (const qe of kv.list({ prefix: keys.queues() })) {
    const q = qe.key[1] as string;
    for await (const e of kv.list<JoinChunk>({ prefix: keys.joinLogPrefix(q) })) {
      await expandChunk(kv, q, e);
    }
    for (
      const prefix of [keys.joinInboxPrefix(q), keys.joinResultPrefix(q), keys.joinWantPrefix(q)]
    ) {
      await deleteListed(kv, { prefix }, { limit: 100_000 });
    }
  }
}

/** How recent a 0.7.3 join turn must be to count as a live 0.7.3 instance (ms). */
const LIVE_TURN_MS = 10_000;

/**
 * The queue on which a 0.7.3 instance is joining visitors right now (its join turn in the counts,
 * or an instance waiting for one), or null. A rollout from 0.7.3 stops every 0.7.3 instance first:
 * 0.7.3 numbers joins in its join commits, 0.8.0 in the tick, and the two do not share a line.
 */
export async function live073(kv: Deno.Kv, nowMs = Date.now()): Promise<string | null> {
  for await (const qe of kv.list({ prefix: keys.queues() })) {
    const q = qe.key[1] as string;
    const c = (await kv.get<{ turnBy?: string; turnUntil?: number }>(keys.counts(q))).value;
    if (c?.turnBy && (c.turnUntil ?? 0) > nowMs - LIVE_TURN_MS) return q;
    // A registration for the turn (its value: when it was made; it expires, though not at once).
    for await (const e of kv.list<number>({ prefix: keys.joinWantPrefix(q) }, { limit: 100 })) {
      if (typeof e.value === "number" && e.value > nowMs - LIVE_TURN_MS) return q;
    }
  }
  return null;
}
