/**
 * The claim of a second's tick: a claim lost to an earlier second's (a tick that started late in
 * its own second, whose claim lands while this one is being made) is made again, or that second
 * goes without a tick (bench/scale_sim.ts, 100 ms a commit, one instance); a claim lost to another
 * instance's claim of the same second gives the second up to it, and so does a tick whose first
 * round lost the second to a takeover (it runs no later rounds of it).
 */
import { delayedKv } from "../testing/delayed_kv.ts";
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";
const claimKey = keys.tickClaim(Q);
const isClaim = (k: Deno.KvKey) =>
  k.length === claimKey.length && k.every((x, i) => x === claimKey[i]);

/** An app whose next tick-claim commit first lets `landing(sec)` land in the store. */
async function racedApp(landing: (sec: number) => { sec: number; by: string }) {
  const real = await Deno.openKv(":memory:");
  const armed = { sec: 0 };
  const t = await makeApp({}, {
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      beforeCommit: async (written) => {
        if (!armed.sec || !written.some(isClaim)) return;
        await real.set(claimKey, { ...landing(armed.sec), at: Date.now() });
        armed.sec = 0;
      },
    }),
  });
  await t.engine.settings(Q);
  return { t, real, armed };
}

Deno.test("a tick claim lost to a late tick's claim of the second before is made again: the second is ticked", async () => {
  const { t, real, armed } = await racedApp((sec) => ({ sec: sec - 1, by: "late" }));
  await t.engine.join(Q, null);
  t.clock.advance(1000);
  armed.sec = Math.floor(t.clock.now() / 1000);
  const r = await t.engine.tick(Q);
  assertEquals(armed.sec, 0, "the earlier second's claim landed during the claim");
  assert(r.ran, "the second was ticked");
  assertEquals((await real.get<{ sec: number }>(claimKey)).value?.sec, r.sec);
  t.close();
});

Deno.test("a tick claim lost to another instance's claim of the same second leaves the second to it", async () => {
  const { t, real, armed } = await racedApp((sec) => ({ sec, by: "other" }));
  t.clock.advance(1000);
  armed.sec = Math.floor(t.clock.now() / 1000);
  const r = await t.engine.tick(Q);
  assertEquals(armed.sec, 0, "the other claim landed during the claim");
  assert(!r.ran, "not ticked twice");
  assertEquals((await real.get<{ by: string }>(claimKey)).value?.by, "other");
  t.close();
});

const countsKey = (k: Deno.KvKey) => k[0] === keys.counts(Q)[0] && k[1] === Q;
const arrivalKey = (k: Deno.KvKey) => k[0] === keys.arrivalPrefix(Q)[0] && k[1] === Q;

Deno.test("a tick whose first round lost its second to another instance's takeover runs no later rounds of it", async () => {
  const real = await Deno.openKv(":memory:");
  let hook: (() => Promise<void>) | null = null;
  const a = await makeApp({ ADMIT_PER_SECOND: 5, CAPACITY: 100 }, {
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      beforeCommit: async (written) => {
        // A's first round commit of the tick (counts, no arrivals): held while B takes over.
        if (hook && written.some(countsKey) && !written.some(arrivalKey)) {
          const h = hook;
          hook = null;
          await h();
        }
      },
    }),
  });
  const b = await makeApp({ ADMIT_PER_SECOND: 5, CAPACITY: 100 }, { kv: real, clock: a.clock });
  // Another process: its own instance id (one process's apps share one).
  (b.engine.ctx as { instance: string }).instance = "other-process";
  await a.engine.settings(Q);
  await Promise.all(Array.from({ length: 20 }, () => a.engine.join(Q, null)));
  await a.engine.sequence(Q);
  a.clock.advance(1000);
  let bRan = false;
  hook = async () => {
    // A is slow past CLAIM_MS: B's tick of the same second waits out A's claim and takes it over.
    const rb = await b.engine.tick(Q);
    bRan = rb.ran;
    // Joins land meanwhile (A will number them), and time moves on within the second.
    await Promise.all(Array.from({ length: 3 }, () => b.engine.join(Q, null)));
    a.clock.advance(500);
  };
  const ra = await a.engine.tick(Q);
  assert(bRan, "B took the second over and ticked it");
  assertEquals(ra.sec, Math.floor((a.clock.now() - 500) / 1000));
  assert(
    !(ra.ran && ra.admitted > 0),
    `A also ran rounds of the same second: ran=${ra.ran}, admitted ${ra.admitted}`,
  );
  a.close();
});
