/**
 * What several instances on one store need from the engine, each over real KV (two apps on one
 * store, or one app whose KV calls take time): a tick that another instance's join overtakes
 * between its reads still lands at once, with both counted; enters that come together share one
 * commit of the counts record.
 */
import { delayedKv, KvTally } from "../testing/delayed_kv.ts";
import { FakeClock } from "../lib/clock.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { bucketCap, refill } from "../lib/queue/context.ts";
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, withDefaults } from "../lib/queue/types.ts";
import type { TicketClaims } from "../lib/tokens.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";

async function countsOf(kv: Deno.Kv): Promise<Counts> {
  return withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);
}

function claims(ticket: string): TicketClaims {
  const body = ticket.split(".")[0].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(body + "===".slice((body.length + 3) % 4)));
}

/** An app of `config` over an in-memory store that waits `readMs` / `commitMs` a call. */
async function slowApp(
  config: Record<string, unknown>,
  delays: { readMs: number; commitMs: number },
  tally?: KvTally,
) {
  const real = await Deno.openKv(":memory:");
  const t = await makeApp(config, { kv: delayedKv(real, delays, tally) });
  await t.engine.settings(Q);
  return { real, t };
}

/**
 * Two instances on one store: `other` joins directly; `a`'s reads go through `delayedKv`, whose
 * `beforeRead` makes `other` join before `a`'s reads numbered `from` to `to` (from 1, counted
 * once `arm()` was called).
 */
async function besideJoins(from: number, to: number, tally = new KvTally()) {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  let reads = -1;
  const other = await makeApp({ ADMIT_PER_SECOND: 3, CAPACITY: 100 }, { kv: real, clock });
  const a = await makeApp({ ADMIT_PER_SECOND: 3, CAPACITY: 100 }, {
    clock,
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      beforeRead: async () => {
        if (reads >= 0 && ++reads >= from && reads <= to) await other.engine.join(Q, null);
      },
    }, tally),
  });
  const arm = (on: boolean) => reads = on ? 0 : -1;
  return { real, clock, other, a, arm, reads: () => reads };
}

Deno.test("joins of another instance during a tick never make its commits lose (joins write only their own records)", async () => {
  const tally = new KvTally();
  // From the tick's third read on, another instance joins before each read.
  const { real, clock, other, a, arm, reads } = await besideJoins(3, 7, tally);
  for (let i = 0; i < 8; i++) await other.engine.join(Q, null);
  clock.advance(2000);
  arm(true);
  const lostBefore = tally.lost;
  const r = await a.engine.tick(Q);
  assert(reads() >= 3, "the other instance joined during the tick");
  assert(r.ran && r.admitted > 0, `the tick ran and admitted: ${JSON.stringify(r)}`);
  assertEquals(tally.lost - lostBefore, 0, "no commit of the tick lost to a join");
  arm(false);
  await a.engine.sequence(Q); // the joins that came during the tick: numbered by the next
  const after = await countsOf(real);
  assertEquals(after.nextSeq - 1, 8 + 5, "every join numbered once");
  assertEquals(after.waiting + after.holding + after.entered, 8 + 5, JSON.stringify({ r, after }));
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});

Deno.test("enters share commits that leave the counts record alone; the next tick takes them in", async () => {
  const real = await Deno.openKv(":memory:");
  const tally = new KvTally();
  const kinds = (written: Deno.KvKey[]) =>
    written.some((k) => k[0] === "counts")
      ? "counts"
      : written.some((k) => k[0] === "x")
      ? "enter"
      : "other";
  const t = await makeApp({ ADMIT_PER_SECOND: 50, CAPACITY: 100 }, {
    kv: delayedKv(real, { readMs: 2, commitMs: 20, kind: kinds }, tally),
  });
  await t.engine.setPaused(Q, true);
  const joined = await Promise.all(Array.from({ length: 30 }, () => t.engine.join(Q, null)));
  await t.engine.setPaused(Q, false);
  t.clock.advance(1000);
  assertEquals((await t.engine.tick(Q)).admitted, 30);
  t.clock.advance(10_000);
  const before = tally.byKind.get("counts")?.commits ?? 0;
  const out = await Promise.all(joined.map((j) => t.engine.status(Q, claims(j.ticket))));
  assert(out.every((o) => o.view.status === "admitted" && o.view.entered), "all entered");
  assertEquals((tally.byKind.get("counts")?.commits ?? 0) - before, 0, "no counts commit");
  const commits = tally.byKind.get("enter")?.commits ?? 0;
  assert(commits > 0 && commits <= 5, `${commits} commits for 30 enters`);
  // Not taken in yet: the record still says holding; the sum says how many entered since.
  let c = await countsOf(real);
  assertEquals([c.entered, c.holding], [0, 30]);
  assertEquals((await real.get<Deno.KvU64>(keys.entersPending(Q))).value?.value, 30n);
  const m = await t.engine.metrics(Q);
  assertEquals([m.entered, m.holding, m.openSlots], [30, 0, 70], "metrics count them entered");
  assert((await diagnose(real, Q)).healthy, "counts with the sum equal a recount");
  // The next tick takes them in, and the sum goes back to 0.
  t.clock.advance(1000);
  assert((await t.engine.tick(Q)).ran, "a tick ran");
  c = await countsOf(real);
  assertEquals([c.entered, c.holding], [30, 0]);
  assertEquals((await real.get<Deno.KvU64>(keys.entersPending(Q))).value?.value, 0n);
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});

