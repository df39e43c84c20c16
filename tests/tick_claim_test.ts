/**
 * One instance runs a second's tick where no turn holder does: two instances over one real KV
 * (each seen through its own delays and tally) tick the same second at once; the one that loses
 * the claim of the second reads only its state and the claim, and commits no counts. The claim
 * is per second, the turn holder ticks without it, and deleting the queue removes it. Also the
 * shared looks of an instance's senders (relay_poll.ts): one read per nine result keys.
 */
import { delayedKv, KvTally } from "../testing/delayed_kv.ts";
import { FakeClock } from "../lib/clock.ts";
import { tick, type TickResult } from "../lib/queue/admit.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { ResultPolls } from "../lib/queue/relay_poll.ts";
import { keys } from "../lib/store/keys.ts";
import { aroundReads } from "../testing/around_reads.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";
import { turnOf } from "../testing/turns.ts";

const Q = "default";
const CONFIG = { ADMIT_PER_SECOND: 3, CAPACITY: 100 };

async function countsOf(kv: Deno.Kv, q = Q): Promise<Counts> {
  return withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(q))).value);
}

/** Commits told apart by the keys they write: the counts, the claim of a second, the rest. */
const kind = (w: Deno.KvKey[]) =>
  w.some((k) => k[0] === "counts" && k[1] === Q)
    ? "counts"
    : w.some((k) => k[0] === "tickClaim")
    ? "claim"
    : "x";

type App = Awaited<ReturnType<typeof makeApp>>;

/** One instance's tick of `Q`, with what it asked of the store meanwhile. */
async function run(app: App, tally: KvTally) {
  const reads = tally.reads;
  const counts = tally.byKind.get("counts")?.commits ?? 0;
  const claims = tally.byKind.get("claim")?.commits ?? 0;
  const r = await tick(app.engine.ctx, Q);
  return {
    r,
    reads: tally.reads - reads,
    countsCommits: (tally.byKind.get("counts")?.commits ?? 0) - counts,
    claimCommits: (tally.byKind.get("claim")?.commits ?? 0) - claims,
  };
}

/**
 * Two instances `a` and `b` (no automatic ticks) over one in-memory KV and one fake clock, each
 * through its own delays (reads and commits of 5-20 ms) and tally, with `waiters` in line (joined
 * while paused) and nobody's turn; the clock is 1.5 s on.
 */
async function pair(waiters: number, config: Record<string, unknown> = CONFIG) {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const ta = new KvTally(), tb = new KvTally();
  const a = await makeApp(config, {
    clock,
    kv: delayedKv(real, { readMs: 5, commitMs: 12, kind }, ta),
  });
  const b = await makeApp(config, {
    clock,
    kv: delayedKv(real, { readMs: 9, commitMs: 20, kind }, tb),
  });
  await a.engine.setPaused(Q, true);
  for (let i = 0; i < waiters; i++) await a.engine.join(Q, null);
  await a.engine.setPaused(Q, false);
  // Nobody's turn: both instances are claimers (single joins hand the turn on to nobody).
  const c = await real.get<Counts>(keys.counts(Q));
  await real.set(keys.counts(Q), { ...c.value!, turnBy: "", turnSince: 0, turnUntil: 0 });
  clock.advance(1500);
  assertEquals(a.engine.ctx.turns.others(Q), false);
  assertEquals(b.engine.ctx.turns.others(Q), false);
  return { real, clock, a, b, ta, tb, sec: () => Math.floor(clock.now() / 1000) };
}

async function claimOf(kv: Deno.Kv, q = Q) {
  const v = (await kv.get<{ sec: number; by: string; at?: number }>(keys.tickClaim(q))).value;
  // Who claimed which second (when it claimed is checked where it matters).
  return v && { sec: v.sec, by: v.by };
}

/** Records and counts agree with the admissions the ticks say they made, and a recount. */
async function assertExact(real: Deno.Kv, before: Counts, admitted: number) {
  const c = await countsOf(real);
  const vs: Visitor[] = [];
  for await (const e of real.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) vs.push(e.value);
  vs.sort((x, y) => x.seq - y.seq);
  const ins = vs.filter((v) => v.state === "admitted");
  assertEquals(ins.length, before.admitted + admitted, "each admission once");
  assertEquals(c.admitted, before.admitted + admitted, "admissions counted once");
  assertEquals(c.waiting, before.waiting - admitted, "waiting count exact");
  assertEquals(vs.filter((v) => v.state === "waiting").length, c.waiting);
  assertEquals(ins.map((v) => v.seq), vs.slice(0, ins.length).map((v) => v.seq), "front first");
  const d = await diagnose(real, Q);
  assert(d.healthy, `counts equal a recount: ${JSON.stringify(d)}`);
}

