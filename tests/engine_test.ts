import type { TicketClaims } from "../lib/tokens.ts";
import {
  bulkLimit,
  checkWindow,
  effectiveRate,
  estimateWaitSeconds,
  FRONT_PERIOD_SECONDS,
  frontCheckSec,
  livenessDeadline,
  periodSeconds,
  STATUS_BUDGET_PER_SECOND,
} from "../lib/queue/timeslot.ts";
import { CheckinLedger, planCheckIn } from "../lib/queue/checkins.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

type App = Awaited<ReturnType<typeof makeApp>>;
const Q = "default";

interface Member {
  id: string;
  ticket: TicketClaims;
  nextCheckAt: number;
  status: "waiting" | "admitted";
}

const vid = (prefix: string, i: number) => `${prefix}-${String(i).padStart(5, "0")}`;

/** Joins `n` visitors at once (in this order); returns their ids and ticket claims. */
async function joinMany(t: App, n: number, prefix = "visitor", q = Q): Promise<Member[]> {
  const outs = await Promise.all(
    Array.from({ length: n }, (_, i) => t.engine.join(q, null, vid(prefix, i))),
  );
  return await Promise.all(outs.map(async (o) => {
    const ticket = await t.services.signer.verifyTicket(o.ticket);
    assert(ticket, "join returned an invalid ticket");
    return {
      id: o.view.visitorId,
      ticket,
      nextCheckAt: o.view.nextCheckAt ?? 0,
      status: o.view.status,
    };
  }));
}

/** A line of `n` waiters: joined while paused (so nobody is admitted at once), then resumed. */
async function line(t: App, n: number, prefix = "visitor", q = Q): Promise<Member[]> {
  await t.engine.setPaused(q, true);
  const m = await joinMany(t, n, prefix, q);
  for (const x of m) assertEquals(x.status, "waiting", `${x.id} should wait`);
  // The tick numbers the joins into the line (positions are exact from then on).
  await t.engine.tick(q);
  await t.engine.setPaused(q, false);
  return m;
}

/** Moves the fake clock and runs the admission tick. */
async function step(t: App, ms = 1000, q = Q) {
  t.clock.advance(ms);
  return await t.engine.tick(q);
}

async function stateOf(t: App, id: string, q = Q): Promise<string | null> {
  return (await t.engine.visitor(q, id))?.state ?? null;
}

async function admittedIds(t: App, ids: string[], q = Q): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) {
    const s = await stateOf(t, id, q);
    if (s === "admitted" || s === "entered") out.push(id);
  }
  return out;
}

// ---------------------------------------------------------------- admission tick and rate

Deno.test("the admission tick is claimed once per second", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 2, CAPACITY: 1000 });
  await line(t, 20);
  const first = await step(t, 1000);
  assertEquals([first.ran, first.admitted], [true, 2]);
  t.clock.advance(400);
  const again = await t.engine.tick(Q);
  assertEquals([again.ran, again.admitted], [false, 0], "second tick in the same second");
  const third = await step(t, 600);
  assertEquals([third.ran, third.admitted], [true, 2]);
  assertEquals((await t.engine.metrics(Q)).waiting, 16);
  t.close();
});

Deno.test("ADMIT_PER_SECOND is the budget: each tick admits exactly the rate from a long line", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 3, CAPACITY: 1000 });
  await line(t, 40);
  for (let i = 0; i < 6; i++) {
    const r = await step(t);
    assertEquals(r.admitted, 3, `tick ${i}`);
  }
  const m = await t.engine.metrics(Q);
  assertEquals([m.waiting, m.holding + m.entered, m.admitPerSecond], [22, 18, 3]);
  t.close();
});

