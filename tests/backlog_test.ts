/**
 * A backlog of joins not numbered yet (more arrivals a second than the sequencer numbers over a
 * slow store, bench/RESULTS.md): the second's admissions still go in on time, from the numbered
 * line first, and the statuses of joins surely still unnumbered cost no store read, while a
 * status after the sequencer numbered the join is exact.
 */
import { delayedKv, KvTally } from "../testing/delayed_kv.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, withDefaults } from "../lib/queue/types.ts";
import { readTicketUnverified } from "../lib/tokens.ts";
import { ROUND_MOST } from "../lib/queue/sequencer.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";
const arrivalKey = (k: Deno.KvKey) => k[0] === keys.arrivalPrefix(Q)[0] && k[1] === Q;
const countsKey = (k: Deno.KvKey) => k[0] === keys.counts(Q)[0] && k[1] === Q;

async function countsOf(kv: Deno.Kv): Promise<Counts> {
  return withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);
}

Deno.test("behind a backlog the tick admits the numbered waiters first and numbers the rest beside it", async () => {
  const real = await Deno.openKv(":memory:");
  let admittedAtFirstNumbering: number | null = null;
  let armed = false;
  const t = await makeApp({ ADMIT_PER_SECOND: 5, CAPACITY: 100 }, {
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      beforeCommit: async (written) => {
        if (!armed || admittedAtFirstNumbering !== null) return;
        // A numbering commit: it writes the counts and takes arrival entries in.
        if (written.some(countsKey) && written.some(arrivalKey)) {
          admittedAtFirstNumbering = (await countsOf(real)).admitted;
        }
      },
    }),
  });
  await t.engine.settings(Q);
  await Promise.all(Array.from({ length: 20 }, () => t.engine.join(Q, null)));
  await t.engine.sequence(Q);
  const before = (await countsOf(real)).admitted;
  const backlog = ROUND_MOST + 60;
  await Promise.all(Array.from({ length: backlog }, () => t.engine.join(Q, null)));
  t.clock.advance(1000);
  armed = true;
  const r = await t.engine.tick(Q);
  assert(r.ran && r.admitted > 0, `the tick admitted ${r.admitted}`);
  // The backlog is numbered beside the tick: a sequencer call waits for that run.
  await t.engine.sequence(Q);
  const left = await Array.fromAsync(real.list({ prefix: keys.arrivalPrefix(Q) }));
  assertEquals(left.length, 0, "every join numbered");
  assert(admittedAtFirstNumbering !== null, "a numbering commit was seen");
  assert(
    admittedAtFirstNumbering! > before,
    `admissions landed before the numbering (${admittedAtFirstNumbering} admitted then, ${before} before the tick)`,
  );
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});

Deno.test("a join surely not numbered yet behind a long backlog is answered from memory; once numbered, from its record", async () => {
  const real = await Deno.openKv(":memory:");
  const tally = new KvTally();
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, {
    kv: delayedKv(real, { readMs: 0, commitMs: 0 }, tally),
  });
  await t.engine.settings(Q);
  const outs = [];
  for (let i = 0; i < 150; i++) outs.push(await t.engine.join(Q, null));
  const last = readTicketUnverified(outs.at(-1)!.ticket!);
  assertEquals(last.seq, 0, "the join is not numbered yet");
  assert(last.arrivedAt !== undefined, "its ticket carries its arrival time");
  const signer = t.services.signer;
  assertEquals((await signer.verifyTicket(outs.at(-1)!.ticket!))?.arrivedAt, last.arrivedAt);
  const bad = await signer.sign({ sub: "v", queue: Q, iat: 1, seq: 0, nca: 0, am: "soon" });
  assertEquals(
    await signer.verifyTicket(bad),
    null,
    "an arrival time that is no integer is refused",
  );
  await t.engine.status(Q, last); // the view, read once a second
  const reads = tally.reads;
  const mem = t.engine.statusNow(Q, last);
  assert(mem !== undefined, "answered from memory");
  assertEquals(tally.reads, reads, "without a store read");
  assertEquals(mem.view.positionExact, false, "its place marked provisional");
  assert(mem.view.nextCheckAt! > t.clock.now(), "asked back later");

  // A join near the front of the backlog (short count ahead of it) still counts in the store.
  const numbered = await t.engine.sequence(Q);
  assert(numbered >= 140, `the sequencer numbered ${numbered}`);
  await t.engine.status(Q, last);
  assertEquals(
    t.engine.statusNow(Q, last),
    undefined,
    "its old ticket is no longer answered from memory",
  );
  const exact = await t.engine.status(Q, last);
  assert(exact.view.positionExact !== false, "exact once numbered");
  assertEquals(exact.view.position, (await countsOf(real)).waiting, "the back of the line");
  real.close();
});