const ranOnce = <T extends { r: TickResult }>(x: T, y: T): [T, T] => {
  assertEquals([x.r.ran, y.r.ran].filter(Boolean).length, 1, "exactly one tick ran");
  return x.r.ran ? [x, y] : [y, x];
};

Deno.test("two instances tick one second at once: one claims and runs it, the other only reads the claim", async () => {
  const t = await pair(10);
  try {
    const before = await countsOf(t.real);
    const sec = t.sec();
    const [x, y] = await Promise.all([run(t.a, t.ta), run(t.b, t.tb)]);
    const [won, lost] = ranOnce(x, y);
    const winner = won === x ? t.a : t.b;
    assert(won.r.admitted > 0, `the tick admitted: ${JSON.stringify(won.r)}`);
    assertEquals(won.countsCommits, 1, "the winner committed the counts once");
    assertEquals(lost.countsCommits, 0, "the loser made no counts commit");
    assertEquals(lost.r.admitted, 0);
    // Its state (the counts, the settings), the claim, and the counts once the claim's time was
    // up (the winner's tick had landed); none of the tick's lists or visitors.
    assert(lost.reads <= 4, `the loser read ${lost.reads} times`);
    assert(
      won.reads >= lost.reads + 3,
      `the winner's tick read more (${won.reads}) than the loser's (${lost.reads})`,
    );
    assertEquals(won.claimCommits, 1, "the winner claimed the second");
    assertEquals(await claimOf(t.real), { sec, by: winner.engine.ctx.turns.me });
    assertEquals((await countsOf(t.real)).tickAt, sec, "the second's tick recorded");
    await assertExact(t.real, before, won.r.admitted);
  } finally {
    t.real.close();
  }
});

Deno.test("a claimer reads the second's claim beside the queue's state, not after it", async () => {
  const real = await Deno.openKv(":memory:");
  const seen = { countsInFlight: 0, claimReads: 0, claimBeside: 0 };
  const kv = aroundReads(real, async (first, read) => {
    const counts = first[0] === "counts" && first[1] === Q;
    if (first[0] === "tickClaim") {
      seen.claimReads++;
      if (seen.countsInFlight > 0) seen.claimBeside++;
    }
    if (counts) seen.countsInFlight++;
    try {
      // A read of a far store: long enough for the other to start meanwhile.
      await new Promise((r) => setTimeout(r, 20));
      return await read();
    } finally {
      if (counts) seen.countsInFlight--;
    }
  });
  const clock = new FakeClock();
  const a = await makeApp(CONFIG, { clock, kv });
  await a.engine.setPaused(Q, true);
  for (let i = 0; i < 5; i++) await a.engine.join(Q, null);
  await a.engine.setPaused(Q, false);
  const c = await real.get<Counts>(keys.counts(Q));
  await real.set(keys.counts(Q), { ...c.value!, turnBy: "", turnSince: 0, turnUntil: 0 });
  clock.advance(1500);
  const r = await tick(a.engine.ctx, Q);
  assert(r.ran && r.admitted > 0, `the tick ran: ${JSON.stringify(r)}`);
  assertEquals(seen.claimReads, 1, "the claim read once");
  assertEquals(seen.claimBeside, 1, "while the state was being read");
  await new Promise((r) => setTimeout(r, 100));
  real.close();
});