Deno.test("a per-queue rate override replaces ADMIT_PER_SECOND for that queue only, and clearing it restores the default", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 3, CAPACITY: 1000, QUEUES: ["default", "shop"] });
  await line(t, 60, "d", "default");
  await line(t, 60, "s", "shop");
  await t.engine.setRate("shop", 7);
  assertEquals((await t.engine.metrics("shop")).admitPerSecond, 7);
  assertEquals((await t.engine.metrics("default")).admitPerSecond, 3);
  for (let i = 0; i < 3; i++) {
    t.clock.advance(1000);
    assertEquals((await t.engine.tick("default")).admitted, 3, "default keeps the env rate");
    assertEquals((await t.engine.tick("shop")).admitted, 7, "shop uses its override");
  }
  await t.engine.setRate("shop", null);
  assertEquals((await t.engine.metrics("shop")).admitPerSecond, 3);
  for (let i = 0; i < 3; i++) {
    assertEquals((await step(t, 1000, "shop")).admitted, 3, "override cleared");
  }
  t.close();
});

Deno.test("a fractional rate of 0.5/s admits one visitor every two seconds", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 0.5, CAPACITY: 1000 });
  await line(t, 20);
  const per: number[] = [];
  for (let i = 0; i < 20; i++) per.push((await step(t)).admitted);
  assertEquals(per.reduce((a, b) => a + b, 0), 10, `per tick: ${per.join(",")}`);
  for (let i = 0; i < per.length; i++) {
    assert(per[i] <= 1, `tick ${i} admitted ${per[i]}`);
    if (i > 0) {
      assert(per[i] + per[i - 1] === 1, `ticks ${i - 1},${i} not alternating: ${per.join(",")}`);
    }
  }
  t.close();
});

Deno.test("the smallest rate, 0.1/s, admits exactly six visitors a minute", async () => {
  const t = await makeApp({
    ADMIT_PER_SECOND: 0.1,
    CAPACITY: 1000,
    WAITING_ROOM_POLL_INTERVAL_MS: 3_600_000,
  });
  await line(t, 20);
  const when: number[] = [];
  for (let i = 1; i <= 60; i++) if ((await step(t)).admitted > 0) when.push(i);
  assertEquals(when.length, 6, `admitted at seconds ${when.join(",")}`);
  for (let i = 1; i < when.length; i++) {
    assertEquals(when[i] - when[i - 1], 10, `gaps: ${when.join(",")}`);
  }
  t.close();
});

for (const mode of ["queue", "lottery"] as const) {
  Deno.test(`${mode} mode: admitted per minute equals rate*60 for a long line with free capacity`, async () => {
    const t = await makeApp({
      ADMIT_PER_SECOND: 10,
      CAPACITY: 100_000,
      ADMISSION_MODE: mode,
      WAITING_ROOM_POLL_INTERVAL_MS: 3_600_000,
    });
    await line(t, 700);
    await step(t); // the first tick after opening
    let total = 0;
    for (let i = 0; i < 60; i++) {
      const r = await step(t);
      assertEquals(r.admitted, 10, `tick ${i}`);
      total += r.admitted;
    }
    assertEquals(total, 600);
    const m = await t.engine.metrics(Q);
    assertEquals(m.waiting, 700 - 610);
    assertEquals(m.holding + m.entered, 610);
    assertEquals(m.admittedTotal, 610);
    t.close();
  });
}

Deno.test("late ticks lose nothing: ticking every 2 s still admits rate*60 a minute", async () => {
  const t = await makeApp({
    ADMIT_PER_SECOND: 10,
    CAPACITY: 100_000,
    WAITING_ROOM_POLL_INTERVAL_MS: 3_600_000,
  });
  await line(t, 700);
  await step(t);
  let total = 0;
  for (let i = 0; i < 30; i++) total += (await step(t, 2000)).admitted;
  assertEquals(total, 600);
  t.close();
});

Deno.test("after a quiet spell the burst is bounded (tokens do not pile up while nobody waits)", async () => {
  const t = await makeApp({
    ADMIT_PER_SECOND: 5,
    CAPACITY: 100_000,
    WAITING_ROOM_POLL_INTERVAL_MS: 3_600_000,
  });
  await t.engine.tick(Q);
  for (let i = 0; i < 120; i++) await step(t); // two idle minutes
  await t.engine.setPaused(Q, true);
  await joinMany(t, 100);
  await t.engine.setPaused(Q, false);
  const r = await step(t);
  assert(
    r.admitted <= 10,
    `burst after idle admitted ${r.admitted} (more than two seconds of budget)`,
  );
  assert(r.admitted >= 5, `burst after idle admitted ${r.admitted}`);
  t.close();
});

