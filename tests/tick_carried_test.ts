/**
 * The join turn's holder, with other instances about, carries the second's tick in its join
 * commit, over real KV: one round of the tick (exactly the rate budget, the line's head in arrival
 * order) goes into the commit ahead of the joins, the second's later rounds follow it, the
 * holder's own separate tick waits for it and then admits nobody twice; joins of their own id or
 * with records, and a holder that has seen no other instance, leave the tick to a tick.
 */
import { delayedKv } from "../testing/delayed_kv.ts";
import { FakeClock } from "../lib/clock.ts";
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { tick, type TickResult } from "../lib/queue/admit.ts";
import type { JoinOutcome } from "../lib/queue/join.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { readTicketUnverified } from "../lib/tokens.ts";
import { wrongPositions } from "../testing/positions.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";
import { until } from "../testing/until.ts";
import { turnOf } from "../testing/turns.ts";

const Q = "default";
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const countsOf = async (kv: Deno.Kv) =>
  withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);

/** The arrival numbers of the admitted visitor records, in order. */
async function admittedSeqs(kv: Deno.Kv): Promise<number[]> {
  const seqs: number[] = [];
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    if (e.value.state === "admitted") seqs.push(e.value.seq);
  }
  return seqs.sort((a, b) => a - b);
}

/** Waits for a real second to begin (a holder's own tick waits until ~600 ms into one). */
async function secondStart(): Promise<void> {
  while (Date.now() % 1000 > 20) await pause(Math.max(1, 1000 - Date.now() % 1000));
}

/** 1, 2, ..., n. */
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

interface Line {
  real: Deno.Kv;
  clock: FakeClock;
  /** The instance whose join commits carry the tick. */
  a: TestApp;
  /** Another instance over the same store (it queued the waiters). */
  b: TestApp;
  /** The second the waiters joined in (ticked already), and the next one, where the test runs. */
  s0: number;
  s1: number;
  /** The ticks instance A ran, as `engine.onTickRan` saw them. */
  ran: TickResult[];
}

/**
 * `waiting` visitors queued through instance B with the rate budget spent (the second's tick
 * ran), then the clock one second on: a full second's budget is due, and no tick of it has run.
 * Instance A's store can be slowed with `aDelays`.
 */
async function line(
  rate: number,
  waiting: number,
  aDelays?: Parameters<typeof delayedKv>[1],
): Promise<Line> {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const config = { ADMIT_PER_SECOND: rate, CAPACITY: 1000 };
  const b = await makeApp(config, { kv: real, clock, seed: 2 });
  const a = await makeApp(config, {
    kv: aDelays ? delayedKv(real, aDelays) : real,
    clock,
    seed: 1,
  });
  const s0 = Math.floor(clock.now() / 1000);
  await real.set(keys.counts(Q), {
    ...EMPTY_COUNTS,
    logSince: 1,
    tickAt: s0,
    tokens: 0,
    tokensAt: clock.now(),
  });
  for (let i = 0; i < waiting; i++) {
    const o = await b.engine.join(Q, null);
    assertEquals(o.view.status, "waiting");
  }
  const c = await countsOf(real);
  assertEquals([c.waiting, c.admitted, c.nextSeq], [waiting, 0, waiting + 1], "all wait");
  clock.advance(1000);
  const ran: TickResult[] = [];
  a.engine.onTickRan = (q, r) => {
    assertEquals(q, Q);
    ran.push(r);
  };
  return { real, clock, a, b, s0, s1: s0 + 1, ran };
}

/** Instance A holds the join turn (live, real time); with `others`, it saw other instances. */
async function holdTurn(l: Line, others = true): Promise<void> {
  const c = await countsOf(l.real);
  const me = l.a.engine.ctx.turns.me;
  await l.real.set(keys.counts(Q), { ...c, ...turnOf(me, 1500) });
  if (others) l.a.engine.ctx.turns.othersAt.set(Q, Date.now());
}

/** A join's arrival number and position as answered. */
const answer = (o: JoinOutcome) => ({
  seq: readTicketUnverified(o.ticket!).seq,
  position: o.view.position!,
});

/** Lets background work (upkeep after a tick) end, checks the recount, closes the store. */
async function done(l: Line): Promise<void> {
  await pause(100);
  const d = await diagnose(l.real, Q);
  assert(d.healthy, `counts equal a recount: ${JSON.stringify(d)}`);
  l.real.close();
}

