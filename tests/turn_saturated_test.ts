/**
 * What keeps the join turn working on a saturated store (bench/scale_sim.ts, 50 instances): an
 * instance that knows another's turn is live hands its joins over without reading the counts
 * again, and a turn lasts at least two of its holder's slowest recent commits.
 */
import { keys } from "../lib/store/keys.ts";
import { JoinTurns } from "../lib/queue/join_turn.ts";
import { readInbox } from "../lib/queue/join_relay.ts";
import { type Counts, EMPTY_COUNTS } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";
import { heldBy } from "../testing/turns.ts";

const Q = "default";
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("with another instance's turn live as last read, joins are handed over without reading the counts", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 });
  // Commits as slow as a remote store's: the turn read stays live for longer than one.
  t.engine.ctx.turns.commitMs = 100;
  await t.kv.set(keys.counts(Q), heldBy("rholder1", 2000));
  let reads = 0;
  const readState = t.engine.ctx.readState.bind(t.engine.ctx);
  t.engine.ctx.readState = (q: string) => (reads++, readState(q));
  // The first join reads the counts (and the turn in them), and hands itself over.
  const first = t.engine.join(Q, null).catch((e) => e);
  for (let i = 0; i < 50 && (await readInbox(t.kv, Q)).length < 1; i++) await wait(10);
  assertEquals(reads, 1, "the first join read the counts");
  const second = t.engine.join(Q, null).catch((e) => e);
  for (let i = 0; i < 50 && (await readInbox(t.kv, Q)).length < 2; i++) await wait(10);
  assertEquals((await readInbox(t.kv, Q)).length, 2, "both handed over");
  assertEquals(reads, 1, "the second did not read them again");
  // The holder never commits: nobody's turn now, and the senders commit their joins themselves.
  await t.kv.set(keys.counts(Q), heldBy("", 0));
  const outs = await Promise.all([first, second]);
  assertEquals(outs.map((o) => o.view?.status), ["waiting", "waiting"]);
  const c = (await t.kv.get<Counts>(keys.counts(Q))).value!;
  assertEquals(c.nextSeq - 1, 2, "each placed once");
  t.close();
});

Deno.test("a turn lasts at least two of its holder's slowest recent commits", async () => {
  const kv = await Deno.openKv(":memory:");
  const turns = new JoinTurns(kv);
  // One commit took 600 ms (a saturated store), the next four 20 ms: the average is back near 60.
  for (const ms of [600, 20, 20, 20, 20]) turns.noteCommit(ms);
  assert(turns.commitMs < 60, `average ${turns.commitMs}`);
  const slowest = 600 * 0.8 ** 4;
  const c: Counts = { ...EMPTY_COUNTS };
  const now = Date.now();
  await turns.settle(Q, kv.atomic(), c, now, true, turns.commitMs);
  assertEquals(c.turnBy, turns.me, "kept while it has joins");
  assert(c.turnUntil - now >= 2 * slowest, `lasts ${c.turnUntil - now} ms (slowest ${slowest})`);
  kv.close();
});
