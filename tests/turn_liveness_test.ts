/**
 * The join turn stays live where it must, over real KV: a crowd's first commit over a slow store
 * keeps the turn though its instance has seen no other; a turn lasts as long as two of its
 * holder's commit cycles where that is longer than three commits (per queue); and a sender whose
 * joins were handed over sees a turn nobody holds any more within a poll, kicking its own commit
 * only when its record is the oldest live one.
 */
import { delayedKv } from "../testing/delayed_kv.ts";
import { keys } from "../lib/store/keys.ts";
import { aroundReads } from "../testing/around_reads.ts";
import { type Counts, EMPTY_COUNTS } from "../lib/queue/types.ts";
import { JoinTurns } from "../lib/queue/join_turn.ts";
import { readInbox, readResult, relay } from "../lib/queue/join_relay.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";
import { heldBy } from "../testing/turns.ts";

const Q = "default";

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

/** Counts as they are now in the store. */
async function countsOf(kv: Deno.Kv): Promise<Counts> {
  return (await kv.get<Counts>(keys.counts(Q))).value!;
}

/** `n` plain joins at once to a fresh engine over a store whose commits take 50 ms. */
async function burst(n: number) {
  const real = await Deno.openKv(":memory:");
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 }, {
    kv: delayedKv(real, { readMs: 5, commitMs: 50 }),
  });
  // Commits as slow as a remote store's, as this instance measured them.
  t.engine.ctx.turns.commitMs = 60;
  assertEquals(t.engine.ctx.turns.others(Q), false, "no other instance seen");
  const outs = await Promise.all(Array.from({ length: n }, () => t.engine.join(Q, null)));
  const after = Date.now();
  const c = (await real.get<Counts>(keys.counts(Q))).value!;
  return { t, real, outs, c, after };
}

Deno.test("a crowd's first commit over a slow store keeps the turn, though no other instance was seen", async () => {
  const { t, real, outs, c, after } = await burst(20);
  assertEquals(outs.filter((o) => o.view.status === "waiting").length, 20, "all twenty wait");
  assertEquals(c.nextSeq - 1, 20, "each placed once");
  assertEquals(outs.map((o) => o.view.position).sort((x, y) => x! - y!), range(1, 20));
  assertEquals(c.turnBy, t.engine.ctx.turns.me, "held by this instance");
  assert(c.turnUntil > after, `the turn is live after the commit (${c.turnUntil - after} ms)`);
  real.close();
});

Deno.test("a few joins in one commit give the turn up; more than eight keep it", async () => {
  // Eight joins make no crowd, and nothing else is pending: nobody's turn.
  for (const n of [2, 8]) {
    const few = await burst(n);
    assertEquals(few.c.nextSeq - 1, n, `${n} placed`);
    assertEquals(few.c.turnBy, "", `${n} joins: the turn is given up`);
    assertEquals(few.c.turnUntil, 0);
    few.real.close();
  }
  const nine = await burst(9);
  assertEquals(nine.c.nextSeq - 1, 9);
  assertEquals(nine.c.turnBy, nine.t.engine.ctx.turns.me, "nine joins keep it");
  nine.real.close();
});

/** Settles queue `q`'s turn at `now` as this instance's commit would; returns how long it lasts. */
async function settleAt(turns: JoinTurns, kv: Deno.Kv, q: string, c: Counts, now: number) {
  await turns.settle(q, kv.atomic(), c, now, true, 100);
  assertEquals(c.turnBy, turns.me, "kept");
  return c.turnUntil - now;
}

Deno.test("a turn lasts two of its holder's commit cycles where longer, per queue", async () => {
  const kv = await Deno.openKv(":memory:");
  const turns = new JoinTurns(kv);
  const c: Counts = { ...EMPTY_COUNTS };
  const d: Counts = { ...EMPTY_COUNTS };
  // A commit of this instance came back (before one did, its turn is set as for a far store).
  turns.noteCommit(100);
  const t0 = Date.now();
  // The first settle knows no cycle: three commits and 50 ms.
  assertEquals(await settleAt(turns, kv, Q, c, t0), 3 * 100 + 50);
  // Each next settle 400 ms on: the cycle averages (0+400)/2, (200+400)/2, (300+400)/2.
  assertEquals(await settleAt(turns, kv, Q, c, t0 + 400), 100 + 2 * 200 + 50);
  // Another queue's first settle in between: its own cycle, none yet.
  assertEquals(await settleAt(turns, kv, "other", d, t0 + 500), 3 * 100 + 50);
  assertEquals(await settleAt(turns, kv, Q, c, t0 + 800), 100 + 2 * 300 + 50);
  assertEquals(await settleAt(turns, kv, Q, c, t0 + 1200), 100 + 2 * 350 + 50);
  // The other queue's next settle, 900 ms after its first: its cycle is (0+900)/2, not Q's.
  assertEquals(await settleAt(turns, kv, "other", d, t0 + 1400), 100 + 2 * 450 + 50);
  // Q's settles close together bring the cycle down again (never under three commits).
  // (350+100)/2, then (225+10)/2, then (117.5+10)/2: 1.5 cycles under three commits.
  assertEquals(await settleAt(turns, kv, Q, c, t0 + 1300), 100 + 2 * 225 + 50);
  assertEquals(await settleAt(turns, kv, Q, c, t0 + 1310), 100 + 2 * 117.5 + 50);
  assertEquals(await settleAt(turns, kv, Q, c, t0 + 1320), 3 * 100 + 50);
  // A settle while another instance held the turn (handed back) adds no cycle of this one's.
  const e: Counts = { ...EMPTY_COUNTS, turnBy: "rsomeone", turnUntil: t0 };
  assertEquals(await settleAt(turns, kv, "third", e, t0), 350);
  e.turnBy = "rsomeone";
  assertEquals(await settleAt(turns, kv, "third", e, t0 + 900), 350, "no cycle counted");
  kv.close();
});

