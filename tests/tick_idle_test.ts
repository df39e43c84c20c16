/**
 * An idle queue (nobody waiting, holding, entered or arriving, its rate budget full or the queue
 * shut) is not ticked: a sweep counted two commits a second for each idle queue (the tick's claim
 * and the counts' clock), which a store billed by the write charges for nothing. The tests check
 * that idle seconds write nothing and that the first visitor after a quiet spell is served as
 * before: let in at once when there is room, else numbered and admitted at the next ticks.
 */
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, type TestApp } from "./helpers.ts";

const Q = "default";

/** The versionstamps of the queue's counts and tick claim: unchanged when nothing was written. */
async function stamps(t: TestApp): Promise<(string | null)[]> {
  const got = await t.kv.getMany([keys.counts(Q), keys.tickClaim(Q)]);
  return got.map((e) => e.versionstamp);
}

/** Ticks `n` seconds, one a second on the test clock; how many ran. */
async function seconds(t: TestApp, n: number): Promise<number> {
  let ran = 0;
  for (let i = 0; i < n; i++) {
    t.clock.advance(1000);
    if ((await t.engine.tick(Q)).ran) ran++;
  }
  return ran;
}

Deno.test("an idle open queue's seconds write nothing once its budget is full; a join is let in at once", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 5, CAPACITY: 3 });
  await seconds(t, 3); // the budget fills (two seconds of it)
  const before = await stamps(t);
  assertEquals(await seconds(t, 10), 0, "no tick ran on an idle queue");
  assertEquals(await stamps(t), before, "nothing written in ten idle seconds");
  const a = new Client(t.app);
  assertEquals((await a.join()).status, 200, "room and budget: in at once");
  t.close();
});

Deno.test("an idle paused queue writes nothing; after it resumes, a line forms and moves at the rate", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 10 });
  await t.engine.setPaused(Q, true);
  await seconds(t, 2);
  const before = await stamps(t);
  assertEquals(await seconds(t, 5), 0);
  assertEquals(await stamps(t), before, "nothing written while paused and idle");
  const visitors = [new Client(t.app), new Client(t.app), new Client(t.app)];
  for (const v of visitors) assertEquals((await v.join()).status, 202);
  await t.engine.setPaused(Q, false);
  // Arrivals make the queue busy: ticks number them and admit by the rate (at most 2 s of budget).
  assert((await seconds(t, 1)) === 1, "the tick runs once someone arrives");
  let admitted = 0;
  for (const v of visitors) if ((await v.status()).json.status === "admitted") admitted++;
  assert(admitted >= 1 && admitted <= 2, `one second admits within the budget (got ${admitted})`);
  await seconds(t, 3);
  for (const v of visitors) assertEquals((await v.status()).json.status, "admitted");
  t.close();
});

Deno.test("a queue with someone entered keeps ticking: its slot is freed when the token ends", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 5, CAPACITY: 1 });
  const a = new Client(t.app);
  assertEquals((await a.join()).status, 200);
  const m = await t.engine.metrics(Q);
  assertEquals(m.entered, 1);
  // Entered: not idle, every second ticks until the token's end frees the slot.
  assert((await seconds(t, 3)) === 3, "an entered visitor's queue ticks");
  t.clock.advance(3600_000);
  await t.engine.tick(Q);
  assertEquals((await t.engine.metrics(Q)).entered, 0, "the slot was freed");
  t.close();
});

Deno.test("the per-second timer looks at an idle queue every 5 s; a join makes it tick each second again", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 5, CAPACITY: 3 }, { autoTick: true });
  await seconds(t, 3); // the budget fills: idle from here
  let tries = 0;
  const tick = t.engine.tick.bind(t.engine);
  t.engine.tick = (q: string) => (tries++, tick(q));
  /** `n` seconds of main.ts's timer, each given time to finish its tick. */
  const timer = async (n: number) => {
    for (let i = 0; i < n; i++) {
      t.clock.advance(1000);
      t.engine.maybeTick(Q, true);
      await new Promise((r) => setTimeout(r, 30));
    }
  };
  await timer(10);
  // Each look is a store read: 1,000 idle queues read each second took a quarter of a core.
  assert(tries >= 2 && tries <= 3, `idle: a look every 5 s (${tries} in 10 s)`);
  await t.engine.setPaused(Q, true);
  assertEquals((await new Client(t.app).join()).status, 202);
  tries = 0;
  await timer(3);
  assertEquals(tries, 3, "someone waits: the timer ticks the queue each second");
  t.close();
});
