/**
 * Enters kept out of the counts record, over real KV: each enter adds to a conflict-free sum
 * (`keys.entersPending`) that the next writer of the counts takes in (the tick, a join commit
 * carrying the tick, a leave, the doctor's repair). Checked here: no enter is lost or taken in
 * twice (the stored counts plus the sum always equal a recount of the visitor records), enters
 * landing between a take-in's read and its commit stay pending, an enter written the way release
 * 0.7.1 wrote it (into the counts record) counts beside them, and deleting a queue removes the sum.
 */
import { delayedKv } from "../testing/delayed_kv.ts";
import { FakeClock } from "../lib/clock.ts";
import { diagnose, repairCounters } from "../lib/queue/doctor.ts";
import { enterAdmitted, releaseSlot } from "../lib/queue/records.ts";
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import type { JoinOutcome } from "../lib/queue/join.ts";
import { readTicketUnverified } from "../lib/tokens.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";
import { until } from "../testing/until.ts";

const Q = "default";
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The counts record as stored (not taken in), and the raw sum of pending enters. */
async function stored(kv: Deno.Kv, q = Q): Promise<{ c: Counts; sum: bigint }> {
  const [c, s] = await kv.getMany<[Counts, Deno.KvU64]>([keys.counts(q), keys.entersPending(q)]);
  return { c: withDefaults(EMPTY_COUNTS, c.value), sum: s.value?.value ?? 0n };
}

/** Holding and entered, recounted from the visitor records. */
async function recount(kv: Deno.Kv): Promise<{ holding: number; entered: number }> {
  const out = { holding: 0, entered: 0 };
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    if (e.value.state === "admitted") out.holding++;
    if (e.value.state === "entered") out.entered++;
  }
  return out;
}

/**
 * With nothing in flight: the record plus the sum equal a recount (no enter lost or taken in
 * twice), the sum never wrapped below zero, and the doctor agrees.
 */
async function settled(kv: Deno.Kv, label: string): Promise<void> {
  const [{ c, sum }, r] = await Promise.all([stored(kv), recount(kv)]);
  const at = `${label}: record ${JSON.stringify([c.holding, c.entered])}, sum ${sum}`;
  assert(sum < 1n << 63n, `${at}: the sum went below zero (taken in twice)`);
  assertEquals(c.holding + c.entered, r.holding + r.entered, `${at}: slots in use`);
  assertEquals(c.entered + Number(sum), r.entered, `${at}: entered with the pending ones`);
  assertEquals(c.holding - Number(sum), r.holding, `${at}: holding less the pending ones`);
  const d = await diagnose(kv, Q, { pauseMs: 10 });
  assert(d.healthy, `${at}: the doctor finds ${JSON.stringify(d)}`);
}

/** `n` visitors admitted in one tick (joined while paused, so none is admitted at its join). */
async function admitted(t: TestApp, n: number, q = Q): Promise<JoinOutcome[]> {
  await t.engine.setPaused(q, true);
  const joined = await Promise.all(Array.from({ length: n }, () => t.engine.join(q, null)));
  await t.engine.setPaused(q, false);
  t.clock.advance(1000);
  assertEquals((await t.engine.tick(q)).admitted, n, "all admitted");
  return joined;
}

/** Enters admitted visitors (their status call takes the slot), through instance `t`. */
async function enter(t: TestApp, js: JoinOutcome[], q = Q): Promise<void> {
  const out = await Promise.all(js.map((j) => t.engine.status(q, readTicketUnverified(j.ticket!))));
  assert(out.every((o) => o.view.status === "admitted" && o.view.entered), "entered");
}

/** Leaves through `t`. */
async function leave(t: TestApp, j: JoinOutcome): Promise<void> {
  const claims = readTicketUnverified(j.ticket!);
  await t.engine.leave(Q, claims, claims.sub);
}

Deno.test("a leave takes pending enters in: an entered visitor leaving before the tick", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100 });
  const js = await admitted(t, 4);
  await enter(t, js.slice(0, 3));
  let s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [4, 0, 3n], "three enters pending");
  await leave(t, js[0]);
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [1, 2, 0n], "taken in, then its slot freed");
  await settled(t.kv, "after the entered visitor left");
  // An admitted one (never entered) leaving beside a pending enter.
  await leave(t, js[3]);
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [0, 2, 0n]);
  await settled(t.kv, "after the admitted visitor left");
  t.close();
});

