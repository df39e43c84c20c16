/**
 * The sequencer reads its next batch while the commit before it is in flight (after that batch's
 * last arrival, without the early leavers it took out). These tests check what that must never do:
 * number an arrival twice, or bring back a visitor whose arrival entry the commit in flight
 * deleted (an early leaver whose arrival lies in the batch read ahead). Several batches of
 * arrivals, early leavers spread over them, and leaves and joins landing while commits are in
 * flight; then every arrival number once, the line and the counts agree, the sum is empty.
 */
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { sequence, SEQUENCE_CHUNK } from "../lib/queue/sequencer.ts";
import { delayedKv } from "../testing/delayed_kv.ts";
import { FakeClock } from "../lib/clock.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";
type App = Awaited<ReturnType<typeof makeApp>>;

/** Leaves as visitor `id` (a join not numbered yet writes an early-leave note). */
async function leaveAs(t: App, id: string) {
  const v = (await t.kv.get<Visitor>(keys.visitor(Q, id))).value!;
  await t.engine.leave(Q, { sub: id, queue: Q, iat: 0, seq: v.seq, nextCheckAt: 0 }, id);
}

/** The store after sequencing: every waiter numbered once, line, counts and sum in agreement. */
async function checkLine(real: Deno.Kv, gone: string[], joined: number) {
  const waiters: Visitor[] = [];
  for await (const e of real.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    waiters.push(e.value);
  }
  for (const id of gone) assert(!waiters.some((v) => v.id === id), `${id} left and stays gone`);
  assertEquals(waiters.length, joined - gone.length, "everyone else waits");
  const seqs = waiters.map((v) => v.seq).sort((a, b) => a - b);
  assert(seqs.every((s) => s > 0), "every waiter numbered");
  assertEquals(new Set(seqs).size, seqs.length, "no arrival number twice");
  const line = await Array.fromAsync(real.list<string>({ prefix: keys.fifoPrefix(Q) }));
  assertEquals(line.length, waiters.length, "one line entry each");
  const counts = withDefaults(EMPTY_COUNTS, (await real.get<Counts>(keys.counts(Q))).value);
  assertEquals(counts.waiting, waiters.length, "the counts agree with a recount");
  assert(counts.nextSeq > seqs.at(-1)!, "the next number is past every one given");
  const sum = (await real.get<Deno.KvU64>(keys.arrivalsPending(Q))).value?.value ?? 0n;
  assertEquals(Number(sum), 0, "the sum of joins not numbered is empty");
  const arrivals = await Array.fromAsync(real.list({ prefix: keys.arrivalPrefix(Q) }));
  assertEquals(arrivals.length, 0, "no arrival entry left");
}

Deno.test("early leavers whose arrivals lie in a batch read ahead stay gone", async () => {
  // Commits slower than reads, as over a remote store: the read ahead lists before they land.
  const real = await Deno.openKv(":memory:");
  const t = await makeApp({}, { kv: delayedKv(real, { readMs: 0, commitMs: 20 }) });
  try {
    await t.engine.setPaused(Q, true);
    const n = SEQUENCE_CHUNK * 2 + 120;
    for (let i = 0; i < n; i += 200) {
      await Promise.all(
        Array.from(
          { length: Math.min(200, n - i) },
          (_, j) => t.engine.join(Q, null, `v-${String(i + j).padStart(5, "0")}`),
        ),
      );
    }
    // One early leaver in the first batch, the others in the batches read ahead of it.
    const gone = [5, SEQUENCE_CHUNK + 10, SEQUENCE_CHUNK * 2 + 3, n - 1].map((i) =>
      `v-${String(i).padStart(5, "0")}`
    );
    for (const id of gone) await leaveAs(t, id);
    for (let i = 0; i < 10; i++) await t.engine.sequence(Q);
    await checkLine(real, gone, n);
  } finally {
    t.close();
  }
});

Deno.test("leaves and joins landing while a numbering commit is in flight", async () => {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const other = await makeApp({}, { kv: real, clock, seed: 2 });
  let hook: (() => Promise<void>) | null = null;
  const kv = delayedKv(real, {
    readMs: 0,
    commitMs: 0,
    beforeCommit: async () => {
      const h = hook;
      hook = null;
      await h?.();
    },
  });
  const t = await makeApp({}, { kv, clock });
  try {
    await t.engine.setPaused(Q, true);
    const n = SEQUENCE_CHUNK * 3;
    const id = (i: number) => `w-${String(i).padStart(5, "0")}`;
    for (let i = 0; i < n; i += 200) {
      await Promise.all(
        Array.from(
          { length: Math.min(200, n - i) },
          (_, j) => other.engine.join(Q, null, id(i + j)),
        ),
      );
    }
    const gone = [id(SEQUENCE_CHUNK + 5), id(SEQUENCE_CHUNK * 2 + 7)];
    let extra = 0;
    // While the first numbering commit is on its way: two visitors of later batches leave, and
    // another instance takes ten more joins.
    hook = async () => {
      for (const g of gone) await leaveAs(other, g);
      await Promise.all(
        Array.from({ length: 10 }, (_, j) => other.engine.join(Q, null, `late-${j}-0000`)),
      );
      extra = 10;
    };
    for (let i = 0; i < 10; i++) await t.engine.sequence(Q);
    assertEquals(hook, null, "the hook ran during a numbering commit");
    await checkLine(real, gone, n + extra);
  } finally {
    t.close(); // both instances' store
  }
});

