/**
 * Pre-queue: joins refused before the window (without saying when), waiting without a position
 * in the window, no opening time in any answer, and the opening draw at `opensAt` placing every
 * participant ahead of later arrivals, in the order anyone recomputes from the published record.
 */
import { keys } from "../lib/store/keys.ts";
import { publicDraw } from "../lib/queue/draw_list.ts";
import { verifyDraw } from "../lib/queue/draw_scheme.ts";
import type { DrawRecord } from "../lib/queue/prequeue.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { makeApp } from "./helpers.ts";
import { prequeueApp, served } from "./prequeue_helpers.ts";

const Q = "default";
const HOUR = 3_600_000;

Deno.test("before the window a join is refused with not_open, never saying when, and nothing changes", async () => {
  const { t } = await prequeueApp(HOUR, 30);
  const v = served(t);
  const res = await v.join();
  assertEquals(res.status, 503);
  assertEquals(res.json.error.code, "not_open");
  assert(!res.headers.has("retry-after"), "no Retry-After: it would tell the opening time");
  assert(!JSON.stringify(res.json).match(/\d{10,}/), `no timestamp in ${res.text}`);
  assertEquals(v.cookies.size, 0);
  const m = await t.engine.metrics(Q);
  assertEquals([m.waiting, m.prequeue.phase, m.prequeue.commitment], [0, "before", null]);
  t.close();
});

Deno.test("in the window: waiting without a position, arrival number and commitment shown, estimate from the opening", async () => {
  const { t, opensAt } = await prequeueApp(HOUR, 90);
  const vs = Array.from({ length: 9 }, () => served(t));
  for (const v of vs) {
    const j = await v.join();
    assertEquals(j.status, 202);
    // Not numbered yet: no arrival number (every join of the second would show the same one).
    assertEquals(j.json.arrivalNumber, undefined, "no arrival number before the tick");
  }
  // The tick numbers the window's joins: arrival numbers and the commitment from then (0.8.0).
  await t.engine.tick(Q);
  const numbers = [];
  for (const v of vs) numbers.push((await v.status()).json.arrivalNumber);
  assertEquals(numbers, [1, 2, 3, 4, 5, 6, 7, 8, 9], "each its own, in arrival order");
  const last = (await vs[8].status()).json;
  const m = await t.engine.metrics(Q);
  assertEquals(m.prequeue.phase, "window");
  assertEquals(m.prequeue.participants, 9);
  assert(m.prequeue.commitment && /^[0-9a-f]{64}$/.test(m.prequeue.commitment));
  assertEquals(last.drawPending, true);
  assertEquals(last.position, undefined);
  assertEquals(last.drawCommitment, m.prequeue.commitment);
  assertEquals(last.arrivalNumber, 9);
  // Expected wait after the opening for a random place among 9 at 10/s: (9 + 1) / 2 / 10 s.
  assertEquals(last.estimatedWaitSeconds, 1);
  assert(!JSON.stringify(last).includes(String(opensAt)));
  // The same estimate half an hour later: it does not count down to the opening.
  t.clock.advance(HOUR / 2);
  const later = (await vs[8].status()).json;
  assertEquals(later.estimatedWaitSeconds, 1);
  // With the round open, joins of one second on one instance: none shows a number not its own.
  const more = Array.from({ length: 3 }, () => served(t));
  for (const v of more) {
    const j = await v.join();
    assertEquals([j.status, j.json.arrivalNumber], [202, undefined], "none before the tick");
  }
  t.close();
});

Deno.test("a queue without a pre-queue: the estimate no longer adds the time until opensAt", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10 });
  await t.engine.setOpensAt(Q, t.clock.now() + 5 * HOUR);
  const vs = Array.from({ length: 20 }, () => served(t));
  for (const v of vs) await v.join();
  const j = (await vs[19].status()).json;
  assertEquals(j.position, 20);
  assertEquals(j.estimatedWaitSeconds, 2);
  assert(j.nextCheckAt - t.clock.now() < HOUR, "the schedule does not wait for the opening");
  t.close();
});