Deno.test("the tick frees an expired entered visitor whose enter is still pending", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100, ACCESS_TOKEN_TTL_SECONDS: 10 });
  const js = await admitted(t, 3);
  await enter(t, js.slice(0, 2));
  assertEquals((await stored(t.kv)).sum, 2n);
  // Their tokens expire before any writer of the counts took their enters in.
  t.clock.advance(11_000);
  const r = await t.engine.tick(Q);
  assert(r.ran && r.expired >= 2, `the tick freed them: ${JSON.stringify(r)}`);
  const s = await stored(t.kv);
  assertEquals([s.c.entered, s.sum], [0, 0n], "taken in and freed in one commit");
  assert(s.c.holding >= 0, `holding ${s.c.holding}`);
  await settled(t.kv, "after the expiry");
  t.close();
});

/**
 * `kv` whose `nth` listing of visitor records (1-based) first runs `hook`: a change that lands
 * while the doctor scans, after it read the counts and before it lists the visitors.
 */
function onVisitorListing(kv: Deno.Kv, nth: number, hook: () => Promise<void>): Deno.Kv {
  let seen = 0;
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "list") {
        return (sel: Deno.KvListSelector, o?: Deno.KvListOptions) => {
          const visitors = "prefix" in sel && sel.prefix[0] === keys.visitorPrefix(Q)[0];
          if (!visitors || ++seen !== nth) return target.list(sel, o);
          return (async function* () {
            await hook();
            yield* target.list(sel, o);
          })();
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

Deno.test("the doctor counts pending enters, and an enter during its scan is no difference", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100 });
  const js = await admitted(t, 8);
  await enter(t, js.slice(0, 5));
  assertEquals((await stored(t.kv)).sum, 5n);
  const d = await diagnose(t.kv, Q, { pauseMs: 10 });
  assert(d.healthy, `healthy with enters pending: ${JSON.stringify(d)}`);
  assertEquals([d.stored.holding, d.stored.entered], [3, 5], "stored as they are, sum taken in");
  // One more enters after the doctor read the counts and the sum, before it lists the visitors.
  const seen = await diagnose(onVisitorListing(t.kv, 1, () => enter(t, [js[5]])), Q, {
    pauseMs: 10,
  });
  assertEquals((await stored(t.kv)).sum, 6n, "it entered during the scan");
  assert(seen.healthy, `an enter during the scan is no difference: ${JSON.stringify(seen)}`);
  assert(seen.live, "the scan saw the store change");
  await settled(t.kv, "after the scans");
  t.close();
});

Deno.test("the doctor's repair writes the recount and takes the pending enters in", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100 });
  const js = await admitted(t, 10);
  await enter(t, js.slice(0, 6));
  // The record's holding is off by three (as a fault would leave it); six enters are pending.
  let s = await stored(t.kv);
  await t.kv.set(keys.counts(Q), { ...s.c, holding: s.c.holding + 3 });
  const d = await diagnose(t.kv, Q, { pauseMs: 10 });
  assertEquals(d.counterDiffs, ["holding"]);
  const r = await repairCounters(t.kv, Q, 20, { pauseMs: 10 });
  assert(r.repaired, `repaired: ${JSON.stringify(r)}`);
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [4, 6, 0n], "the recount, with the sum taken in");
  await settled(t.kv, "after repairing holding");

  // Now entered off, with enters pending again; one more enters during the repair's own scan.
  await enter(t, js.slice(6, 9));
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [4, 6, 3n]);
  await t.kv.set(keys.counts(Q), { ...s.c, entered: s.c.entered + 2 });
  const kv = onVisitorListing(t.kv, 2, () => enter(t, [js[9]]));
  const again = await repairCounters(kv, Q, 20, { pauseMs: 10 });
  assert(again.repaired, `repaired: ${JSON.stringify(again)}`);
  assertEquals(again.counterDiffs, ["entered"]);
  s = await stored(t.kv);
  assertEquals([s.c.holding + s.c.entered, s.c.entered + Number(s.sum)], [10, 10], "all entered");
  await settled(t.kv, "after repairing entered");
  t.close();
});

type Delays = Parameters<typeof delayedKv>[1];

/** Two instances on one store with one clock; their store calls can be delayed and hooked. */
async function pair(config: Record<string, number>, aDelays?: Delays, bDelays?: Delays) {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const over = (d?: Delays) => d ? delayedKv(real, d) : real;
  const a = await makeApp(config, { kv: over(aDelays), clock });
  const b = await makeApp(config, { kv: over(bDelays), clock, seed: 2 });
  return { real, clock, a, b };
}

/** A commit that takes enters in writes the counts and the sum; an enter writes the sum only. */
const takesIn = (w: Deno.KvKey[]) => w.some((k) => k[0] === "counts") && isEnter(w);
const isEnter = (w: Deno.KvKey[]) => w.some((k) => k[0] === keys.entersPending(Q)[0]);

