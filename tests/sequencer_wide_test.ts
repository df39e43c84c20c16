/**
 * The sequencer's wide rounds (lib/queue/sequencer.ts): a backlog of several commits' worth is
 * numbered in one round (the counts commit, then the other chunks side by side), and a round cut
 * short between its commits (a crash) is finished from its numbering record by the next
 * sequencer, each arrival numbered once, nobody lost.
 */
import { delayedKv, KvTally } from "../testing/delayed_kv.ts";
import { FakeClock } from "../lib/clock.ts";
import { diagnose, repairCounters } from "../lib/queue/doctor.ts";
import { ROUND_MOST, SEQUENCE_CHUNK } from "../lib/queue/sequencer.ts";
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { readTicketUnverified, type TicketClaims } from "../lib/tokens.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";
const isCounts = (k: Deno.KvKey) => k[0] === "counts";
const isVisitor = (k: Deno.KvKey) => k[0] === keys.visitor(Q, "x")[0] && k[1] === Q;

/**
 * `real` seen through a store where a wide round's chunk commits (visitor records without the
 * counts) fail with `why` while `fails()` says so (asked only for those commits).
 */
function chunksFailing(real: Deno.Kv, fails: () => boolean, why: string): Deno.Kv {
  return delayedKv(real, {
    readMs: 0,
    commitMs: 0,
    beforeCommit: (w) =>
      w.some(isVisitor) && !w.some(isCounts) && fails()
        ? Promise.reject(new Error(why))
        : Promise.resolve(),
  });
}

/** The numbering records of wide rounds' chunks not written yet. */
async function records(kv: Deno.Kv): Promise<number> {
  return (await Array.fromAsync(kv.list({ prefix: keys.numberingPrefix(Q) }))).length;
}

async function countsOf(kv: Deno.Kv): Promise<Counts> {
  return withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);
}

/** Every waiting record numbered, each number once, and the line index agreeing. */
async function numberedOnce(kv: Deno.Kv, ids: string[]): Promise<void> {
  const seqs = new Set<number>();
  for (const id of ids) {
    const v = (await kv.get<Visitor>(keys.visitor(Q, id))).value;
    assert(v !== null, `${id} has its record`);
    if (v.state !== "waiting") continue;
    assert(v.seq > 0, `${id} is numbered`);
    assert(!seqs.has(v.seq), `number ${v.seq} given twice`);
    seqs.add(v.seq);
    assertEquals((await kv.get<string>(keys.fifo(Q, v.seq))).value, id, "its line entry");
  }
  let arrivals = 0;
  for await (const _ of kv.list({ prefix: keys.arrivalPrefix(Q) })) arrivals++;
  assertEquals(arrivals, 0, "no arrival left unnumbered");
}

/** Pauses the queue and joins `n` visitors (none goes in at once), their tickets in order. */
async function crowd(t: Awaited<ReturnType<typeof makeApp>>, n: number) {
  await t.engine.settings(Q);
  await t.engine.setPaused(Q, true);
  const tickets: TicketClaims[] = [];
  for (let i = 0; i < n; i++) {
    tickets.push(readTicketUnverified((await t.engine.join(Q, null)).ticket!));
  }
  return tickets;
}

Deno.test("a backlog of several commits' worth is numbered in one round: one counts commit", async () => {
  const real = await Deno.openKv(":memory:");
  const tally = new KvTally();
  let countsCommits = 0;
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, {
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      beforeCommit: (w) => Promise.resolve(void (w.some(isCounts) && countsCommits++)),
    }, tally),
  });
  const n = 3 * SEQUENCE_CHUNK + 50;
  const ids = (await crowd(t, n)).map((c) => c.sub);
  countsCommits = 0;
  assertEquals(await t.engine.sequence(Q), n);
  assertEquals(countsCommits, 1, "the whole backlog in one counts commit");
  await numberedOnce(real, ids);
  assertEquals(await records(real), 0, "no numbering record left");
  const c = await countsOf(real);
  assertEquals([c.waiting, c.nextSeq], [n, n + 1]);
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});