/**
 * A join through `t` that 600 ms on has neither been answered nor committed anything (older live
 * records wait ahead of its own); `answered` resolves with the join and when it was answered.
 */
async function joinWaitsBehindOlder(t: TestApp, why: string) {
  const before = await countsOf(t.kv);
  const answered = t.engine.join(Q, null).then((out) => ({ out, at: Date.now() }));
  const early = await Promise.race([answered, wait(600).then(() => null)]);
  assertEquals(early, null, `not answered: ${why}`);
  const meanwhile = await countsOf(t.kv);
  assertEquals(meanwhile.nextSeq, before.nextSeq, "no commit: this sender did not kick");
  return { meanwhile, answered };
}

/** An engine whose turn at Q a stopped instance of this release holds for `ms` more. */
async function heldByStopped(ms: number) {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 });
  const held = heldBy("rstopped", ms);
  const until = held.turnUntil;
  await t.kv.set(keys.counts(Q), held);
  // Commits as slow as a remote store's: joins are handed over to a live turn.
  t.engine.ctx.turns.commitMs = 100;
  return { t, until };
}

Deno.test("a sender sees a turn nobody holds any more within a poll, and takes its joins itself", async () => {
  // A sender that read the counts only every 3 commits + 50 ms (350 ms here) would see the turn
  // still live at its first look and the lapse at its second, about 700 ms in: 300 ms after the
  // turn lapsed at 400 ms. Now it sees it within a poll (33 ms) of the lapse.
  const { t, until: lapse } = await heldByStopped(400);
  const out = await t.engine.join(Q, null);
  const answered = Date.now();
  assertEquals(out.view.status, "waiting");
  assertEquals(out.view.position, 1, "placed, first in line");
  const late = answered - lapse;
  assert(answered >= lapse, "not before the turn lapsed");
  // Two commits' time after the lapse (this commit runs over a local store: a few ms).
  assert(late < 200, `answered ${late} ms after the turn lapsed (bound 200 ms; old ~300+)`);
  const me = t.engine.ctx.turns.me;
  assert(await readResult(t.kv, Q, me, 0), "handed over, and answered from its result");
  const c = await countsOf(t.kv);
  assertEquals(c.nextSeq - 1, 1, "placed once");
  assertEquals(c.turnBy, me, "this instance took the turn");
  assertEquals((await readInbox(t.kv, Q)).length, 0, "its record was taken by its own commit");
  t.close();
});

Deno.test("a sender whose record is not the oldest live one does not kick; it does once they go", async () => {
  const { t } = await heldByStopped(50);
  // Fifteen records of other live senders, older than this one's, until 800 ms from now.
  const gone = Date.now() + 800;
  for (let i = 0; i < 15; i++) {
    assert(await relay(t.kv, Q, `rsend${String(i).padStart(3, "0")}`, 0, [`other${i}`], gone));
    await wait(1);
  }
  // The turn lapsed 550 ms ago, but the oldest record's sender takes the inbox, not this one.
  const { meanwhile, answered } = await joinWaitsBehindOlder(t, "older live records wait");
  assertEquals(meanwhile.turnBy, "rstopped", "nobody took the turn");
  const me = t.engine.ctx.turns.me;
  const mine = (await readInbox(t.kv, Q)).filter((e) => e.key[3] === me);
  assertEquals(mine.length, 1, "its record waits in the inbox");
  // The older records' senders stop waiting at `gone`: this one's is the oldest live one now.
  const { out, at: answeredAt } = await answered;
  assertEquals(out.view.position, 1, "placed, first in line (the stale records not placed)");
  assert(answeredAt >= gone, "answered only once the older records went");
  // Looked for every commit (100 ms) and poll: within about 170 ms. (Looking every 350 ms, as
  // before, this comes about 300 ms after they went: the looks fall near 350, 700, 1050 ms.)
  assert(answeredAt - gone < 250, `answered ${answeredAt - gone} ms after they went`);
  const c = await countsOf(t.kv);
  assertEquals(c.nextSeq - 1, 1, "only its own join placed");
  assertEquals(c.turnBy, me, "this instance took the turn");
  t.close();
});

