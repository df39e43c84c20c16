/**
 * Faults found reviewing 0.7.3 (joins handed over at every latency, turns as long as two of the
 * holder's slowest commits, 3,200-join commits), each over real KV.
 */
import { JoinTurns } from "../lib/queue/join_turn.ts";
import { heldBy } from "../testing/turns.ts";
import { type Counts, EMPTY_COUNTS } from "../lib/queue/types.ts";
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

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

/** `n` joins of a crowd at once to a queue of the longest name, `supplied` of them with ids of their own (64 characters, the longest). */
async function longNameCrowd(n: number, supplied: number, chunks: boolean) {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 });
  // The longest name a queue may have: it is in every key a join writes.
  const q = "q".repeat(64);
  await t.engine.ensureQueues([q]);
  // Counts this release has written for long (chunks allowed), or none yet (no chunks).
  if (chunks) await t.kv.set(keys.counts(q), { ...EMPTY_COUNTS, logSince: 1 });
  const id = (i: number) => `own${String(i).padStart(61, "0")}`;
  const outs = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => t.engine.join(q, null, i < supplied ? id(i) : undefined)),
  );
  const failed = outs.flatMap((o) => o.status === "rejected" ? [String(o.reason)] : []);
  assertEquals(failed.length, 0, `failed: ${failed.length}, first: ${failed[0]}`);
  const c = (await t.kv.get<Counts>(keys.counts(q))).value!;
  assertEquals([c.nextSeq - 1, c.waiting], [n, n], "each placed once");
  const positions = outs.map((o) => o.status === "fulfilled" ? o.value.view.position! : 0);
  assertEquals(positions.sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i + 1));
  const left = await Array.fromAsync(t.kv.list({ prefix: keys.joinLogPrefix(q) }));
  assertEquals(left.length, 0, "every chunk expanded");
  const line = await Array.fromAsync(t.kv.list({ prefix: keys.fifoPrefix(q) }));
  assertEquals(line.length, n, "each in the line");
  t.close();
}

Deno.test("a crowd joining a queue with a long name: every join placed (KV's 80 KiB of keys an op)", async () => {
  await longNameCrowd(400, 90, false);
});

Deno.test("a crowd joining a queue with a long name, in chunks: every chunk expanded, every join placed", async () => {
  await longNameCrowd(1500, 0, true);
});

Deno.test("a turn read as further ahead than any turn lasts (a clock that is off) gets no joins handed over", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 });
  // An instance whose clock is 30 s ahead wrote its turn, and stopped: nobody waits for a turn
  // that far ahead (see JoinTurns.decide), so this instance commits its joins itself.
  await t.kv.set(keys.counts(Q), heldBy("rahead01", 30_000));
  const first = await t.engine.join(Q, null);
  assertEquals(first.view.position, 1);
  // Its next joins are its own to commit as well (it holds the turn now): none is handed to the
  // turn of the instance that stopped, as read before.
  const more = await Promise.all(Array.from({ length: 3 }, () => t.engine.join(Q, null)));
  assertEquals(more.map((o) => o.view.position), [2, 3, 4]);
  // A hand-over leaves its result record behind (its first is number 0), whoever placed it.
  const me = t.engine.ctx.turns.me;
  assertEquals((await t.kv.get(keys.joinResult(Q, me, 0))).value, null, "no join handed over");
  const c = (await t.kv.get<Counts>(keys.counts(Q))).value!;
  assertEquals(c.nextSeq - 1, 4, "each placed once");
  t.close();
});