Deno.test("a wide round cut short after its counts commit is finished by the next sequencer, once", async () => {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  let crash = false;
  // The chunks after the counts commit never reach the store (the process died).
  const a = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, {
    clock,
    kv: chunksFailing(real, () => crash, "killed"),
  });
  // Another instance (another process: its own instance id).
  const b = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, { clock, kv: real, seed: 2 });
  const n = 2 * SEQUENCE_CHUNK + 40;
  const tickets = await crowd(a, n);
  const ids = tickets.map((c) => c.sub);
  crash = true;
  // Its chunks, and its own finishing of them, fail.
  await a.engine.sequence(Q).catch(() => {});
  // Commits of the dead run still in flight fail too.
  await new Promise((r) => setTimeout(r, 50));
  crash = false;
  assert(await records(real) > 0, "its numbering records stand");
  assertEquals((await countsOf(real)).waiting, n, "the counts took the whole round");
  // The records are part of the numbering: the doctor counts their joins as numbered, so it
  // finds the counts right and a repair takes nothing off them.
  assert((await diagnose(real, Q, { pauseMs: 0 })).healthy, "healthy with the records standing");
  assertEquals((await repairCounters(real, Q, 3, { pauseMs: 0 })).repaired, false);
  assertEquals((await countsOf(real)).waiting, n, "nothing taken off the counts");
  // One of the cut-short round leaves meanwhile (still unnumbered: a note for the sequencer).
  await b.engine.leave(Q, tickets.at(-1)!, ids.at(-1)!);
  assert((await real.get(keys.leftEarly(Q, ids.at(-1)!))).value !== null, "its note is there");
  // Fresh, it may be another sequencer's round in flight: left alone.
  assertEquals(await b.engine.sequence(Q), 0, "a fresh record is left to its round");
  clock.advance(5000);
  await b.engine.sequence(Q);
  assertEquals(await records(real), 0, "finished and removed");
  await numberedOnce(real, ids.slice(0, -1));
  const c = await countsOf(real);
  assertEquals(c.nextSeq, n + 1, "no number given twice");
  assertEquals(c.waiting, n - 1, "the leaver's leave went on once it was numbered");
  assertEquals(await a.engine.sequence(Q), 0, "nothing numbered again");
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});

Deno.test("a chunk that fails once is finished by its own run at once", async () => {
  const real = await Deno.openKv(":memory:");
  let fail = 0;
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, {
    kv: chunksFailing(real, () => fail > 0 && fail-- > 0, "lost on the way"),
  });
  const n = 2 * SEQUENCE_CHUNK + 40;
  const ids = (await crowd(t, n)).map((c) => c.sub);
  fail = 1;
  assertEquals(await t.engine.sequence(Q), n);
  assertEquals(fail, 0, "one chunk failed");
  await numberedOnce(real, ids);
  assertEquals(await records(real), 0, "finished and removed");
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});

Deno.test("the next round's counts commit goes out while the last round's chunks still land", async () => {
  const real = await Deno.openKv(":memory:");
  let chunksOut = 0, besideChunks = 0, countsCommits = 0;
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, {
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      beforeCommit: async (w) => {
        if (w.some(isCounts)) {
          countsCommits++;
          if (chunksOut > 0) besideChunks++;
        } else if (w.some(isVisitor) && w.some((k) => k[0] === "nn")) {
          // A chunk (it deletes its record): slow on the way.
          chunksOut++;
          await new Promise((r) => setTimeout(r, 30));
          chunksOut--;
        }
      },
    }),
  });
  const n = 2 * ROUND_MOST + 10;
  const ids = (await crowd(t, n)).map((c) => c.sub);
  countsCommits = 0;
  let numbered = 0;
  for (let i = 0; i < 5 && numbered < n; i++) numbered += await t.engine.sequence(Q);
  assertEquals(numbered, n);
  assert(countsCommits >= 3, `${countsCommits} counts commits`);
  assert(besideChunks > 0, "a round went out beside the chunks of the one before");
  await numberedOnce(real, ids);
  assertEquals(await records(real), 0, "every chunk's record deleted with it");
  assert((await diagnose(real, Q)).healthy, "counts equal a recount");
  real.close();
});
