/**
 * Lottery fairness: chi-square tests that the draw does not depend on arrival order.
 *
 * (a) Short line (1000 or fewer waiting): the tick and the operator force-admit draw uniformly
 *     among all waiters. (b) Long line: draws happen at each due check-in; simulated with the
 *     fake clock, visitors checking in at their `nextCheckAt`.
 */
import { seededRandom } from "../lib/clock.ts";
import { keys } from "../lib/store/keys.ts";
import { readTicketUnverified, type TicketClaims } from "../lib/tokens.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";

const Q = "default";
/** Chi-square critical values at p = 0.999. */
const CHI2_999: Record<number, number> = { 9: 27.877, 19: 43.82 };

/** Pearson's chi-square statistic of observed counts against equal expected counts. */
function chiSquare(observed: number[]): number {
  const total = observed.reduce((a, b) => a + b, 0);
  const expected = total / observed.length;
  return observed.reduce((a, o) => a + (o - expected) ** 2 / expected, 0);
}

const claimsOf = readTicketUnverified;

/** 0.8: arrival-key order (ms, instance, counter), the order the sequencer numbers joins in. */
function byArrival(a: Visitor, b: Visitor): number {
  const [x, y] = [a.mark!, b.mark!];
  return x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) || x[2] - y[2];
}

/** 0.8: the records of joins not numbered yet, in arrival order (each with its arrival key). */
async function unnumbered(t: TestApp, ids: string[]): Promise<Visitor[]> {
  const recs: Visitor[] = [];
  for (const id of ids) {
    const v = (await t.kv.get<Visitor>(keys.visitor(Q, id))).value;
    assert(v && v.seq === 0 && v.mark, `join ${id} waits for the sequencer`);
    recs.push(v);
  }
  return recs.sort(byArrival);
}

/**
 * One short-line trial on a fresh app seeded with `seed`: `n` waiters join (while paused, so
 * nobody is admitted at once), the queue resumes with one slot, and one is admitted by the tick
 * or by force-admit. Returns the arrival index (0 = first) of the admitted waiter.
 */
async function shortLineTrial(
  mode: "queue" | "lottery",
  how: "tick" | "force",
  n: number,
  seed: number,
): Promise<number> {
  const t = await makeApp({ ADMISSION_MODE: mode, ADMIT_PER_SECOND: 100, CAPACITY: 1 }, { seed });
  try {
    await t.engine.setPaused(Q, true);
    const joins = await Promise.all(Array.from({ length: n }, () => t.engine.join(Q, null)));
    const ids = joins.map((j) => {
      assertEquals(j.view.status, "waiting", "joins wait while paused");
      return claimsOf(j.ticket).sub;
    });
    // 0.8: the tick's (or force-admit's) sequencer numbers the joins first, in arrival order.
    const waiters = (await unnumbered(t, ids)).map((v) => ({ sub: v.id }));
    await t.engine.setPaused(Q, false);
    let admitted: number;
    if (how === "force") {
      admitted = await t.engine.admit(Q, 1);
    } else {
      t.clock.advance(1000);
      const res = await t.engine.tick(Q);
      assert(res.ran, "the tick runs in a new second");
      admitted = res.admitted;
    }
    assertEquals(admitted, 1, "exactly one admission into the one slot");
    let index = -1;
    for (let i = 0; i < n; i++) {
      const v = await t.engine.visitor(Q, waiters[i].sub);
      assert(v, `waiter ${i} has a record`);
      assertEquals(v.seq, i + 1, `waiter ${i} numbered in arrival order`);
      if (v.state !== "waiting") {
        assertEquals(index, -1, "only one waiter admitted");
        index = i;
      }
    }
    assert(index >= 0, "one waiter was admitted");
    return index;
  } finally {
    t.close();
  }
}

/** Histogram of the admitted arrival index over `trials` trials (seed `seed0 + k`). */
async function shortLineHistogram(
  mode: "queue" | "lottery",
  how: "tick" | "force",
  trials: number,
  seed0: number,
): Promise<number[]> {
  const N = 20;
  const bins = new Array(N).fill(0);
  for (let k = 0; k < trials; k++) bins[await shortLineTrial(mode, how, N, seed0 + k)]++;
  return bins;
}

Deno.test("lottery, short line: the tick draws uniformly among 20 waiters (chi-square)", async () => {
  const bins = await shortLineHistogram("lottery", "tick", 1000, 10_000);
  const x2 = chiSquare(bins);
  assert(x2 < CHI2_999[19], `chi-square ${x2.toFixed(2)} >= ${CHI2_999[19]}; bins ${bins}`);
});

Deno.test("lottery, short line: operator force-admit picks uniformly (chi-square)", async () => {
  const bins = await shortLineHistogram("lottery", "force", 1000, 20_000);
  const x2 = chiSquare(bins);
  assert(x2 < CHI2_999[19], `chi-square ${x2.toFixed(2)} >= ${CHI2_999[19]}; bins ${bins}`);
});

Deno.test("lottery, short line: the chi-square check has power (queue mode is rejected)", async () => {
  // The same trial in FIFO mode always admits the first joiner: the statistic must explode.
  const bins = await shortLineHistogram("queue", "tick", 100, 30_000);
  assertEquals(bins[0], 100, "FIFO admits the first joiner every time");
  assert(chiSquare(bins) > CHI2_999[19], "a biased histogram fails the chi-square check");
});

