/**
 * Ticks and join batches under a slow store, over real KV: a second's tick starts beside an
 * earlier second's still running (two at most, never two of one second at once), and the earlier
 * one, when it ends, admits nobody twice; a join batch that last saw another instance's live turn
 * hands its joins over without listing the inbox each time, and lists it once the turn has ended.
 */
import { delayedKv, KvTally } from "../testing/delayed_kv.ts";
import { FakeClock } from "../lib/clock.ts";
import { keys } from "../lib/store/keys.ts";
import { aroundReads } from "../testing/around_reads.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import type { TickResult } from "../lib/queue/admit.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { readTicketUnverified } from "../lib/tokens.ts";
import { wrongPositions } from "../testing/positions.ts";
import { readInbox, readResult, relay } from "../lib/queue/join_relay.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";
import { until } from "../testing/until.ts";
import { heldBy } from "../testing/turns.ts";

const Q = "default";
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads of a wrapped store that wait at a gate while one is shut (each read the gate it met). */
class ReadGate {
  #shut: Promise<void> | null = null;
  /** Reads that met a shut gate. */
  held = 0;
  readonly beforeRead = async () => {
    const g = this.#shut;
    if (!g) return;
    this.held++;
    await g;
  };
  /** Shuts the gate for the reads that come until `leave`; returns what opens it for them. */
  shut(): () => void {
    let open!: () => void;
    this.#shut = new Promise((r) => open = r);
    return open;
  }
  /** Reads from now on pass (those already held wait for their own opener). */
  leave(): void {
    this.#shut = null;
  }
}

/** The admission ticks an engine started, by the second they were started in. */
class TickLog {
  started = new Map<number, number>();
  running = new Map<number, number>();
  /** Most ticks of one second running at once, and most ticks of any seconds at once. */
  maxSameSecond = 0;
  maxAtOnce = 0;
  results = new Map<number, TickResult[]>();
  #atOnce = 0;

  /** Wraps `t.engine.tick` (what `maybeTick` starts) to keep this log. */
  constructor(t: TestApp) {
    const tick = t.engine.tick.bind(t.engine);
    t.engine.tick = async (q: string) => {
      const sec = Math.floor(t.clock.now() / 1000);
      this.started.set(sec, (this.started.get(sec) ?? 0) + 1);
      this.running.set(sec, (this.running.get(sec) ?? 0) + 1);
      this.maxSameSecond = Math.max(this.maxSameSecond, this.running.get(sec)!);
      this.maxAtOnce = Math.max(this.maxAtOnce, ++this.#atOnce);
      try {
        const r = await tick(q);
        this.results.set(sec, [...(this.results.get(sec) ?? []), r]);
        return r;
      } finally {
        this.running.set(sec, this.running.get(sec)! - 1);
        this.#atOnce--;
      }
    };
  }

  /** Admissions of every tick that ended. */
  get admitted(): number {
    return [...this.results.values()].flat().reduce((n, r) => n + r.admitted, 0);
  }
}

const countsOf = async (kv: Deno.Kv) =>
  withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);

/**
 * Six visitors joined by one instance, then another over the same store with the same clock,
 * ticking from requests, its reads passing `gate`.
 */
async function ticking(gate: ReadGate) {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const config = { ADMIT_PER_SECOND: 2, CAPACITY: 100 };
  const joiner = await makeApp(config, { kv: real, clock });
  for (let i = 0; i < 6; i++) await joiner.engine.join(Q, null);
  // Its join turn (if any) lapses before the ticks (a live one would have them wait for it).
  await pause(150);
  const t = await makeApp(config, {
    kv: delayedKv(real, { readMs: 0, commitMs: 0, beforeRead: gate.beforeRead }),
    clock,
    autoTick: true,
  });
  clock.advance(1000);
  // Joins admit at once while the budget allows: the ticks' admissions come on top.
  const before = (await countsOf(real)).admitted;
  const records = await admittedRecords(real);
  return { real, clock, t, log: new TickLog(t), before, records };
}

/** Visitor records admitted, counted in the store. */
async function admittedRecords(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    if (e.value.state === "admitted") n++;
  }
  return n;
}

/** Starts `t`'s tick for the current second with its reads held; returns what lets them go. */
async function startHeld(t: TestApp, gate: ReadGate, log: TickLog): Promise<() => void> {
  const sec = Math.floor(t.clock.now() / 1000);
  const open = gate.shut();
  const held = gate.held;
  t.engine.maybeTick(Q);
  assertEquals(log.started.get(sec), 1, `the tick of second ${sec} started`);
  assert(await until(() => gate.held > held), `the tick of second ${sec} is held at its reads`);
  await pause(10);
  gate.leave();
  return open;
}