Deno.test("ten records whose senders gave up, in front of a live older one, make nobody kick", async () => {
  const { t } = await heldByStopped(50);
  // Ten stale records first (their senders stopped waiting: bound passed), then a live one older
  // than this sender's: its sender, not this one, takes the inbox.
  for (let i = 0; i < 10; i++) {
    assert(
      await relay(t.kv, Q, `rstale${String(i).padStart(2, "0")}`, 0, [`s${i}`], Date.now() - 1),
    );
    await wait(1);
  }
  const gone = Date.now() + 800;
  assert(await relay(t.kv, Q, "rlive", 0, ["liveOne"], gone));
  await wait(1);
  const { answered } = await joinWaitsBehindOlder(t, "an older live record waits behind the stale");
  const { out, at: answeredAt } = await answered;
  assert(answeredAt >= gone, "answered only once the live record's sender stopped waiting");
  assertEquals(out.view.position, 1, "placed first: no stale or gone record was placed");
  t.close();
});

Deno.test("a sender gathers its joins into records: full ones at once, at most three others out", async () => {
  // A live turn of another instance that takes nothing (it stopped): every join is handed over.
  const { t } = await heldByStopped(1900);
  const me = t.engine.ctx.turns.me;
  const outs: Promise<unknown>[] = [];
  // Ten batches of 30 joins, each an attempt of its own. A record per attempt made 25 instances
  // write four small records each per commit of the holder, which takes at most 95.
  for (let wave = 0; wave < 10; wave++) {
    for (let i = 0; i < 30; i++) outs.push(t.engine.join(Q, null));
    await wait(40);
  }
  await wait(100);
  const mine = (await readInbox(t.kv, Q)).filter((e) => e.key[3] === me);
  const sizes = mine.map((e) => e.value.ids.length).sort((a, b) => a - b);
  assertEquals(sizes.reduce((a, b) => a + b, 0) <= 300, true);
  assert(mine.length <= 4, `${mine.length} records (sizes ${sizes}): three partial, one full`);
  assertEquals(sizes.at(-1), 200, `the joins gathered meanwhile went as one full record: ${sizes}`);
  // The turn lapses meanwhile and this sender commits its records itself: every join is answered
  // (placed, or 503 at its deadline), each placed once, none left in the inbox.
  const settled = await Promise.allSettled(outs);
  const placed = settled.filter((s) => s.status === "fulfilled").length;
  assertEquals((await countsOf(t.kv)).nextSeq - 1, placed, "each placed once");
  assertEquals((await readInbox(t.kv, Q)).filter((e) => e.key[3] === me).length, 0, "none left");
  t.close();
});

Deno.test("a batch cut off by its deadline places nobody from its late attempt", async () => {
  const real = await Deno.openKv(":memory:");
  await real.set(keys.counts(Q), heldBy("rstopped", 1900));
  // The batch's read of the counts takes longer than its bound; when it is back, another
  // instance's turn is live, so the attempt would hand its joins over.
  const slow = { armed: false };
  const kv = aroundReads(real, async (first, read) => {
    if (!slow.armed || first[0] !== "counts") return await read();
    slow.armed = false;
    await wait(3000);
    await real.set(keys.counts(Q), heldBy("rstopped", 1500));
    return await read();
  });
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 }, { kv });
  t.engine.ctx.turns.commitMs = 100;
  await t.engine.ctx.view(Q);
  slow.armed = true;
  const answered = await t.engine.join(Q, null).then(() => "placed", (e) => String(e));
  assert(answered.includes("store_busy") || answered.includes("try again"), answered);
  // The attempt comes back from its read after the visitor heard 503: nothing it hands over (if
  // anything) can be taken, nobody is placed.
  await wait(700);
  assertEquals((await readInbox(real, Q)).length, 0, "no record of the rejected join");
  assertEquals((await countsOf(real)).nextSeq, EMPTY_COUNTS.nextSeq, "nobody placed");
  real.close();
});

Deno.test("a sender whose take-back the store does not answer still answers by its bound", async () => {
  const real = await Deno.openKv(":memory:");
  // Another instance's turn, kept live, that takes nothing: the record waits until its sender's
  // bound, and the sender's take-back (a delete of the record alone) then hangs for 4 s.
  const held = () => real.set(keys.counts(Q), heldBy("rstopped", 1500));
  await held();
  const keep = setInterval(() => held(), 300);
  // A record is written by one commit of its key alone, and taken back by the next.
  const records = new Set<string>();
  const kv = delayedKv(real, {
    readMs: 0,
    commitMs: 0,
    beforeCommit: async (written) => {
      if (written.length !== 1 || written[0][0] !== "ji") return;
      const key = JSON.stringify(written[0]);
      if (records.has(key)) await wait(4000);
      records.add(key);
    },
  });
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 }, { kv });
  t.engine.ctx.turns.commitMs = 100;
  const start = Date.now();
  const answered = await t.engine.join(Q, null).then(() => "placed", (e) => String(e));
  const took = Date.now() - start;
  clearInterval(keep);
  assert(answered.includes("try again"), answered);
  assert(took < 3000, `answered ${took} ms after the join (bound 2.5 s)`);
  await wait(4200);
  real.close();
});