Deno.test("the claim is per second: the next second the other instance claims and ticks", async () => {
  const t = await pair(10);
  try {
    const before = await countsOf(t.real);
    const [x, y] = await Promise.all([run(t.a, t.ta), run(t.b, t.tb)]);
    const [won, lost] = ranOnce(x, y);
    const loser = lost === x ? { app: t.a, tally: t.ta } : { app: t.b, tally: t.tb };
    t.clock.advance(1000);
    const sec = t.sec();
    // The last second's claim (the other instance's) is still there: it does not hold this one.
    const next = await run(loser.app, loser.tally);
    assert(next.r.ran && next.r.admitted > 0, `the other ticked: ${JSON.stringify(next.r)}`);
    assertEquals(next.claimCommits, 1);
    assertEquals(next.countsCommits, 1);
    assertEquals(await claimOf(t.real), { sec, by: loser.app.engine.ctx.turns.me });
    // And the second after, both at once again: one runs it.
    t.clock.advance(1000);
    const [p, r] = await Promise.all([run(t.a, t.ta), run(t.b, t.tb)]);
    const [third] = ranOnce(p, r);
    assertEquals((await countsOf(t.real)).tickAt, t.sec());
    await assertExact(t.real, before, won.r.admitted + next.r.admitted + third.r.admitted);
  } finally {
    t.real.close();
  }
});

Deno.test("the turn holder ticks without claiming, even when another instance claimed the second", async () => {
  const t = await pair(10);
  try {
    const before = await countsOf(t.real);
    const sec = t.sec();
    const rival = { sec, by: "rSomeone" };
    await t.real.set(keys.tickClaim(Q), { ...rival, at: Date.now() });
    // `a` holds the turn (live) and has seen no other instance: it ticks at once, unclaimed.
    const c = await t.real.get<Counts>(keys.counts(Q));
    await t.real.set(keys.counts(Q), { ...c.value!, ...turnOf(t.a.engine.ctx.turns.me, 1500) });
    assertEquals(t.a.engine.ctx.turns.others(Q), false);
    const held = await run(t.a, t.ta);
    assert(held.r.ran && held.r.admitted > 0, `the holder ticked: ${JSON.stringify(held.r)}`);
    assertEquals(held.claimCommits, 0, "the holder wrote no claim");
    assertEquals(held.countsCommits, 1);
    assertEquals(await claimOf(t.real), rival, "the other instance's claim left as it was");
    assertEquals((await countsOf(t.real)).tickAt, sec);
    // Not the holder: another instance's claim keeps it from ticking (the second has its tick).
    const refused = await run(t.b, t.tb);
    assertEquals(refused.r.ran, false, "a claimer without the claim does not tick");
    assertEquals(refused.countsCommits, 0);
    assertEquals(refused.claimCommits, 0);
    await assertExact(t.real, before, held.r.admitted);
  } finally {
    t.real.close();
  }
});

Deno.test("a claim whose tick has not landed in 600 ms is taken over once", async () => {
  const t = await pair(10);
  try {
    const before = await countsOf(t.real);
    const sec = t.sec();
    // Claimed by an instance that stopped before its tick landed.
    await t.real.set(keys.tickClaim(Q), { sec, by: "rStopped", at: Date.now() });
    const started = Date.now();
    const took = await run(t.b, t.tb);
    assert(took.r.ran && took.r.admitted > 0, `taken over: ${JSON.stringify(took.r)}`);
    assert(Date.now() - started >= 550, "only once the claim's time was up");
    assertEquals(await claimOf(t.real), { sec, by: t.b.engine.ctx.turns.me });
    assertEquals((await countsOf(t.real)).tickAt, sec);
    await assertExact(t.real, before, took.r.admitted);
  } finally {
    t.real.close();
  }
});

Deno.test("deleting a queue removes the claim of its tick", async () => {
  const t = await makeApp({ QUEUES: ["default", "shop"] });
  try {
    t.clock.advance(1500);
    const r = await tick(t.engine.ctx, "shop");
    assert(r.ran, "the tick of shop ran");
    assert(await claimOf(t.kv, "shop"), "its second was claimed");
    await t.engine.deleteQueue("shop", true);
    assertEquals(await claimOf(t.kv, "shop"), null);
    assert(await countsOf(t.kv), "the other queue is left");
  } finally {
    await t.close();
  }
});

/** A real KV seen through delays, with a tally and a read hook that can fail reads. */
async function polled() {
  const real = await Deno.openKv(":memory:");
  const tally = new KvTally();
  const hook: { fail: number } = { fail: 0 };
  const kv = delayedKv(real, {
    readMs: 10,
    commitMs: 5,
    beforeRead: () => {
      if (hook.fail > 0) {
        hook.fail--;
        return Promise.reject(new Error("the store is unreachable"));
      }
      return Promise.resolve();
    },
  }, tally);
  await real.set(keys.counts(Q), { ...EMPTY_COUNTS, waiting: 7, nextSeq: 7 });
  return { real, tally, hook, polls: new ResultPolls<string>(kv) };
}