Deno.test("a second's tick runs beside an earlier second's held one, which then admits nobody twice", async () => {
  const gate = new ReadGate();
  const { real, clock, t, log, before, records } = await ticking(gate);
  const s = Math.floor(clock.now() / 1000);
  const openFirst = await startHeld(t, gate, log);

  // The next second: its tick starts now and lands while the first is still held.
  clock.advance(1000);
  t.engine.maybeTick(Q);
  // (Well within the held tick's store deadline, after which it would give up.)
  assert(
    await until(() => log.results.has(s + 1), 1000),
    "the next second's tick ended meanwhile",
  );
  assertEquals((await countsOf(real)).tickAt, s + 1, "it landed");
  assertEquals(log.results.get(s), undefined, "the earlier tick is still held");
  const next = log.results.get(s + 1)!;
  assertEquals(next.length, 1);
  assert(next[0].ran && next[0].admitted >= 1, `it admitted: ${JSON.stringify(next[0])}`);

  // Two run at once (one held, one held too): a third second's tick waits until one ends.
  clock.advance(1000);
  const openSecond = await startHeld(t, gate, log);
  clock.advance(1000);
  for (let i = 0; i < 5; i++) t.engine.maybeTick(Q);
  await pause(50);
  assertEquals(log.started.get(s + 3), undefined, "no third tick at once");
  assertEquals(log.maxAtOnce, 2, "two ticks at once");
  openSecond();
  assert(await until(() => log.results.has(s + 3)), "the waiting second's tick ran once one ended");
  assertEquals((await countsOf(real)).tickAt, s + 3, "it landed");
  assertEquals(log.started.get(s + 3), 1, "started once");

  // The first tick goes on now: a later second's tick ran, so it does nothing.
  openFirst();
  assert(await until(() => log.results.has(s)), "the first tick ended");
  const first = log.results.get(s)!;
  assertEquals(first.map((r) => [r.ran, r.admitted]), [[false, 0]], "it admitted nobody");
  await pause(50);
  const c = await countsOf(real);
  assertEquals(c.tickAt, s + 3, "no tick went back to an earlier second");
  assertEquals(c.admitted - before, log.admitted, "the counts hold each tick's admissions once");
  assertEquals(await admittedRecords(real) - records, log.admitted, "as many records admitted");
  assertEquals(c.waiting, 6 - c.admitted);
  assertEquals(log.maxSameSecond, 1, "never two ticks of one second at once");
  assertEquals(log.maxAtOnce, 2, "never more than two at once");
  const d = await diagnose(real, Q);
  assert(d.healthy, `counts equal a recount: ${JSON.stringify(d)}`);
  real.close();
});

Deno.test("requests and a turn's due tick within one second start its tick once at a time", async () => {
  const gate = new ReadGate();
  const { real, clock, t, log, before, records } = await ticking(gate);
  const s = Math.floor(clock.now() / 1000);
  const open = await startHeld(t, gate, log);
  // Every request of the second asks; this instance takes the join turn (its tick is due again).
  for (let i = 0; i < 20; i++) {
    t.engine.maybeTick(Q);
    t.engine.ctx.onTickDue!(Q);
  }
  await pause(50);
  assertEquals(log.started.get(s), 1, "one tick of the second while it runs");
  open();
  // The due tick runs after the held one ended (never beside it), and finds its second done.
  assert(await until(() => (log.results.get(s)?.length ?? 0) === 2), "the due tick ran after");
  assertEquals(log.maxSameSecond, 1, "never two ticks of one second at once");
  assertEquals(log.results.get(s)!.map((r) => r.ran), [true, false], "the second ticked once");
  const c = await countsOf(real);
  assertEquals(c.tickAt, s);
  assertEquals(c.admitted - before, log.admitted, "the counts hold the tick's admissions once");
  assert(log.admitted >= 1, "it admitted");
  assertEquals(await admittedRecords(real) - records, log.admitted, "as many records admitted");
  real.close();
});