// ---------------------------------------------------------------- capacity

Deno.test("capacity: entered + holding never exceeds capacity; slots free when tokens expire, then more are admitted", async () => {
  const t = await makeApp({
    ADMIT_PER_SECOND: 100,
    CAPACITY: 4,
    ACCESS_TOKEN_TTL_SECONDS: 30,
    WAITING_ROOM_POLL_INTERVAL_MS: 3_600_000,
  });
  const m = await line(t, 12);
  const first = await step(t);
  assertEquals(first.admitted, 4, "only capacity is admitted");
  assertEquals(await admittedIds(t, m.map((x) => x.id)), m.slice(0, 4).map((x) => x.id));
  let met = await t.engine.metrics(Q);
  assertEquals([met.holding, met.entered, met.openSlots, met.waiting], [4, 0, 0, 8]);
  // The admitted visitors check in and enter (click-to-enter is off).
  for (const x of m.slice(0, 4)) {
    const s = await t.engine.status(Q, x.ticket);
    assertEquals([s.view.status, s.view.entered], ["admitted", true]);
  }
  met = await t.engine.metrics(Q);
  assertEquals([met.holding, met.entered, met.openSlots], [0, 4, 0]);
  const rec = await t.engine.visitor(Q, m[0].id);
  assert(rec?.until, "entered visitor has a slot expiry");
  const until = rec.until;
  assertEquals(until - rec.enteredAt!, 30_000, "slot held for ACCESS_TOKEN_TTL_SECONDS");
  // Until the tokens expire no slot frees up.
  while (t.clock.now() + 1000 < until) {
    const r = await step(t);
    assertEquals(r.admitted, 0, `at ${t.clock.now()}`);
    met = await t.engine.metrics(Q);
    assert(met.entered + met.holding <= 4, "capacity exceeded");
  }
  t.clock.advance(until - t.clock.now());
  const freed = await t.engine.tick(Q);
  assertEquals([freed.expired, freed.admitted], [4, 4]);
  met = await t.engine.metrics(Q);
  assertEquals([met.entered, met.holding, met.waiting], [0, 4, 4]);
  for (const x of m.slice(0, 4)) assertEquals(await stateOf(t, x.id), null, `${x.id} expired`);
  assertEquals(await admittedIds(t, m.map((x) => x.id)), m.slice(4, 8).map((x) => x.id));
  t.close();
});

Deno.test("capacity: a visitor leaving frees its slot for the next tick", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 100, CAPACITY: 2 });
  const m = await line(t, 5);
  assertEquals((await step(t)).admitted, 2);
  assertEquals((await step(t)).admitted, 0);
  await t.engine.leave(Q, m[0].ticket, m[0].id);
  const met = await t.engine.metrics(Q);
  assertEquals([met.holding + met.entered, met.openSlots], [1, 1]);
  assertEquals((await step(t)).admitted, 1);
  assertEquals(await admittedIds(t, m.map((x) => x.id)), [m[1].id, m[2].id]);
  t.close();
});

Deno.test("capacity lowered below the current load admits nobody until enough slots free up", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 100, CAPACITY: 5 });
  const m = await line(t, 10);
  assertEquals((await step(t)).admitted, 5);
  await t.engine.setCapacity(Q, 2);
  assertEquals((await step(t)).admitted, 0);
  assertEquals((await t.engine.metrics(Q)).openSlots, 0);
  for (const x of m.slice(0, 3)) await t.engine.leave(Q, x.ticket, x.id);
  assertEquals((await step(t)).admitted, 0, "2 still hold slots, capacity 2");
  await t.engine.leave(Q, m[3].ticket, m[3].id);
  assertEquals((await step(t)).admitted, 1);
  t.close();
});

// ---------------------------------------------------------------- opening time, pause

