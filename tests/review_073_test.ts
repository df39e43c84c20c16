/**
 * Faults found reviewing 0.7.3 (joins handed over at every latency, turns as long as two of the
 * holder's slowest commits, 3,200-join commits), each over real KV.
 */
import { JoinTurns } from "../lib/queue/join_turn.ts";
import { type Counts, EMPTY_COUNTS } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";

const Q = "default";

Deno.test("a turn after a commit slower than a second stays a turn other instances wait for", async () => {
  const kv = await Deno.openKv(":memory:");
  const holder = new JoinTurns(kv), other = new JoinTurns(kv), next = new JoinTurns(kv);
  // One commit took 1.2 s (a store under load, or a SQLite file another process held locked).
  holder.noteCommit(1200);
  const c: Counts = { ...EMPTY_COUNTS };
  const now = Date.now();
  await holder.settle(Q, kv.atomic(), c, now, true, holder.commitMs);
  assertEquals(c.turnBy, holder.me, "kept while it has joins");
  // Another instance reading these counts must wait for the turn, not commit beside it: a turn
  // that far ahead reads as a clock that is off, and is not waited for at all.
  const seen = await other.decide(Q, c, Date.now(), 10);
  assertEquals(seen.go, false, `waited for (turn ${c.turnUntil - now} ms)`);
  assert(other.heldByOther(c, Date.now()), "held by the holder as others see it");
  // Handed on to a registered instance: the others wait for that turn as well.
  await next.want(Q);
  await holder.settle(Q, kv.atomic(), c, now + 2000, true, holder.commitMs);
  assertEquals(c.turnBy, next.me, "handed on");
  assertEquals((await other.decide(Q, c, now + 2000, 10)).go, false, "the next turn waited for");
  kv.close();
});