/**
 * Long line: W waiters join in arrival order (while paused, so nobody is admitted at once), then
 * the clock runs second by second; every waiter checks in at its `nextCheckAt` (at a random
 * millisecond of that second), and the lottery draws at those check-ins. Returns the winners per
 * arrival-order group while the line stays long.
 */
async function longLineRun(seed: number, W: number, rate: number, groups: number) {
  const t = await makeApp(
    {
      ADMISSION_MODE: "lottery",
      ADMIT_PER_SECOND: rate,
      CAPACITY: 1_000_000,
      ACCESS_TOKEN_TTL_SECONDS: 86400,
    },
    { seed },
  );
  const rnd = seededRandom(seed).float;
  try {
    await t.engine.setPaused(Q, true);
    const tickets: TicketClaims[] = [];
    for (let i = 0; i < W; i += 250) {
      const batch = [];
      for (let k = i; k < Math.min(W, i + 250); k++) batch.push(t.engine.join(Q, null));
      for (const j of await Promise.all(batch)) {
        assertEquals(j.view.status, "waiting", "joins wait while paused");
        tickets.push(claimsOf(j.ticket));
      }
    }
    // 0.8: the joins are numbered in arrival order (what the first tick would do); the groups
    // go by that order.
    const order = await unnumbered(t, tickets.map((c) => c.sub));
    while ((await t.engine.sequence(Q)) > 0) { /* until every join is numbered */ }
    const rank = new Map(order.map((v, i) => [v.id, i]));
    tickets.sort((a, b) => rank.get(a.sub)! - rank.get(b.sub)!);
    const group = new Map<string, number>();
    tickets.forEach((c, i) => group.set(c.sub, Math.floor((i * groups) / W)));
    await t.engine.setPaused(Q, false);

    const wins = new Array(groups).fill(0);
    const pending = new Map<string, TicketClaims>(tickets.map((c) => [c.sub, c]));
    const start = t.clock.now();
    let totalWins = 0, checkins = 0, tickAdmits = 0, seconds = 0;
    const startSec = Math.ceil(start / 1000) + 1;
    let drawRegime = true;
    for (let sec = startSec; drawRegime; sec++) {
      seconds++;
      assert(seconds < 400, "the long line shrinks");
      t.clock.advance(sec * 1000 - t.clock.now());
      const tr = await t.engine.tick(Q);
      tickAdmits += tr.admitted;
      const due = [...pending.values()].filter((c) => c.nextCheckAt <= sec * 1000)
        .map((c) => ({ c, at: sec * 1000 + Math.floor(rnd() * 1000) }))
        .sort((a, b) => a.at - b.at);
      for (const { c, at } of due) {
        if (at > t.clock.now()) t.clock.advance(at - t.clock.now());
        const out = await t.engine.status(Q, c, c.sub);
        checkins++;
        if (out.view.status === "admitted") {
          wins[group.get(c.sub)!]++;
          totalWins++;
          pending.delete(c.sub);
        } else {
          assert(out.ticket, "a due check-in gets a new ticket");
          const next = claimsOf(out.ticket);
          assert(next.nextCheckAt > t.clock.now(), "the next timeslot is in the future");
          pending.set(c.sub, next);
        }
      }
      // Stay in the regime where the lottery is drawn at check-ins (more than 1000 waiting).
      if (pending.size <= 1100) drawRegime = false;
    }
    const elapsed = (t.clock.now() - start) / 1000;
    const c = withDefaults(EMPTY_COUNTS, (await t.kv.get<Counts>(keys.counts(Q))).value);
    assertEquals(c.waiting, pending.size, "the counts agree with the simulated line");
    let stored = 0;
    for await (const e of t.kv.list<Visitor>({ prefix: ["v", Q] })) {
      if (e.value.state === "waiting") stored++;
    }
    assertEquals(stored, pending.size, "every non-winner still waits (nobody dropped)");
    return { wins, totalWins, checkins, tickAdmits, elapsed };
  } finally {
    t.close();
  }
}

Deno.test("lottery, long line: check-in draws do not depend on arrival order (chi-square)", async () => {
  const groups = 10, rate = 25;
  const r = await longLineRun(4242, 2500, rate, groups);
  assertEquals(r.tickAdmits, 0, "with more than 1000 waiting the tick does not draw");
  assert(r.totalWins >= 1000, `enough draws for the test: ${r.totalWins}`);
  // The draws spend the rate budget: at most rate per second plus a two-second burst.
  assert(
    r.totalWins <= rate * r.elapsed + 2 * rate,
    `wins ${r.totalWins} within the rate budget (${rate}/s over ${r.elapsed} s)`,
  );
  assert(
    r.totalWins >= 0.7 * rate * r.elapsed,
    `the draws keep up with the rate: ${r.totalWins} in ${r.elapsed} s`,
  );
  const x2 = chiSquare(r.wins);
  assert(x2 < CHI2_999[9], `chi-square ${x2.toFixed(2)} >= ${CHI2_999[9]}; wins ${r.wins}`);
});