Deno.test("the rate budget's time never goes back (a join that read a tick's newer counts)", () => {
  // A join takes its clock, then reads counts a tick wrote a moment later: the bucket stays at
  // the tick's time, so the span between is not counted twice by the next refill.
  const c = { ...EMPTY_COUNTS, tokens: 0.5, tokensAt: 2000 };
  refill(c, 10, 1900, true, bucketCap(10));
  assertEquals(c.tokensAt, 2000);
  refill(c, 10, 3000, true, bucketCap(10));
  assertEquals(c.tokens, 10.5, "one second of budget since the tick, not 1.1 s");
});

Deno.test("a crowd past one commit's mutation budget: every join written, numbered once, in its answer's place", async () => {
  const real = await Deno.openKv(":memory:");
  const tally = new KvTally();
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, {
    kv: delayedKv(real, { readMs: 1, commitMs: 15 }, tally),
  });
  await t.engine.setPaused(Q, true);
  const before = tally.commits;
  // More joins than one commit's 1,000 mutations can carry at five each.
  const outs = await Promise.all(Array.from({ length: 700 }, () => t.engine.join(Q, null)));
  const places = outs.map((o) => o.view.position!);
  assertEquals(new Set(places).size, 700, "provisional places unique on one instance");
  assert(outs.every((o) => o.view.positionExact === false), "marked provisional");
  assert(tally.commits - before >= 4, `${tally.commits - before} commits for 700 joins`);
  assertEquals(await t.engine.sequence(Q), 700);
  const seqs = await Promise.all(
    outs.map(async (o) => (await t.engine.visitor(Q, o.view.visitorId))!.seq),
  );
  assertEquals(new Set(seqs).size, 700, "arrival numbers unique");
  assert(seqs.every((s, i) => s === places[i]), "each numbered where its answer placed it");
  assertEquals((await countsOf(real)).waiting, 700);
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});

Deno.test("joins that land between the sequencer's read of the pending sum and its list leave the sum exact", async () => {
  // The sequencer reads the counts and the pending sum, then lists the arrivals: joins of another
  // instance that land in between are listed and numbered too, and the sum must lose them all
  // (it kept them, so the queue looked forever to have joins not numbered yet).
  // Before each of the sequencer's reads after its first, another instance's join lands.
  const { real, other, a, arm } = await besideJoins(2, 4);
  await a.engine.setPaused(Q, true);
  for (let i = 0; i < 5; i++) await other.engine.join(Q, null);
  arm(true);
  await a.engine.sequence(Q);
  arm(false);
  await a.engine.sequence(Q);
  const left = await Array.fromAsync(real.list({ prefix: keys.arrivalPrefix(Q) }));
  const pending = (await real.get<Deno.KvU64>(keys.arrivalsPending(Q))).value?.value;
  assertEquals([left.length, Number(pending)], [0, 0], "no arrival left, and the sum says so");
  const c = await countsOf(real);
  assert(c.waiting > 5, `the joins that landed meanwhile were numbered: ${c.waiting}`);
  assertEquals(c.waiting, c.nextSeq - 1, "each numbered once");
  real.close();
});

Deno.test("a crowd on an empty line over a slow store: a few joins try to go in at once, the rest take the line", async () => {
  // Each join that may go in at once commits on the counts, one after another in the instance
  // (the tick's commits wait there too). A crowd all trying it queued a store round trip each:
  // 200 joins over a 40 ms store took 10 s, and the tick waited behind them.
  const { real, t } = await slowApp({ ADMIT_PER_SECOND: 1000, CAPACITY: 1000 }, {
    readMs: 10,
    commitMs: 40,
  });
  const started = Date.now();
  const outs = await Promise.all(Array.from({ length: 200 }, () => t.engine.join(Q, null)));
  const took = Date.now() - started;
  const atOnce = outs.filter((o) => o.view.status === "admitted").length;
  assert(atOnce <= 1, `${atOnce} went in at once`);
  assert(took < 4000, `the crowd answered in ${took} ms`);
  assertEquals(await t.engine.sequence(Q), 200 - atOnce, "the rest numbered into the line");
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});