Deno.test("the holder's plain join commit carries the second's tick: the budget's first waiters, exactly", async () => {
  const l = await line(5, 12);
  await holdTurn(l);
  const o = await l.a.engine.join(Q, null);

  const c = await countsOf(l.real);
  assertEquals(c.tickAt, l.s1, "the join commit claimed the second's tick");
  assertEquals(await admittedSeqs(l.real), upTo(5), "the line's first five, in arrival order");
  assertEquals(
    [c.admitted, c.holding, c.waiting, c.nextSeq],
    [5, 5, 12 - 5 + 1, 14],
    "five admitted, the join waits",
  );
  assertEquals(c.tokens, 0, "the second's budget spent");
  assertEquals(c.tokensAt, l.clock.now(), "refilled to now");
  assertEquals(o.view.status, "waiting");
  assertEquals(answer(o), { seq: 13, position: 8 }, "placed behind the seven left");
  assertEquals(wrongPositions([answer(o)], c.admitted), 0);
  assert(await until(() => l.ran.length === 1), "onTickRan called");
  await pause(50);
  assertEquals(l.ran.length, 1, "once");
  const r = l.ran[0];
  assertEquals([r.sec, r.ran, r.admitted, r.more], [l.s1, true, 5, undefined]);
  assertEquals(r.waiting, 8);
  // The second is ticked: the holder's own tick finds it so.
  const own = await l.a.engine.tick(Q);
  assertEquals([own.ran, own.admitted], [false, 0], "its own tick does nothing");
  assertEquals((await countsOf(l.real)).admitted, 5);
  await done(l);
});

Deno.test("the holder's own tick beside its carrying join commits admits nobody twice", async () => {
  // Slow commits: the tick and the joins overlap in time.
  const l = await line(5, 12, { readMs: 5, commitMs: 30 });
  await holdTurn(l);
  await secondStart();
  const started = Date.now();
  const ticking = l.a.engine.tick(Q);
  const joins = Promise.all([0, 1, 2].map(() => l.a.engine.join(Q, null)));
  const [own, outs] = await Promise.all([ticking, joins]);
  const tookMs = Date.now() - started;

  const c = await countsOf(l.real);
  assertEquals(c.tickAt, l.s1);
  assertEquals(await admittedSeqs(l.real), upTo(5), "each of the first five admitted once");
  assertEquals([c.admitted, c.holding, c.waiting, c.nextSeq], [5, 5, 10, 16]);
  assertEquals(c.tokens, 0);
  await pause(50);
  assertEquals(l.ran.map((r) => [r.sec, r.admitted, r.more]), [[l.s1, 5, undefined]]);
  const answers = outs.map(answer);
  assertEquals(answers.map((x) => x.seq).sort(), [13, 14, 15]);
  assertEquals(wrongPositions(answers, c.admitted), 0, "every answer exact");
  for (const x of answers) assertEquals(x.position, x.seq - 5, "behind the seven left");
  // The tick was the join commit's: the own tick waited for it, then found the second ticked.
  assertEquals([own.ran, own.admitted], [false, 0], "the own tick found the second ticked");
  assert(tookMs >= 500, `it waited for the carried tick (${tookMs} ms)`);
  await done(l);
});

Deno.test("a carried round takes at most 80: the second's later rounds admit the rest of the budget", async () => {
  const l = await line(120, 150);
  await holdTurn(l);
  const o = await l.a.engine.join(Q, null);
  const first = await countsOf(l.real);
  assertEquals(first.tickAt, l.s1);
  assertEquals(first.admitted, 80, "one round in the join commit");
  assertEquals(answer(o), { seq: 151, position: 71 }, "placed behind the 70 left then");

  assert(await until(() => l.ran.length === 2), `later rounds ran: ${JSON.stringify(l.ran)}`);
  await pause(50);
  assertEquals(
    l.ran.map((r) => [r.sec, r.ran, r.admitted, r.more]),
    [[l.s1, true, 80, undefined], [l.s1, true, 40, true]],
    "the carried round, then the rest of the same second",
  );
  const c = await countsOf(l.real);
  assertEquals(c.tickAt, l.s1, "no later second claimed");
  assertEquals(await admittedSeqs(l.real), upTo(120), "the second's budget, in arrival order");
  assertEquals([c.admitted, c.holding, c.waiting, c.nextSeq], [120, 120, 31, 152]);
  assert(Math.abs(c.tokens) < 1e-9, `budget spent: ${c.tokens}`);
  await done(l);
});