Deno.test("a short backlog is counted one by one in the store, not answered from memory", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 });
  await t.engine.settings(Q);
  const outs = [];
  for (let i = 0; i < 10; i++) outs.push(await t.engine.join(Q, null));
  const last = readTicketUnverified(outs.at(-1)!.ticket!);
  await t.engine.status(Q, last);
  assertEquals(t.engine.statusNow(Q, last), undefined);
  const out = await t.engine.status(Q, last);
  assertEquals(out.view.positionExact, false);
  const waiting = outs.filter((o) => o.view.status === "waiting").length;
  assertEquals(out.view.position, waiting, "the back of the line, counted");
  t.close();
});

/**
 * An app over `real` (5 admissions a second) with 20 joins numbered, then `more` joins not numbered
 * yet, the clock at the next second; each commit on the counts first goes through `onCounts`
 * (`admission`: it takes no arrival in).
 */
async function numberedThen(
  real: Deno.Kv,
  more: number,
  onCounts: (admission: boolean) => Promise<void>,
) {
  const t = await makeApp({ ADMIT_PER_SECOND: 5, CAPACITY: 100 }, {
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      beforeCommit: (w) => w.some(countsKey) ? onCounts(!w.some(arrivalKey)) : Promise.resolve(),
    }),
  });
  await t.engine.settings(Q);
  await Promise.all(Array.from({ length: 20 }, () => t.engine.join(Q, null)));
  await t.engine.sequence(Q);
  const numbered = (await countsOf(real)).waiting;
  await Promise.all(Array.from({ length: more }, () => t.engine.join(Q, null)));
  t.clock.advance(1000);
  return { t, numbered };
}

Deno.test("with two seconds' admissions numbered, a tick admits before it numbers the joins since, then numbers them", async () => {
  const real = await Deno.openKv(":memory:");
  const order: string[] = [];
  let armed = false;
  // Fewer than a round numbers: not a backlog, numbered inside the tick.
  const { t, numbered } = await numberedThen(real, 30, (admission) => {
    if (armed) order.push(admission ? "admission" : "numbering");
    return Promise.resolve();
  });
  assert(numbered >= 10, `${numbered} numbered: two seconds' admissions at 5 a second`);
  armed = true;
  const r = await t.engine.tick(Q);
  assert(r.ran && r.admitted > 0, `the tick admitted ${r.admitted}`);
  assertEquals(r.numbered, 30, "the joins since were numbered in the tick");
  assertEquals(order[0], "admission", `commits on the counts: ${order.join(", ")}`);
  assert(order.includes("numbering"), "then numbered");
  assertEquals((await countsOf(real)).waiting, numbered + 30 - r.admitted, "each counted once");
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  t.close();
});

Deno.test("a tick whose first (admission) round fails still numbers the joins since", async () => {
  const real = await Deno.openKv(":memory:");
  let armed = false;
  // The tick's admission round fails (a store error); numbering commits go through.
  const { t } = await numberedThen(real, 5, (admission) => {
    return armed && admission ? Promise.reject(new Error("store error")) : Promise.resolve();
  });
  armed = true;
  await t.engine.tick(Q).catch(() => {});
  armed = false;
  const pending = (await real.get<Deno.KvU64>(keys.arrivalsPending(Q))).value;
  assertEquals(Number(pending?.value ?? 0n), 0, "the joins since were numbered");
  t.close();
});