Deno.test("opensAt: nobody is admitted before the opening time, admission starts at it", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 2, CAPACITY: 100 });
  const t0 = t.clock.now();
  await t.engine.setOpensAt(Q, t0 + 10_000);
  const m = await joinMany(t, 5);
  for (const x of m) assertEquals(x.status, "waiting", "no instant admission before opening");
  const early = await t.engine.status(Q, m[0].ticket);
  // Counted from the opening, never to it: the time until opensAt would give the opening away.
  assertEquals(early.view.estimatedWaitSeconds, 1, "position 1 at 2/s, from the opening");
  for (let i = 1; i <= 9; i++) assertEquals((await step(t)).admitted, 0, `second ${i}`);
  assertEquals(await admittedIds(t, m.map((x) => x.id)), []);
  assertEquals((await step(t)).admitted, 2, "at opening time");
  assertEquals((await step(t)).admitted, 2);
  assertEquals((await step(t)).admitted, 1);
  assertEquals(await admittedIds(t, m.map((x) => x.id)), m.map((x) => x.id));
  t.close();
});

Deno.test("pause and health pause stop the tick; resuming admits again", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 2, CAPACITY: 100 });
  await line(t, 10);
  await t.engine.setPaused(Q, true);
  assertEquals((await step(t)).admitted, 0);
  await t.engine.setPaused(Q, false);
  assertEquals((await step(t)).admitted, 2);
  await t.engine.setHealthPaused(Q, true);
  assertEquals((await step(t)).admitted, 0);
  assertEquals((await step(t)).admitted, 0);
  await t.engine.setHealthPaused(Q, false);
  const r = await step(t);
  assertEquals(r.admitted, 2, "no budget saved up while health-paused");
  t.close();
});

// ---------------------------------------------------------------- order

Deno.test("queue mode admits in strict FIFO order, skipping visitors who left", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100 });
  const m = await line(t, 8);
  const ids = m.map((x) => x.id);
  await t.engine.leave(Q, m[3].ticket, m[3].id);
  const order: string[] = [];
  for (let i = 0; i < 7; i++) {
    const before = new Set(await admittedIds(t, ids));
    assertEquals((await step(t)).admitted, 1);
    const now = await admittedIds(t, ids);
    order.push(...now.filter((id) => !before.has(id)));
  }
  assertEquals(order, [ids[0], ids[1], ids[2], ids[4], ids[5], ids[6], ids[7]]);
  t.close();
});

Deno.test("positions are exact and shift when someone ahead leaves or is admitted", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100 });
  const m = await line(t, 6);
  const pos = async (x: Member) => (await t.engine.status(Q, x.ticket)).view.position;
  assertEquals(await pos(m[5]), 6);
  await t.engine.leave(Q, m[2].ticket, m[2].id);
  assertEquals(await pos(m[5]), 5);
  assertEquals(await pos(m[1]), 2, "visitors ahead of the leaver keep their place");
  await step(t);
  assertEquals(await pos(m[5]), 4);
  assertEquals(await pos(m[1]), 1);
  t.close();
});

Deno.test("lottery mode picks uniformly among waiters (force admit, 200 rounds of 5)", async () => {
  const t = await makeApp({ ADMISSION_MODE: "lottery", CAPACITY: 100, ADMIT_PER_SECOND: 100 }, {
    seed: 7,
  });
  const hits = [0, 0, 0, 0, 0];
  for (let round = 0; round < 200; round++) {
    const m = await line(t, 5, `r${round}`);
    assertEquals(await t.engine.admit(Q, 1), 1);
    const got = await admittedIds(t, m.map((x) => x.id));
    assertEquals(got.length, 1);
    hits[m.findIndex((x) => x.id === got[0])]++;
    for (const x of m) await t.engine.leave(Q, x.ticket, x.id);
    t.clock.advance(20_000);
  }
  // Expected 40 each; a uniform draw falls in [15, 70] with overwhelming probability.
  for (const h of hits) assert(h >= 15 && h <= 70, `not uniform: ${hits.join(",")}`);
  assert(hits[0] < 100, `lottery looks like FIFO: ${hits.join(",")}`);
  t.close();
});

// ---------------------------------------------------------------- liveness