Deno.test("the draw at opensAt: participants in the published order, ahead of later arrivals", async () => {
  const { t, opensAt } = await prequeueApp(10 * 60_000, 30);
  const vs = Array.from({ length: 40 }, () => served(t));
  for (const v of vs) assertEquals((await v.join()).status, 202);
  await t.engine.tick(Q); // numbered: arrival numbers 1 to 40 (0.8.0)
  const ids = vs.map((v) => v.visitorId);
  // Two leave during the window; they are not in the list.
  for (const v of vs.slice(0, 2)) {
    assertEquals((await v.req("POST", "/leave", { queue: Q, visitorId: v.visitorId })).status, 200);
  }
  t.clock.ms = opensAt + 10;
  const late = served(t);
  assertEquals((await late.join()).status, 202, "a later arrival waits behind the draw");
  assertEquals((await late.status()).json.drawPending, true);
  await t.engine.drawIfDue(Q);
  const rec = (await t.kv.get<DrawRecord>(keys.draw(Q))).value!;
  assertEquals(rec.state, "done");
  const pub = await publicDraw(t.engine.ctx, Q, rec);
  assertEquals(pub.count, 38);
  assert(verifyDraw(pub).ok, JSON.stringify(verifyDraw(pub).lines));
  assert(!JSON.stringify(pub).includes(String(opensAt)), "the record never names opensAt");
  // Each participant's position is its place in the order of arrival numbers.
  t.clock.advance(HOUR);
  for (const [i, v] of vs.slice(2).entries()) {
    const s = (await v.status()).json;
    assertEquals(s.drawPending, undefined);
    assertEquals(s.position, pub.order!.indexOf(i + 3) + 1, `arrival ${i + 3}`);
  }
  assertEquals((await late.status()).json.position, 39);
  // Admissions follow the drawn order.
  await t.engine.admit(Q, 5);
  const admitted = [];
  for (const [i, id] of ids.entries()) {
    if ((await t.engine.visitor(Q, id))?.state === "admitted") admitted.push(i + 1);
  }
  assertEquals(admitted.sort(), pub.order!.slice(0, 5).sort());
  t.close();
});

Deno.test("bad input: window over 24 h or without opensAt, opensAt moved after the commitment", async () => {
  const t = await makeApp();
  await assertRejects(() => t.engine.setPrequeue(Q, 30), "needs an opening time");
  await t.engine.setOpensAt(Q, t.clock.now() + HOUR);
  await assertRejects(() => t.engine.setPrequeue(Q, 1441), "1 to 1440");
  await assertRejects(() => t.engine.setPrequeue(Q, 0), "1 to 1440");
  await t.engine.setPrequeue(Q, 1440);
  await t.engine.drawIfDue(Q);
  await assertRejects(() => t.engine.setOpensAt(Q, t.clock.now() + 2 * HOUR), "commitment");
  await assertRejects(() => t.engine.setPrequeue(Q, null), "commitment");
  const s = await t.engine.settings(Q);
  assertEquals([s.prequeueMinutes, s.opensAt], [1440, t.clock.now() + HOUR]);
  t.close();
});

Deno.test("the queue doctor finds nothing wrong in a pre-queue window or after its draw", async () => {
  const { t, opensAt } = await prequeueApp(10 * 60_000, 30);
  for (let i = 0; i < 12; i++) await t.engine.join(Q, null);
  assertEquals((await diagnose(t.kv, Q)).indexProblems, []);
  t.clock.ms = opensAt;
  await t.engine.drawIfDue(Q);
  const d = await diagnose(t.kv, Q);
  assertEquals([d.indexProblems, d.counterDiffs], [[], []]);
  t.close();
});

Deno.test("a window nobody joined: the draw of nobody is done, and later arrivals queue at once", async () => {
  const { t, opensAt } = await prequeueApp(10 * 60_000, 30);
  await t.engine.drawIfDue(Q);
  t.clock.ms = opensAt + 50;
  await t.engine.drawIfDue(Q);
  const m = await t.engine.metrics(Q);
  assertEquals([m.prequeue.phase, m.prequeue.participants], ["drawn", 0]);
  const v = served(t);
  const r = await v.join();
  assertEquals(r.status, 200, "capacity at once: admitted");
  t.close();
});
