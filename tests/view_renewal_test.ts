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