Deno.test("a waiter that misses its slot by more than two periods + 30 s, then its grace, is dropped by the tick and counted as abandoned", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100 });
  await t.engine.setPaused(Q, true);
  // The shortest grace (issue 32: a silent waiter keeps its place that long past its deadline).
  await t.engine.updateSettings(Q, (s) => void (s.returnGraceSeconds = 30));
  const [a, b, c] = await joinMany(t, 3);
  const rec = await t.engine.visitor(Q, b.id);
  assert(rec);
  assertEquals(rec.deadline, livenessDeadline(rec.nextCheckAt, 5000));
  assertEquals(rec.deadline - rec.nextCheckAt, 2 * 5000 + 30_000);
  // a and c keep checking in at their slots; b never does.
  const keepAlive = async () => {
    for (const x of [a, c]) {
      if (t.clock.now() >= x.nextCheckAt) {
        const out = await t.engine.status(Q, x.ticket);
        x.nextCheckAt = out.view.nextCheckAt!;
        if (out.ticket) x.ticket = (await t.services.signer.verifyTicket(out.ticket))!;
      }
    }
  };
  while (t.clock.now() + 1000 <= rec.deadline + 30_000) {
    await step(t);
    await keepAlive();
  }
  assertEquals(await stateOf(t, b.id), "waiting", "still there at its deadline and grace");
  await step(t);
  await keepAlive();
  assertEquals(await stateOf(t, b.id), null, "dropped after its grace");
  const m = await t.engine.metrics(Q);
  assertEquals([m.waiting, m.abandoned], [2, 1]);
  assertEquals((await t.engine.status(Q, c.ticket)).view.position, 2, "the one behind moves up");
  assertEquals(await stateOf(t, a.id), "waiting");
  t.close();
});

// ---------------------------------------------------------------- timeslots (unit)

Deno.test("periodSeconds = max(5, ceil(waiting / 750))", () => {
  assertEquals(STATUS_BUDGET_PER_SECOND, 750);
  assertEquals(FRONT_PERIOD_SECONDS, 5);
  const cases: [number, number][] = [
    [0, 5],
    [1, 5],
    [750, 5],
    [3750, 5],
    [3751, 6],
    [7500, 10],
    [7501, 11],
    [1_000_000, 1334],
    [50_000_000, 66_667],
  ];
  for (const [w, p] of cases) assertEquals(periodSeconds(w), p, `waiting ${w}`);
});

Deno.test("checkWindow: newcomers from the next second, renewals one period later", () => {
  const now = Date.UTC(2026, 0, 1, 0, 0, 0) + 250;
  const nowSec = Math.floor(now / 1000);
  const base = { nowMs: now, rate: 10 };
  assertEquals(checkWindow({ ...base, waiting: 10, kind: "join" }), [nowSec + 1, nowSec + 10]);
  assertEquals(checkWindow({ ...base, waiting: 10, kind: "renew" }), [nowSec + 5, nowSec + 10]);
  assertEquals(
    checkWindow({ ...base, waiting: 1_000_000, kind: "renew" }),
    [nowSec + 1334, nowSec + 2668],
  );
});

Deno.test("frontCheckSec: the second after the predicted admission, never sooner than 5 s, none without a prediction", () => {
  const now = Date.UTC(2026, 0, 1, 0, 0, 0) + 700;
  const nowSec = Math.floor(now / 1000);
  const base = { nowMs: now, waiting: 75_000, rate: 10, kind: "renew" as const };
  // Predicted by x+4 (positions 1 to 32 at 10/s from x.7; 33 is x+4.0 in floating point): the
  // 5 s minimum.
  for (let position = 1; position <= 32; position++) {
    assertEquals(frontCheckSec({ ...base, position }), nowSec + FRONT_PERIOD_SECONDS);
  }
  // Predicted in the fifth second (x+4.1 to x+4.7): the second after it.
  for (let position = 34; position <= 40; position++) {
    assertEquals(frontCheckSec({ ...base, position }), nowSec + 6, `position ${position}`);
  }
  // Position 100: predicted at x.7 + 10 s, in second x+11; checks in at x+12.
  assertEquals(frontCheckSec({ ...base, position: 100 }), nowSec + 12);
  assertEquals(frontCheckSec({ ...base, position: 100, rate: 20 }), nowSec + 7, "5.7 s ahead");
  assertEquals(frontCheckSec({ ...base }), null, "lottery: no position, no prediction");
});

