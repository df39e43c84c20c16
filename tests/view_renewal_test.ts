/**
 * A join counts itself into its instance's view of the line at once (the next join's place is
 * behind it), before its commit lands. A renewal of that view read from the store before the
 * commit landed used to replace the view without the join: the back of the line came out short
 * until the next read (the model test saw a line three joins short in CI). Every view loaded now
 * counts this instance's joins whose commits its read does not hold (by versionstamp).
 */
import { delayedKv } from "../testing/delayed_kv.ts";
import { assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

const Q = "default";

Deno.test("a view renewal read before a join's commit landed still counts the join", async () => {
  const real = await Deno.openKv(":memory:");
  const delays = { readMs: 0, commitMs: 0 };
  const t = await makeApp({}, { kv: delayedKv(real, delays) });
  await t.engine.setPaused(Q, true);
  assertEquals((await new Client(t.app).join()).status, 202);
  await t.engine.tick(Q); // numbered: the line is one long
  await t.engine.ctx.view(Q);
  // The view is renewed in the background from 750 ms of age: the next join starts it, and its
  // reads (fast) land before the join's commit (slow).
  t.clock.advance(800);
  delays.commitMs = 300;
  delays.readMs = 20;
  const joined = new Client(t.app).join();
  // Renewals come and go while the commit is in flight.
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 60));
    t.engine.ctx.freshView(Q);
  }
  assertEquals((await joined).json.position, 2, "second in line");
  delays.commitMs = 0;
  delays.readMs = 0;
  const view = await t.engine.ctx.view(Q);
  assertEquals([view.counts.waiting, view.pending], [2, 1], "the view counts both");
  // And a view read after the commit landed counts it once (from the store, not twice).
  t.clock.advance(1000);
  const later = await t.engine.ctx.view(Q);
  assertEquals([later.counts.waiting, later.pending], [2, 1], "once, from the store");
  t.close();
});

Deno.test("a view load does not wait for this instance's joins in flight, and counts each once", async () => {
  const real = await Deno.openKv(":memory:");
  let landed = 0;
  const delays = {
    readMs: 0,
    commitMs: 0,
    replyMs: 0,
    beforeCommit: () => Promise.resolve(void landed++),
  };
  const t = await makeApp({}, { kv: delayedKv(real, delays) });
  await t.engine.setPaused(Q, true);
  assertEquals((await new Client(t.app).join()).status, 202);
  await t.engine.tick(Q);
  await t.engine.ctx.view(Q);
  // A join's commit on its way to the store: a view read meanwhile (the tick's instance reads
  // afresh after each tick) is answered without waiting for it, and counts it.
  delays.commitMs = 300;
  delays.readMs = 10;
  const before = landed;
  const first = new Client(t.app).join();
  await new Promise((r) => setTimeout(r, 30));
  t.engine.ctx.invalidate(Q);
  const view = await t.engine.ctx.view(Q);
  assertEquals(landed, before, "the view was answered before the join's commit landed");
  assertEquals([view.counts.waiting, view.pending], [2, 1], "the view counts the join in flight");
  assertEquals((await first).json.position, 2);
  // A commit that landed before the read but whose answer is still on its way back: the read
  // holds it, and once its answer is in, the view counts it once.
  delays.commitMs = 0;
  delays.replyMs = 300;
  const second = new Client(t.app).join();
  await new Promise((r) => setTimeout(r, 30));
  t.engine.ctx.invalidate(Q);
  await t.engine.ctx.view(Q);
  assertEquals((await second).json.position, 3);
  delays.replyMs = 0;
  const after = await t.engine.ctx.view(Q);
  assertEquals([after.counts.waiting, after.pending], [3, 2], "each join counted once");
  t.close();
});
