/**
 * The sequencer takes off the sum of joins not numbered yet (`arrivalsPending`) exactly the joins
 * it numbered, also when more joins landed between its read of the sum and its listing of the
 * arrival entries (another instance joining meanwhile). It once took in only the sum it had read:
 * the rest stayed in the sum for good, so every instance counted phantom waiters in its line and
 * no join ever went in at once again (seen as 15 extra waiters in multiprocess_positions_test).
 */
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, withDefaults } from "../lib/queue/types.ts";
import { aroundReads } from "../testing/around_reads.ts";
import { FakeClock } from "../lib/clock.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

Deno.test("joins landing while the sequencer reads are numbered and taken off the sum exactly", async () => {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  let during: (() => Promise<void>) | null = null;
  let fired = false;
  // Instance A, whose reads of the counts pass through a hook that lets B join right after.
  const kv = aroundReads(real, async (first, read) => {
    const out = await read();
    const hook = during;
    if (hook && first[0] === "counts") {
      during = null;
      fired = true;
      await hook();
    }
    return out;
  });
  const a = await makeApp({}, { kv, clock });
  const b = await makeApp({}, { kv: real, clock, seed: 2 }); // another instance id
  await a.engine.setPaused("default", true);
  for (let i = 0; i < 3; i++) assertEquals((await new Client(a.app).join()).status, 202);
  during = async () => {
    for (let i = 0; i < 5; i++) assertEquals((await new Client(b.app).join()).status, 202);
  };
  await a.engine.sequence("default");
  assert(fired, "B joined while A's sequencer had read the counts and the sum");
  await a.engine.sequence("default");
  const counts = withDefaults(EMPTY_COUNTS, (await real.get<Counts>(keys.counts("default"))).value);
  const sum = (await real.get<Deno.KvU64>(keys.arrivalsPending("default"))).value?.value ?? 0n;
  const left = await Array.fromAsync(real.list({ prefix: keys.arrivalPrefix("default") }));
  assertEquals(
    { waiting: counts.waiting, nextSeq: counts.nextSeq, left: left.length, sum: Number(sum) },
    { waiting: 8, nextSeq: 9, left: 0, sum: 0 },
    "all eight numbered, none left in the sum",
  );
  // Every instance's line is the numbered waiters, no phantom arrivals on top.
  const m = await b.engine.metrics("default");
  assertEquals(m.waiting, 8, "B's view of the line");
  real.close(); // both instances' store
});