Deno.test("bulkLimit: the budget less twice the rate for front check-ins, 20 to 150 of it", () => {
  const cases: [number, number][] = [
    [0.1, 730],
    [1, 730],
    [10, 730],
    [10.5, 729],
    [50, 650],
    [75, 600],
    [500, 600],
  ];
  for (const [rate, limit] of cases) assertEquals(bulkLimit(rate), limit, `rate ${rate}`);
});

Deno.test("the slot ledger fills each second up to the 750 budget, in order", () => {
  const ledger = new CheckinLedger(null as unknown as Deno.Kv);
  const got = new Map<number, number>();
  for (let i = 0; i < 2000; i++) {
    const s = ledger.reserve("q", 101, 200);
    got.set(s, (got.get(s) ?? 0) + 1);
  }
  assertEquals([...got.entries()], [[101, 750], [102, 750], [103, 500]]);
  // A later window is independent of the earlier full seconds.
  assertEquals(ledger.reserve("q", 150, 200), 150);
  // When every second of the window is full the first one is overbooked rather than dropped.
  for (let i = 0; i < 749; i++) ledger.reserve("q", 150, 150);
  assertEquals(ledger.reserve("q", 150, 150), 150);
});

Deno.test("the slot ledger fills bulk placements to their limit, then to the budget before overbooking", () => {
  const ledger = new CheckinLedger(null as unknown as Deno.Kv);
  const got = new Map<number, number>();
  const take = (s: number) => got.set(s, (got.get(s) ?? 0) + 1);
  for (let i = 0; i < 2000; i++) take(ledger.reserve("q", 101, 200, 730));
  assertEquals([...got.entries()], [[101, 730], [102, 730], [103, 540]]);
  // A full window under the limit: the first second seen with room under the whole budget.
  got.clear();
  for (let i = 0; i < 3 * 730; i++) take(ledger.reserve("q", 301, 303, 730));
  assertEquals([...got.entries()], [[301, 730], [302, 730], [303, 730]]);
  got.clear();
  for (let i = 0; i < 61; i++) take(ledger.reserve("q", 301, 303, 730));
  assertEquals([...got.entries()], [[301, 21], [302, 20], [303, 20]], "then overbooks 301");
  // Front check-ins (reserveBefore) may fill a second the bulk left at 730 up to 750.
  for (let i = 0; i < 730; i++) ledger.reserve("q", 401, 401, 730);
  got.clear();
  for (let i = 0; i < 21; i++) take(ledger.reserveBefore("q", 400, 401));
  assertEquals([...got.entries()], [[401, 20], [400, 1]]);
});