Deno.test("a join let in at once whose commit keeps losing takes the line after three tries, at once, not a 503", async () => {
  // Another instance's writes to the counts land before each of its commits (a crowd's first joins
  // on an empty line). It waited out a growing pause between tries and kept trying for the
  // store's whole deadline, the slowest joins of a crowd (bench/RESULTS.md).
  const real = await Deno.openKv(":memory:");
  let tries = 0;
  let armed = true;
  const countsKey = (k: Deno.KvKey) => k[0] === keys.counts(Q)[0] && k[1] === Q;
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 10 }, {
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      beforeCommit: async (written) => {
        // A join let in at once writes the counts and the visitor's expiry entry.
        if (
          !armed || !written.some(countsKey) ||
          !written.some((k) => k[0] === keys.expiry(Q, 0, "")[0])
        ) return;
        tries++;
        const c = await real.get(keys.counts(Q));
        await real.set(keys.counts(Q), c.value);
      },
    }),
  });
  await t.engine.settings(Q);
  const out = await t.engine.join(Q, null);
  assertEquals(tries, 3, "three tries");
  assertEquals(out.view.status, "waiting", "then the line");
  armed = false;
  await t.engine.tick(Q);
  const s = await t.engine.status(Q, await t.services.signer.verifyTicket(out.ticket));
  assertEquals(s.view.status, "admitted", "the next tick lets it in");
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});

Deno.test("a join let in at once waits out a KV file another process holds locked, backing off, then goes in", async () => {
  // SQLite may throw "database is locked" at once; those tries are not lost checks, so the join
  // backs off between them instead of spending all its tries in a few milliseconds (then a 503).
  const real = await Deno.openKv(":memory:");
  let lockedUntil = 0, lockErrors = 0;
  const countsKey = (k: Deno.KvKey) => k[0] === keys.counts(Q)[0] && k[1] === Q;
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 10 }, {
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      beforeCommit: (written) => {
        if (Date.now() >= lockedUntil || !written.some(countsKey)) return Promise.resolve();
        lockErrors++;
        return Promise.reject(new Error("database is locked"));
      },
    }),
  });
  await t.engine.settings(Q);
  lockedUntil = Date.now() + 600;
  const out = await t.engine.join(Q, null);
  assertEquals(out.view.status, "admitted", "in at once once the lock is gone");
  assert(lockErrors < 100, `backed off between tries (${lockErrors} lock errors in 600 ms)`);
  real.close();
});

Deno.test("joins that come together on an empty line with room all go in at once, a round's commit for them", async () => {
  // DECISIONS: capacity available at once (open, nobody waiting, a slot, the budget) admits on
  // join. Joins of one instance that come while a round is in flight share the next round's one
  // commit on the counts; past the slots or the budget they take the line.
  const tally = new KvTally();
  const { real, t } = await slowApp({ ADMIT_PER_SECOND: 100, CAPACITY: 5 }, {
    readMs: 5,
    commitMs: 20,
  }, tally);
  const commitsBefore = tally.commits;
  const outs = await Promise.all(Array.from({ length: 8 }, () => t.engine.join(Q, null)));
  const statuses = outs.map((o) => o.view.status).sort();
  assertEquals(statuses, [...Array(5).fill("admitted"), ...Array(3).fill("waiting")]);
  // Two rounds at most (the first join's, then everyone who came meanwhile) and the line's write.
  assert(tally.commits - commitsBefore <= 4, `${tally.commits - commitsBefore} commits`);
  const c = await countsOf(real);
  assertEquals([c.admitted, c.holding + c.entered], [5, 5], "capacity held");
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});

Deno.test("a round of joins let in at once with one whose own check fails: the others go in, it is refused", async () => {
  // Its commit lost to that one join's own check (an id in the queue already, a spent solution)
  // every try; the whole round took the line though the others could have gone in.
  const { real, t } = await slowApp({ ADMIT_PER_SECOND: 100, CAPACITY: 10 }, {
    readMs: 5,
    commitMs: 20,
  });
  assertEquals((await t.engine.join(Q, null, "taken")).view.status, "admitted");
  // The first join goes in alone; the others come meanwhile and share the next round.
  const outs = await Promise.allSettled([
    t.engine.join(Q, null),
    ...Array.from({ length: 3 }, () => t.engine.join(Q, null)),
    t.engine.join(Q, null, "taken"),
  ]);
  const fresh = outs.slice(0, 4).map((o) => o.status === "fulfilled" ? o.value.view.status : o);
  assertEquals(fresh, Array(4).fill("admitted"), "the others went in at once");
  const refused = outs[4];
  assert(refused.status === "rejected", "the taken id is refused");
  assert(String(refused.reason).includes("already in queue"), String(refused.reason));
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});