const rkey = (i: number) => keys.joinResult(Q, "rMe", i);

Deno.test("senders share a look: 25 result keys and the counts in 3 reads, a later call looks again", async () => {
  const t = await polled();
  try {
    for (let i = 0; i < 25; i += 3) await t.real.set(rkey(i), `result ${i}`);
    const reads = t.tally.reads;
    const looks = await Promise.all(
      Array.from({ length: 25 }, (_, i) => t.polls.next(Q, rkey(i), 20)),
    );
    assertEquals(t.tally.reads - reads, Math.ceil(25 / 9), "one read per nine result keys");
    looks.forEach((l, i) => {
      assertEquals(l.result, i % 3 === 0 ? `result ${i}` : null, `result ${i}`);
      assertEquals(l.counts?.waiting, 7, "the counts came with the look");
      assertEquals(l.counts?.admitted, 0, "the counts with their defaults");
    });
    // A later call makes a look of its own, and sees what was written since.
    await t.real.set(rkey(1), "result 1");
    const again = await t.polls.next(Q, rkey(1), 5);
    assertEquals(t.tally.reads - reads, 4);
    assertEquals(again.result, "result 1");
    // No counts record: the look says so.
    await t.real.delete(keys.counts(Q));
    assertEquals((await t.polls.next(Q, rkey(0), 5)).counts, null);
  } finally {
    t.real.close();
  }
});

Deno.test("shared reads: calls within ms share one read, a call after ms reads again", async () => {
  const t = await polled();
  try {
    let reads = 0;
    const read = async () => {
      reads++;
      return (await t.real.get<Counts>(keys.counts(Q))).value?.waiting;
    };
    const first = await Promise.all([1, 2, 3].map(() => t.polls.shared(Q, 80, read)));
    assertEquals(first, [7, 7, 7]);
    assertEquals(await t.polls.shared(Q, 80, read), 7);
    assertEquals(reads, 1, "one read for every call within 80 ms");
    // Another queue's reads are its own.
    await t.polls.shared("other", 80, read);
    assertEquals(reads, 2);
    await new Promise((r) => setTimeout(r, 100));
    await t.real.set(keys.counts(Q), { ...EMPTY_COUNTS, waiting: 8 });
    assertEquals(await t.polls.shared(Q, 80, read), 8, "read again after 80 ms");
    assertEquals(reads, 3);
    // A failed read is not kept: the next call reads again.
    const failing = () => Promise.reject(new Error("down"));
    await new Promise((r) => setTimeout(r, 100));
    const err = await t.polls.shared(Q, 80, failing).catch((e) => e);
    assert(err instanceof Error);
    await new Promise((r) => setTimeout(r, 0));
    assertEquals(await t.polls.shared(Q, 80, read), 8);
    assertEquals(reads, 4);
  } finally {
    t.real.close();
  }
});

Deno.test("a failed look rejects its own waiters only", async () => {
  const t = await polled();
  try {
    await t.real.set(rkey(3), "result 3");
    // One look of 12 waiters is two reads; the first of them fails.
    t.hook.fail = 1;
    const settled = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => t.polls.next(Q, rkey(i), 10)),
    );
    const rejected = settled.flatMap((s, i) => s.status === "rejected" ? [i] : []);
    assertEquals(rejected, [0, 1, 2, 3, 4, 5, 6, 7, 8], "the waiters of the failed read");
    const ok = settled.slice(9).map((s) => s.status === "fulfilled" ? s.value.counts?.waiting : -1);
    assertEquals(ok, [7, 7, 7]);
    // The next look, and another queue's look at the same time, are not touched by it.
    const [mine, theirs] = await Promise.all([
      t.polls.next(Q, rkey(3), 10),
      t.polls.next("other", keys.joinResult("other", "rMe", 0), 10),
    ]);
    assertEquals(mine.result, "result 3");
    assertEquals(theirs, { result: null, counts: null });
    // A closed store rejects the look made after it closed, and nothing else stays pending.
    const late = t.polls.next(Q, rkey(3), 10);
    t.real.close();
    const e = await late.catch((e) => e);
    assert(e instanceof Error, "the look after the store closed is rejected");
  } finally {
    try {
      t.real.close();
    } catch { /* closed already */ }
  }
});