Deno.test("enters landing between a tick's read of the sum and its commit stay pending", async () => {
  let hook: (() => Promise<void>) | null = null;
  const { real, clock, a, b } = await pair({ ADMIT_PER_SECOND: 10, CAPACITY: 100 }, {
    readMs: 0,
    commitMs: 0,
    beforeCommit: async (written) => {
      if (!hook || !takesIn(written)) return;
      const h = hook;
      hook = null;
      await h();
    },
  });
  const js = await admitted(a, 10);
  await enter(b, js.slice(0, 4));
  // The tick read four pending; three more enter (on another instance) before its commit lands.
  let landed = false;
  hook = async () => {
    await enter(b, js.slice(4, 7));
    landed = true;
  };
  clock.advance(1000);
  assert((await a.engine.tick(Q)).ran, "the tick ran");
  assert(landed, "the enters landed during the tick's commit");
  let s = await stored(real);
  assertEquals([s.c.holding, s.c.entered, s.sum], [6, 4, 3n], "the four taken in, three pending");
  await settled(real, "after the tick");
  clock.advance(1000);
  assert((await a.engine.tick(Q)).ran, "the next tick ran");
  s = await stored(real);
  assertEquals([s.c.holding, s.c.entered, s.sum], [3, 7, 0n], "the three taken in");
  await settled(real, "after the next tick");
  real.close();
});

Deno.test("ticks beside enters, leaves and expiries on two slow instances: none taken in twice", async () => {
  const seen = { ticking: false, entersDuringTick: 0, takeIns: 0, left: 0 };
  const config = { ADMIT_PER_SECOND: 15, CAPACITY: 1000, ACCESS_TOKEN_TTL_SECONDS: 10 };
  // A ticks; both enter; B's enters that land while a tick runs are noted.
  const { real, clock, a, b } = await pair(config, {
    readMs: 2,
    commitMs: 8,
    beforeCommit: (w) => {
      if (takesIn(w)) seen.takeIns++;
      return Promise.resolve();
    },
  }, {
    readMs: 3,
    commitMs: 5,
    beforeCommit: (w) => {
      if (seen.ticking && isEnter(w) && !takesIn(w)) seen.entersDuringTick++;
      return Promise.resolve();
    },
  });
  await a.engine.setPaused(Q, true);
  const js = await Promise.all(
    Array.from({ length: 150 }, (_, i) => (i % 2 ? a : b).engine.join(Q, null)),
  );
  const bySub = new Map(js.map((j) => [readTicketUnverified(j.ticket!).sub, j]));
  await a.engine.setPaused(Q, false);
  const inState = async (state: Visitor["state"]) => {
    const out: JoinOutcome[] = [];
    for await (const e of real.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
      if (e.value.state === state) out.push(bySub.get(e.value.id)!);
    }
    return out;
  };
  for (let round = 0; round < 14; round++) {
    clock.advance(1000);
    // Those admitted so far enter (through either instance) while the tick runs; two of those
    // entered leave meanwhile. From round 11 on, the first tokens have expired: the tick frees them.
    const [toEnter, toLeave] = await Promise.all([inState("admitted"), inState("entered")]);
    seen.ticking = true;
    const ticking = a.engine.tick(Q).finally(() => seen.ticking = false);
    await Promise.all([
      ticking,
      ...toEnter.map((j, i) => enter(i % 2 ? a : b, [j])),
      ...toLeave.slice(0, 2).map((j) => leave(b, j).then(() => seen.left++)),
    ]);
    const { c } = await stored(real);
    assert(c.holding >= 0 && c.entered >= 0, `round ${round}: ${JSON.stringify(c)}`);
    await settled(real, `round ${round}`);
  }
  assert(seen.takeIns >= 5, `ticks took enters in: ${seen.takeIns}`);
  assert(seen.entersDuringTick > 0, "some enters landed while a tick ran");
  const { c } = await stored(real);
  const r = await recount(real);
  assertEquals(c.waiting + c.admitted, 150, "every visitor waiting or admitted once");
  assert(c.admitted - seen.left - r.holding - r.entered > 0, "the tick freed expired slots");
  // Background work after the last calls (a draw check, a depth check) ends before the store closes.
  await pause(100);
  real.close();
});