/** `kv` with its listings of the join inbox counted, and whether a counts read was in flight. */
function inboxLists(kv: Deno.Kv) {
  const seen = { lists: 0, countsReads: 0, inFlight: 0, listedDuringRead: 0 };
  const reads = aroundReads(kv, async (first, read) => {
    if (first[0] !== keys.counts(Q)[0] || first[1] !== Q) return await read();
    seen.countsReads++;
    seen.inFlight++;
    try {
      return await read();
    } finally {
      seen.inFlight--;
    }
  });
  const wrapped = new Proxy(reads, {
    get(target, prop) {
      if (prop === "list") {
        return (sel: Deno.KvListSelector, o?: Deno.KvListOptions) => {
          if ("prefix" in sel && sel.prefix[0] === "ji") {
            seen.lists++;
            if (seen.inFlight > 0) seen.listedDuringRead++;
          }
          return target.list(sel, o);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { kv: wrapped, seen };
}

/** Commits that write the counts (a join commit or a tick), told apart from the rest. */
const countsKind = (w: Deno.KvKey[]) => w.some((k) => k[0] === keys.counts(Q)[0]) ? "counts" : "x";

Deno.test("joins handed to another instance's live turn: the inbox is not listed for each", async () => {
  const real = await Deno.openKv(":memory:");
  const slow = { readMs: 10, commitMs: 60 };
  const holder = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, {
    seed: 1,
    kv: delayedKv(real, slow),
  });
  const tallyB = new KvTally();
  const b = inboxLists(delayedKv(real, { ...slow, kind: countsKind }, tallyB));
  const hander = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, { seed: 2, kv: b.kv });
  // Commits as slow as a remote store's (joins are handed over only then).
  holder.engine.ctx.turns.commitMs = 60;
  hander.engine.ctx.turns.commitMs = 60;
  const answered = async (t: TestApp) => await t.engine.join(Q, null);
  // Another instance held the turn long ago: the first to commit has seen others at the queue,
  // so it keeps its turn while it has joins (they may hand theirs over).
  const gone = { turnBy: "rgone123", turnSince: 0, turnUntil: Date.now() - 10_000 };
  await real.set(keys.counts(Q), { ...EMPTY_COUNTS, logSince: 1, ...gone });
  // The holder's own stream keeps its turn; the other's joins start once it holds it.
  const A = 240, B = 60;
  const outsA = Array.from({ length: A }, async (_, i) => {
    await pause(i * 5);
    return await answered(holder);
  });
  const outsB = Array.from({ length: B }, async (_, i) => {
    await pause(200 + i * 15);
    return await answered(hander);
  });
  const outs = await Promise.all([...outsA, ...outsB]);
  const handerCommits = tallyB.byKind.get("counts")?.commits ?? 0;
  assertEquals(handerCommits, 0, "every join of the second instance was handed over");
  assert(
    b.seen.lists <= 3,
    `inbox listed ${b.seen.lists} times for ${B} joins (${b.seen.countsReads} counts reads)`,
  );
  const answers = outs.filter((o) => o.view.status === "waiting").map((o) => ({
    seq: readTicketUnverified(o.ticket).seq,
    position: o.view.position!,
  }));
  const c = await countsOf(real);
  assertEquals(c.nextSeq - 1, A + B, "every join placed once");
  assertEquals(wrongPositions(answers, c.admitted), 0, "every answer exact");
  assertEquals((await readInbox(real, Q)).length, 0, "nothing left in the inbox");
  const d = await diagnose(real, Q);
  assert(d.healthy, `counts equal a recount: ${JSON.stringify(d)}`);
  real.close();
});

Deno.test("a join that saw another's live turn lists the inbox once the turn ended, before its commit", async () => {
  const real = await Deno.openKv(":memory:");
  const b = inboxLists(delayedKv(real, { readMs: 20, commitMs: 0 }));
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 }, { kv: b.kv });
  t.engine.ctx.turns.commitMs = 100;
  // Another instance of this release holds the turn, and joins were handed to it.
  const held = heldBy("rholder1", 1500);
  await real.set(keys.counts(Q), held);
  assert(await relay(real, Q, "rsender1", 0, ["handedOver1"], Date.now() + 60_000));
  // A join with its own id (never handed over): it waits for the turn.
  const reads = b.seen.countsReads;
  const out = t.engine.join(Q, null, "ownVisitor1");
  assert(await until(() => b.seen.countsReads >= reads + 4), "it read the turn a few times");
  const listsWhileHeld = b.seen.lists;
  // The holder gives the turn up: the join's next attempt commits.
  await real.set(keys.counts(Q), { ...held, turnBy: "", turnSince: 0, turnUntil: 0 });
  const o = await out;
  assertEquals(listsWhileHeld, 1, "listed by its first attempt only, while the turn was held");
  assert(b.seen.lists >= 2, "listed again once the turn ended");
  assertEquals(b.seen.listedDuringRead, 1, "that time after its counts read, not beside it");
  assert(await readResult(real, Q, "rsender1", 0), "the handed-over join was placed");
  assertEquals(o.view.position, 2, "behind the handed-over join, which came first");
  const c = await countsOf(real);
  assertEquals(c.nextSeq - 1, 2, "each placed once");
  assertEquals((await readInbox(real, Q)).length, 0, "nothing left in the inbox");
  real.close();
});