/** `kv` with the rounds of its ticks counted (each round lists the expired slots once). */
function roundsCounted(kv: Deno.Kv) {
  const seen = { rounds: 0 };
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      if (prop === "list") {
        return (sel: Deno.KvListSelector, o?: Deno.KvListOptions) => {
          if ("start" in sel && sel.start[0] === keys.expiryPrefix(Q)[0]) seen.rounds++;
          return target.list(sel, o);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { kv: wrapped, seen };
}

Deno.test("a tick's rounds stop where the budget is spent, and go on past a round's 80", async () => {
  // At 50 a second a round after each tick held the turn holder's joins up by a commit.
  for (const [rate, rounds] of [[50, 1], [200, 3]]) {
    const real = await Deno.openKv(":memory:");
    const counted = roundsCounted(real);
    const t = await makeApp({ ADMIT_PER_SECOND: rate, CAPACITY: 1000 }, { kv: counted.kv });
    await t.engine.setPaused(Q, true);
    for (let i = 0; i < 300; i++) await t.engine.join(Q, null);
    await t.engine.setPaused(Q, false);
    t.clock.advance(1000);
    const before = counted.seen.rounds;
    const r = await t.engine.tick(Q);
    assertEquals(r.admitted, rate, `the second's budget at ${rate}/s`);
    assertEquals(counted.seen.rounds - before, rounds, `rounds of one tick at ${rate}/s`);
    await pause(100);
    real.close();
  }
});

Deno.test("a commit built in a new second carries that second's tick, though its reads began in the last", async () => {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  // Instance A's first counts read after arming moves the clock into the next second.
  const armed = { on: false };
  const kv = new Proxy(real, {
    get(target, prop) {
      if (prop === "getMany") {
        return async (ks: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) => {
          const out = await target.getMany(ks, o);
          if (armed.on && ks[0][0] === "counts") {
            armed.on = false;
            clock.advance(1000 - clock.now() % 1000 + 10);
          }
          return out;
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const config = { ADMIT_PER_SECOND: 5, CAPACITY: 1000 };
  const b = await makeApp(config, { kv: real, clock, seed: 2 });
  const a = await makeApp(config, { kv, clock, seed: 1 });
  for (let i = 0; i < 20; i++) await b.engine.join(Q, null);
  const s1 = Math.floor(clock.now() / 1000);
  // This second's tick has run (the budget spent), and A holds the turn with others about.
  const c = await countsOf(real);
  await real.set(keys.counts(Q), {
    ...c,
    tickAt: s1,
    tokens: 0,
    tokensAt: clock.now(),
    ...turnOf(a.engine.ctx.turns.me, 1500),
  });
  a.engine.ctx.turns.othersAt.set(Q, Date.now());
  const before = await countsOf(real);
  // A's view is fresh, so the join's first counts read is its commit attempt's.
  await a.engine.ctx.view(Q);
  armed.on = true;
  await a.engine.join(Q, null);
  const after = await countsOf(real);
  assertEquals(after.tickAt, s1 + 1, "the commit carried the tick of the second it was built in");
  assert(after.admitted > before.admitted, "and admitted by it");
  await pause(100);
  const d = await diagnose(real, Q);
  assert(d.healthy, `counts equal a recount: ${JSON.stringify(d)}`);
  real.close();
});

Deno.test("a holder's own tick waits until ~600 ms into the second for its join commits to carry it", async () => {
  const l = await line(5, 12);
  await holdTurn(l);
  await secondStart();
  const started = Date.now();
  const own = await tick(l.a.engine.ctx, Q);
  const tookMs = Date.now() - started;
  assert(tookMs >= 550, `it waited (${tookMs} ms)`);
  // No join came: it ran the second's tick itself then.
  assertEquals([own.sec, own.ran, own.admitted], [l.s1, true, 5]);
  const c = await countsOf(l.real);
  assertEquals([c.tickAt, c.admitted, c.waiting], [l.s1, 5, 7]);
  assertEquals(await admittedSeqs(l.real), upTo(5));
  await done(l);
});

/** A join through A holding the turn that must leave the tick alone. */
async function notCarried(
  others: boolean,
  joining: (t: TestApp) => Promise<JoinOutcome>,
): Promise<void> {
  const l = await line(5, 12);
  await holdTurn(l, others);
  // Ticks carried before the join was answered: by its commit. (A holds the turn with others
  // about, so a commit of its own for the inbox may carry the second's tick after it.)
  const carried: number[] = [];
  let answered = false;
  const onCarried = l.a.engine.ctx.onTickCarried;
  l.a.engine.ctx.onTickCarried = (q, r, more) => {
    if (!answered) carried.push(r.sec);
    onCarried?.(q, r, more);
  };
  const o = await joining(l.a);
  answered = true;
  const c = await countsOf(l.real);
  assertEquals(c.tickAt, l.s0, "the join commit did not tick");
  assertEquals([c.admitted, c.holding, c.waiting, c.nextSeq], [0, 0, 13, 14]);
  assertEquals(await admittedSeqs(l.real), []);
  assertEquals(answer(o), { seq: 13, position: 13 });
  assertEquals(carried, [], "the join's commit carried no tick");
  await pause(50);
  await done(l);
}

Deno.test("a join with its own visitor id is not carrying the tick", async () => {
  await notCarried(true, (t) => t.engine.join(Q, null, "ownVisitor1"));
});

Deno.test("a join with records is not carrying the tick", async () => {
  const record = {
    key: ["tickCarriedTest", "spent1"],
    value: 1,
    conflict: () => new Error("spent already"),
  };
  await notCarried(true, (t) => t.engine.join(Q, null, undefined, { records: [record] }));
});

Deno.test("a holder that saw no other instance does not carry the tick", async () => {
  await notCarried(false, (t) => t.engine.join(Q, null));
});

Deno.test("a holder's attempt with no joins at all commits the next second's tick alone", async () => {
  // Commits as slow as a remote store's: the holder looks for handed-over joins again meanwhile.
  const l = await line(5, 12, { readMs: 0, commitMs: 100 });
  l.a.engine.ctx.turns.commitMs = 100;
  await holdTurn(l);
  const o = await l.a.engine.join(Q, null);
  assertEquals(answer(o), { seq: 13, position: 8 });
  assertEquals((await countsOf(l.real)).tickAt, l.s1, "its join commit carried the tick");
  // The next second, while its turn lasts: no join comes, its next look carries the tick alone.
  l.clock.advance(1000);
  const s2 = l.s1 + 1;
  assert(await until(async () => (await countsOf(l.real)).tickAt === s2, 1000), "ticked alone");
  const c = await countsOf(l.real);
  assertEquals(await admittedSeqs(l.real), upTo(10), "five more, in arrival order");
  assertEquals([c.admitted, c.holding, c.waiting, c.nextSeq], [10, 10, 3, 14], "no join");
  assert(await until(() => l.ran.length === 2), "onTickRan called for each second");
  assertEquals(l.ran.map((r) => [r.sec, r.admitted]), [[l.s1, 5], [s2, 5]]);
  // Its turn lapses with nothing to do (no more looks), before the store closes.
  await pause(400);
  await done(l);
});

Deno.test("a carrying commit that lost goes again without the tick, which then runs on its own", async () => {
  let lost = 0, carrying = 0;
  // Holds the store for the hook (set once the line is built).
  const store: { kv?: Deno.Kv } = {};
  const delays = {
    readMs: 0,
    commitMs: 0,
    beforeCommit: async (written: Deno.KvKey[]) => {
      // A join commit carrying the tick writes the counts and an admission's expiry entry.
      const carries = written.some((k) => k[0] === "counts") && written.some((k) => k[0] === "x");
      if (!carries || !store.kv) return;
      carrying++;
      if (lost > 0) return;
      lost++;
      // Meanwhile the head of the line checks in: its record is rewritten, the commit loses.
      for await (const e of store.kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
        if (e.value.seq === 1) await store.kv.set(e.key, { ...e.value });
      }
    },
  };
  const l = await line(5, 12, delays);
  store.kv = l.real;
  await holdTurn(l);
  const o = await l.a.engine.join(Q, null);
  assertEquals(o.view.status, "waiting");
  assertEquals(lost, 1, "the carrying commit lost once");
  assertEquals(carrying, 1, "and the join went again without the tick");
  const after = await countsOf(l.real);
  assertEquals(after.tickAt, l.s0, "the join's commit did not tick");
  assertEquals(after.admitted, 0);
  assertEquals(answer(o), { seq: 13, position: 13 }, "placed behind the twelve, none admitted yet");
  // The second's own tick (it waits until 600 ms into the second for a carrying commit).
  const r = await tick(l.a.engine.ctx, Q);
  assert(r.ran && r.admitted === 5, `the tick ran on its own: ${JSON.stringify(r)}`);
  assertEquals(await admittedSeqs(l.real), [1, 2, 3, 4, 5]);
  assertEquals((await countsOf(l.real)).tickAt, l.s1);
  await done(l);
});