Deno.test("planCheckIn: front waiters keep their 5 s check-in, the rest use the ledger", () => {
  const ledger = new CheckinLedger(null as unknown as Deno.Kv);
  const now = Date.UTC(2026, 0, 1, 0, 0, 0);
  const nowSec = now / 1000;
  const base = { nowMs: now, waiting: 75_000, rate: 10, kind: "renew" as const };
  assertEquals(planCheckIn(ledger, "q", { ...base, position: 1 }), nowSec + 5);
  // Predicted admission in 4.5 s: the second after it.
  assertEquals(planCheckIn(ledger, "q", { ...base, position: 45 }), nowSec + 6);
  // A front check-in that meets a full second moves earlier, never later.
  for (let i = 0; i < STATUS_BUDGET_PER_SECOND; i++) ledger.reserve("q", nowSec + 4, nowSec + 4);
  assertEquals(planCheckIn(ledger, "q", { ...base, position: 2 }), nowSec + 5);
  for (let i = 0; i < STATUS_BUDGET_PER_SECOND; i++) ledger.reserve("q", nowSec + 5, nowSec + 5);
  assertEquals(planCheckIn(ledger, "q", { ...base, position: 3 }), nowSec + 3);
  // Position 2000 at 10/s is predicted in 200 s, after its renewal one period (100 s) later.
  assertEquals(planCheckIn(ledger, "q", { ...base, position: 2000 }), nowSec + 100);
  // Position 500 is predicted in 50 s: the ledger search ends in the second after it.
  assertEquals(planCheckIn(ledger, "q", { ...base, position: 500, kind: "join" }), nowSec + 1);
  // Bulk placements fill a second to 730 at 10/s (bulkLimit), then take the next one.
  for (let i = 0; i < 729; i++) planCheckIn(ledger, "q", { ...base, position: 500, kind: "join" });
  assertEquals(planCheckIn(ledger, "q", { ...base, position: 500, kind: "join" }), nowSec + 2);
  // A newcomer predicted in 4.5 s searches up to the second after it: seconds 1 to 6 fill to 730,
  // then to the whole budget (front check-ins would have used that room), then the first is
  // overbooked.
  const b = new CheckinLedger(null as unknown as Deno.Kv);
  const got = new Map<number, number>();
  for (let i = 0; i < 6 * 750 + 1; i++) {
    const s = planCheckIn(b, "q", { ...base, position: 45, kind: "join" }) - nowSec;
    got.set(s, (got.get(s) ?? 0) + 1);
    if (i === 6 * 730 - 1) {
      assertEquals([...got.values()], [730, 730, 730, 730, 730, 730], "first to 730 each");
    }
  }
  assertEquals([...got.entries()], [[1, 751], [2, 750], [3, 750], [4, 750], [5, 750], [6, 750]]);
  // Lottery mode (no prediction) fills the whole budget with bulk placements.
  const lottery = { ...base, position: undefined, kind: "join" as const };
  for (let i = 0; i < 750; i++) planCheckIn(ledger, "l", lottery);
  assertEquals(planCheckIn(ledger, "l", lottery), nowSec + 2);
});

Deno.test("livenessDeadline, effectiveRate and estimateWaitSeconds", () => {
  assertEquals(livenessDeadline(1_000_000, 5000), 1_000_000 + 10_000 + 30_000);
  assertEquals(livenessDeadline(0, 11_000), 52_000);
  assertEquals(effectiveRate(10, 500, 900, 5, 100), 10, "free slots for everyone: the rate");
  assertEquals(effectiveRate(10, 900, 900, 1000, 0), 1, "full: slots free at capacity/ttl");
  assertEquals(effectiveRate(10, 90_000, 900, 1000, 0), 10, "never above the rate");
  assertEquals(effectiveRate(10, 1, 1e9, 1000, 0), 0.001, "floor");
  const now = 1_000_000;
  assertEquals(estimateWaitSeconds(now, now, 50, 10), 5);
  assertEquals(estimateWaitSeconds(now, now + 60_000, 50, 10), 65);
  assertEquals(estimateWaitSeconds(now, now - 60_000, 50, 10), 5, "past opening adds nothing");
  assertEquals(estimateWaitSeconds(now, null, 50, 10), 5);
  assertEquals(estimateWaitSeconds(now, now, 7, 2), 4, "rounded");
  assertEquals(estimateWaitSeconds(now, now, 0, 2), 0);
});

// ---------------------------------------------------------------- timeslots (engine)

Deno.test("joins at one instant fill the coming seconds up to the bulk limit (730 at 10/s), in order", async () => {
  const t = await makeApp();
  await t.engine.setPaused(Q, true);
  const now = t.clock.now();
  const m = await joinMany(t, 2000);
  const perSecond = new Map<number, number>();
  for (const x of m) {
    assertEquals(x.nextCheckAt % 1000, 0);
    assert(x.nextCheckAt > now, "in the future");
    perSecond.set(x.nextCheckAt, (perSecond.get(x.nextCheckAt) ?? 0) + 1);
  }
  assertEquals([...perSecond.entries()], [[now + 1000, 730], [now + 2000, 730], [now + 3000, 540]]);
  t.close();
});