Deno.test("a leave note taken in after its visitor was numbered makes it leave, whoever ran the sequencer", async () => {
  // The draw runs the sequencer itself before the opening draw (draw_schedule.ts): the run sees to
  // such leaves, not its caller (that caller once dropped them, and the visitor stayed in line).
  const t = await makeApp({});
  try {
    await t.engine.setPaused(Q, true);
    for (const id of ["v-a", "v-b", "v-c"]) await t.engine.join(Q, null, id);
    await t.engine.sequence(Q);
    const b = (await t.kv.get<Visitor>(keys.visitor(Q, "v-b"))).value!;
    assert(b.seq > 0, "numbered");
    // Its note, as a leave written while it was still unnumbered leaves it.
    await t.kv.set(keys.leftEarly(Q, "v-b"), 1);
    await sequence(t.engine.ctx, Q);
    assertEquals(await t.engine.visitor(Q, "v-b"), null, "v-b left");
    assertEquals((await t.kv.get(keys.leftEarly(Q, "v-b"))).value, null, "its note taken in");
    const counts = withDefaults(EMPTY_COUNTS, (await t.kv.get<Counts>(keys.counts(Q))).value);
    assertEquals(counts.waiting, 2, "two wait");
  } finally {
    t.close();
  }
});

Deno.test("a leave after numbering that fails gets its note back, and the next run sees to it", async () => {
  const real = await Deno.openKv(":memory:");
  let fail = true;
  const same = (a: Deno.KvKey, b: Deno.KvKey) =>
    a.length === b.length && a.every((x, i) => x === b[i]);
  const t = await makeApp({}, {
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      beforeCommit: (written) => {
        // The leave's own commit (it deletes the record and the note): the store goes away once.
        const leave = written.some((k) => same(k, keys.visitor(Q, "v-b"))) &&
          written.some((k) => same(k, keys.leftEarly(Q, "v-b")));
        if (leave && fail) {
          fail = false;
          return Promise.reject(new Error("connection reset"));
        }
        return Promise.resolve();
      },
    }),
  });
  try {
    await t.engine.setPaused(Q, true);
    for (const id of ["v-a", "v-b", "v-c"]) await t.engine.join(Q, null, id);
    await t.engine.sequence(Q);
    await real.set(keys.leftEarly(Q, "v-b"), 1);
    await sequence(t.engine.ctx, Q);
    assert(!fail, "the leave was tried and failed");
    assert((await real.get(keys.leftEarly(Q, "v-b"))).value, "its note is back");
    assert((await real.get(keys.visitor(Q, "v-b"))).value, "still in line meanwhile");
    await sequence(t.engine.ctx, Q);
    assertEquals(await t.engine.visitor(Q, "v-b"), null, "v-b left at the next run");
    assertEquals((await real.get(keys.leftEarly(Q, "v-b"))).value, null, "its note taken in");
    const counts = withDefaults(EMPTY_COUNTS, (await real.get<Counts>(keys.counts(Q))).value);
    assertEquals(counts.waiting, 2, "two wait");
  } finally {
    t.close();
  }
});

Deno.test("a numbering run stops once it caught up, not chasing the joins that come meanwhile", async () => {
  // A tick's numbering that chased every join arriving during it used its whole budget at any
  // rate, and the tick ran past its second (bench/RESULTS.md, the scale simulation at 100 ms).
  const real = await Deno.openKv(":memory:");
  const t = await makeApp({}, { kv: delayedKv(real, { readMs: 2, commitMs: 10 }) });
  let joining = true;
  try {
    await t.engine.setPaused(Q, true);
    await Promise.all(Array.from({ length: 300 }, (_, i) => t.engine.join(Q, null, `v-${i}`)));
    // Joins keep coming, several every commit's time, while the run numbers.
    const more = Promise.all(Array.from({ length: 20 }, async (_, k) => {
      for (let i = 0; joining; i++) await t.engine.join(Q, null, `w-${k}-${i}`);
    }));
    const started = performance.now();
    const numbered = await sequence(t.engine.ctx, Q, 5_000);
    const ms = performance.now() - started;
    joining = false;
    await more;
    assert(numbered >= 300, `the 300 there were numbered (${numbered})`);
    assert(
      ms < 2_500,
      `the run ended once caught up, not at its 5 s budget (${Math.round(ms)} ms)`,
    );
  } finally {
    joining = false;
    t.close();
  }
});