Deno.test("a join commit that carries the second's tick takes the pending enters in", async () => {
  const { real, clock, a, b } = await pair({ ADMIT_PER_SECOND: 5, CAPACITY: 1000 });
  const js = await admitted(b, 5);
  await enter(b, js);
  for (let i = 0; i < 7; i++) await b.engine.join(Q, null);
  let s = await stored(real);
  assertEquals([s.c.holding, s.c.entered, s.c.waiting, s.sum], [5, 0, 7, 5n], "five pending");
  clock.advance(1000);
  const sec = Math.floor(clock.now() / 1000);
  // Instance A holds the join turn and has seen another instance: its join commits carry ticks.
  await real.set(keys.counts(Q), {
    ...s.c,
    turnBy: a.engine.ctx.turns.me,
    turnSince: Date.now(),
    turnUntil: Date.now() + 1500,
  });
  a.engine.ctx.turns.othersAt.set(Q, Date.now());
  const ran: number[] = [];
  a.engine.onTickRan = (_q, r) => void ran.push(r.admitted);
  const o = await a.engine.join(Q, null);
  assertEquals(o.view.status, "waiting");
  s = await stored(real);
  assertEquals(s.c.tickAt, sec, "the join commit ran the second's tick");
  assertEquals(
    [s.c.admitted, s.c.holding, s.c.entered, s.c.waiting, s.sum],
    [10, 5, 5, 3, 0n],
    "the five it admitted hold; the five pending taken in",
  );
  assert(await until(() => ran.length === 1), "onTickRan called");
  assertEquals(ran, [5], "the second's budget admitted by it");
  await pause(100);
  await settled(real, "after the carried tick");
  real.close();
});

/**
 * An enter as release 0.7.1 commits it: checked against the counts record, which it writes
 * (holding - 1, entered + 1) in the same commit as the visitor's record.
 */
async function enterAsBefore(t: TestApp, j: JoinOutcome): Promise<void> {
  const sub = readTicketUnverified(j.ticket!).sub;
  const [ve, ce] = await t.kv.getMany<[Visitor, Counts]>([keys.visitor(Q, sub), keys.counts(Q)]);
  assertEquals(ve.value?.state, "admitted");
  const counts = withDefaults(EMPTY_COUNTS, ce.value);
  const op = t.kv.atomic().check(ve, ce);
  enterAdmitted(op, Q, ve.value!, counts, t.clock.now(), t.config.ACCESS_TOKEN_TTL_SECONDS);
  assert((await op.set(keys.counts(Q), counts).commit()).ok, "entered the old way");
}

/** A leave as release 0.7.1 commits it: the slot freed in the counts, no enters taken in. */
async function leaveAsBefore(t: TestApp, j: JoinOutcome): Promise<void> {
  const sub = readTicketUnverified(j.ticket!).sub;
  const [ve, ce] = await t.kv.getMany<[Visitor, Counts]>([keys.visitor(Q, sub), keys.counts(Q)]);
  const counts = withDefaults(EMPTY_COUNTS, ce.value);
  const op = t.kv.atomic().check(ve, ce);
  releaseSlot(op, Q, ve.value!, counts);
  assert((await op.set(keys.counts(Q), counts).commit()).ok, "left the old way");
}

Deno.test("enters and leaves written by release 0.7.1 beside pending enters: totals stay right", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100 });
  const js = await admitted(t, 7);
  await enter(t, js.slice(0, 3));
  await enterAsBefore(t, js[3]);
  let s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [6, 1, 3n], "one in the record, three pending");
  await settled(t.kv, "an old enter beside new ones");
  // Old-release leaves of visitors whose enters are pending: the record's entered goes below
  // zero for a while (that release knows no sum), the totals stay right.
  await leaveAsBefore(t, js[0]);
  await leaveAsBefore(t, js[1]);
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [6, -1, 3n]);
  await settled(t.kv, "old leaves beside pending enters");
  const m = await t.engine.metrics(Q);
  assertEquals([m.holding, m.entered, m.openSlots], [3, 2, 95], "metrics count the pending ones");
  // The next tick (this release) takes the three in: the record is right again.
  await enter(t, [js[4]]);
  t.clock.advance(1000);
  assert((await t.engine.tick(Q)).ran, "a tick ran");
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [2, 3, 0n]);
  await settled(t.kv, "after the tick");
  t.close();
});

Deno.test("deleting a queue deletes its pending enters' sum", async () => {
  const t = await makeApp({ QUEUES: ["default", "shop"], ADMIT_PER_SECOND: 10, CAPACITY: 100 });
  await enter(t, await admitted(t, 3, "shop"), "shop");
  await enter(t, await admitted(t, 2), Q);
  assertEquals((await stored(t.kv, "shop")).sum, 3n);
  await t.engine.deleteQueue("shop", true);
  assertEquals((await t.kv.get(keys.entersPending("shop"))).versionstamp, null, "the sum is gone");
  assertEquals((await t.kv.get(keys.counts("shop"))).versionstamp, null, "with the counts");
  assertEquals((await stored(t.kv)).sum, 2n, "another queue's sum is left alone");
  await settled(t.kv, "the other queue");
  t.close();
});
