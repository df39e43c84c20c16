/**
 * From 0.7.3's store to 0.8.0's (issue 31): 0.7.3 wrote crowds of joins as chunk records with a
 * marker in the line, and handed joins between instances through inbox and result records under
 * join turns. At start the migration expands every chunk into ordinary line entries (each waiter
 * keeps its arrival number and place) and deletes the hand-over records; a store a 0.7.3 instance
 * is still joining visitors on is refused with a clear message.
 */
import { diagnose } from "../lib/queue/doctor.ts";
import { keys } from "../lib/store/keys.ts";
import { SCHEMA_VERSION } from "../lib/store/migrate.ts";
import { EMPTY_COUNTS } from "../lib/queue/types.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";
const LINE = 100_000;
const CHUNK = 320;

/** A store as 0.7.3 left it: a line of `LINE` in chunks, joins handed over mid-flight. */
async function store073(turnUntil: number): Promise<Deno.Kv> {
  const kv = await Deno.openKv(":memory:");
  const now = Date.now();
  await kv.set(keys.schemaVersion(), 2);
  await kv.set(keys.queue(Q), { name: Q, mode: "queue", capacity: 10, createdAt: now });
  for (let seq = 1; seq <= LINE; seq += CHUNK) {
    const n = Math.min(CHUNK, LINE - seq + 1);
    const ids = Array.from({ length: n }, (_, i) => `v073-${String(seq + i).padStart(6, "0")}`);
    const chunk = {
      seq,
      joinedAt: now,
      ids,
      nextCheckAt: ids.map(() => now + 60_000),
      deadline: ids.map(() => now + 3_600_000),
    };
    await kv.atomic().set(keys.joinLog(Q, seq), chunk).set(keys.fifo(Q, seq), "~log").commit();
  }
  await kv.set(keys.counts(Q), {
    ...EMPTY_COUNTS,
    nextSeq: LINE + 1,
    waiting: LINE,
    turnBy: "old-instance",
    turnSince: turnUntil - 1500,
    turnUntil,
    logSince: now - 60_000,
  });
  // Joins handed to the turn holder's next commit, and a result written for another.
  await kv.set([...keys.joinInboxPrefix(Q), now, "other-instance", 1], { joins: ["x"] });
  await kv.set([...keys.joinResultPrefix(Q), "other-instance", 0], { answers: [] });
  await kv.set([...keys.joinWantPrefix(Q), "other-instance"], turnUntil);
  return kv;
}

Deno.test("a 0.7.3 store with a line of 100,000 in chunks and hand-overs in flight is migrated: every waiter keeps its place", async () => {
  const kv = await store073(Date.now() - 60_000);
  const t = await makeApp({}, { kv });
  assertEquals((await kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);
  for (const prefix of [keys.joinLogPrefix(Q), keys.joinInboxPrefix(Q), keys.joinResultPrefix(Q)]) {
    for await (const e of kv.list({ prefix }, { limit: 1 })) {
      throw new Error(`left: ${JSON.stringify(e.key)}`);
    }
  }
  for await (const e of kv.list<string>({ prefix: keys.fifoPrefix(Q) }, { limit: 1000 })) {
    assert(e.value !== "~log", `a chunk marker left at ${String(e.key[2])}`);
  }
  const d = await diagnose(kv, Q);
  assert(d.healthy, JSON.stringify(d).slice(0, 400));
  const m = await t.engine.metrics(Q);
  assertEquals(m.waiting, LINE);
  for (const seq of [1, 321, 50_000, LINE]) {
    const id = `v073-${String(seq).padStart(6, "0")}`;
    const ticket = { sub: id, queue: Q, iat: 0, seq, nextCheckAt: Date.now() + 60_000 };
    assertEquals((await t.engine.status(Q, ticket)).view.position, seq, id);
  }
  // New joins go behind the migrated line, numbered by the tick.
  const o = await t.engine.join(Q, null, "new-after-migration");
  assertEquals(o.view.position, LINE + 1);
  await t.engine.sequence(Q);
  assertEquals((await t.engine.visitor(Q, "new-after-migration"))?.seq, LINE + 1);
  t.close();
});

Deno.test("a store a 0.7.3 instance is joining visitors on is refused with a clear message, unchanged", async () => {
  const kv = await store073(Date.now() + 1500);
  await assertRejects(() => makeApp({}, { kv }), "stop every 0.7.3 instance");
  assertEquals((await kv.get(keys.schemaVersion())).value, 2, "not migrated");
  kv.close();
});