Deno.test("with a long line the front checks in within 5 s (6 s when predicted in the fifth) while the back uses the long period", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100_000 });
  await t.engine.tick(Q);
  const m = await joinMany(t, 7600);
  // Numbered (what the next tick does first), without a tick: the line does not move.
  await t.engine.sequence(Q);
  const waiting = m.filter((x) => x.status === "waiting");
  // 0.8: one join of an instance at a time tries to go in at once (each is a commit on the counts;
  // a crowd all trying it queued a store round trip each); the rest take the line and the next
  // tick admits them.
  assert(waiting.length >= 7599, `${7600 - waiting.length} admitted at once (at most 1)`);
  assertEquals(periodSeconds(waiting.length), 11);
  // Simulate 11 s of check-ins at the assigned slots (no ticks: the line does not move).
  const front = waiting.slice(0, 50);
  const back = waiting.slice(-200);
  const gaps = new Map<string, number[]>();
  for (let s = 1; s <= 11; s++) {
    t.clock.advance(1000);
    const now = t.clock.now();
    for (const x of [...front, ...back]) {
      assert(x.nextCheckAt >= now, `${x.id} missed its slot`);
      if (x.nextCheckAt !== now) continue;
      const out = await t.engine.status(Q, x.ticket);
      assertEquals(out.view.status, "waiting");
      x.nextCheckAt = out.view.nextCheckAt!;
      gaps.set(x.id, [...(gaps.get(x.id) ?? []), x.nextCheckAt - now]);
    }
  }
  // Positions 1 to 40 are predicted within 4 s and check in every 5 s (or sooner when a second
  // is full); 41 to 50, predicted in the fifth second, check in the second after it: 6 s.
  front.forEach((x, i) => {
    const g = gaps.get(x.id) ?? [];
    assert(g.length >= 2, `${x.id} checked in ${g.length} times in 11 s`);
    if (i < 40) assert(Math.max(...g) <= 5000, `${x.id} (front) next check-in gaps ${g.join(",")}`);
    else assertEquals(g, [6000, 6000], `${x.id} (position ${i + 1}) next check-in gaps`);
  });
  const backGaps = back.flatMap((x) => gaps.get(x.id) ?? []);
  assert(back.every((x) => gaps.has(x.id)), "every back waiter checked in within 11 s");
  assert(Math.max(...backGaps) > 5000, "back of the line is not polled every 5 s");
  assert(Math.max(...backGaps) <= 11_000, `back gap ${Math.max(...backGaps)} ms`);
  t.close();
});

Deno.test("status check-ins stay within the 750/s budget during and after a burst of 4000 joins", async (ctx) => {
  const t = await makeApp({ CAPACITY: 100_000 });
  await t.engine.setPaused(Q, true);
  const m = await joinMany(t, 4000);
  await t.engine.sequence(Q);
  const loads: number[] = [];
  for (let s = 1; s <= 24; s++) {
    t.clock.advance(1000);
    const now = t.clock.now();
    const due = m.filter((x) => x.nextCheckAt === now);
    assertEquals(m.filter((x) => x.nextCheckAt < now).length, 0, "nobody is left behind");
    loads.push(due.length);
    await Promise.all(due.map(async (x) => {
      const out = await t.engine.status(Q, x.ticket);
      x.nextCheckAt = out.view.nextCheckAt!;
      if (out.ticket) x.ticket = (await t.services.signer.verifyTicket(out.ticket))!;
    }));
  }
  t.close();
  await ctx.step("steady state (after two periods): at most 750 check-ins per second", () => {
    const steady = loads.slice(12);
    assert(Math.max(...steady) <= 750, `loads per second: ${loads.join(" ")}`);
    // Everyone checks in once per 6 s period; the 50 at the front (10/s over 5 s) more often.
    const total = steady.reduce((a, b) => a + b, 0);
    assert(total >= 4000 * 2 && total <= 4000 * 2 + 50 * 2, `check-ins in 12 s: ${total}`);
  });
  await ctx.step("during the burst and the first re-check period: at most 750 per second", () => {
    assert(Math.max(...loads) <= 750, `loads per second: ${loads.join(" ")}`);
  });
});
