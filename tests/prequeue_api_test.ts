/**
 * The pre-queue over HTTP: the admin API (window, bad input, a locked opening time), the public
 * draw record only once published, `/metrics`, and the check page.
 */
import { verifyDraw } from "../lib/queue/draw_scheme.ts";
import { prequeuePhase } from "../lib/queue/prequeue_phase.ts";
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { makeApp, operator } from "./helpers.ts";
import { served } from "./prequeue_helpers.ts";
import { parseSamples, scrape, valueOf } from "./metrics_helpers.ts";

const Q = "default";
const HOUR = 3_600_000;

Deno.test("admin API: pre-queue on and off, bad input refused with nothing changed", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const put = (b: unknown) => client.req("PUT", "/api/admin/prequeue", b);
  const settings = async () => {
    const s = await t.engine.settings(Q);
    return [s.opensAt, s.prequeueMinutes];
  };
  // Without an opening time.
  let r = await put({ enabled: true, windowMinutes: 30 });
  assertEquals([r.status, r.json.error.code], [400, "bad_request"]);
  assert(r.json.error.message.includes("opening time"), r.text);
  // Without a window, or longer than 24 h.
  const opensAt = t.clock.now() + 2 * HOUR;
  assertEquals((await client.req("PUT", "/api/admin/schedule", { opensAt })).status, 200);
  r = await put({ enabled: true });
  assertEquals([r.status, r.json.error.details.fields?.[0]?.path], [400, "windowMinutes"]);
  r = await put({ enabled: true, windowMinutes: 1441 });
  assertEquals(r.status, 400);
  assertEquals(await settings(), [opensAt, null]);
  // On; clearing the opening time under it is refused.
  r = await put({ enabled: true, windowMinutes: 60 });
  assertEquals([r.status, r.json.prequeueMinutes], [200, 60]);
  r = await client.req("PUT", "/api/admin/schedule", { opensAt: null });
  assertEquals([r.status, r.json.error.code], [400, "bad_request"]);
  // Window open: commitment published, opening time and pre-queue locked.
  t.clock.advance(61 * 60_000);
  await t.engine.drawIfDue(Q);
  r = await client.req("PUT", "/api/admin/schedule", { opensAt: opensAt + HOUR });
  assertEquals([r.status, r.json.error.code], [409, "draw_committed"]);
  r = await put({ enabled: false });
  assertEquals([r.status, r.json.error.code], [409, "draw_committed"]);
  assertEquals(await settings(), [opensAt, 60]);
  // After the draw the pre-queue may be turned off.
  t.clock.ms = opensAt;
  await t.engine.drawIfDue(Q);
  assertEquals((await put({ enabled: false })).json.prequeueMinutes, null);
  t.close();
});

Deno.test("the draw record is public only when published; /metrics shows the pre-queue", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 5 });
  const { client } = await adminClient(t);
  const opensAt = t.clock.now() + HOUR;
  await client.req("PUT", "/api/admin/schedule", { opensAt });
  await client.req("PUT", "/api/admin/prequeue", { enabled: true, windowMinutes: 120 });
  const anyone = served(t);
  // No record yet (before anyone joined the window, no tick ran): no_draw.
  let r = await anyone.req("GET", `/draw?queue=${Q}`);
  assertEquals([r.status, r.json.error.code], [404, "no_draw"]);
  const vs = Array.from({ length: 12 }, () => served(t));
  for (const v of vs) await v.join();
  await t.engine.tick(Q); // numbered into the window, the round's commitment out (0.8.0)
  r = await anyone.req("GET", `/draw?queue=${Q}`);
  assertEquals([r.status, r.json.error.code], [404, "no_draw"], "not published yet");
  const m = await anyone.req("GET", `/metrics?queue=${Q}`, undefined, operator(t.config));
  assertEquals(m.json.prequeue.phase, "window");
  assertEquals(m.json.prequeue.participants, 12);
  assertEquals(m.json.prequeue.seed, null);
  r = await client.req("PUT", "/api/admin/draw/publish", { published: true });
  assertEquals(r.json, { queue: Q, published: true });
  r = await anyone.req("GET", `/draw?queue=${Q}`);
  assertEquals(r.json.state, "committed");
  assertEquals(r.json.commitment, (await vs[0].status()).json.drawCommitment);
  assertEquals([r.json.seed, r.json.list], [undefined, undefined]);
  assert(!r.text.includes(String(opensAt)), "the committed record does not tell the opening time");
  t.clock.ms = opensAt;
  await t.engine.drawIfDue(Q);
  r = await anyone.req("GET", `/draw?queue=${Q}`);
  assertEquals([r.json.state, r.json.count], ["done", 12]);
  assert(verifyDraw(r.json).ok);
  const after = await anyone.req("GET", `/metrics?queue=${Q}`, undefined, operator(t.config));
  assertEquals(after.json.prequeue.phase, "drawn");
  assertEquals(after.json.prequeue.seed, r.json.seed);
  // A tampered order fails the check.
  const bad = { ...r.json, order: [...r.json.order].reverse() };
  assert(!verifyDraw(bad).ok);
  // A queue without a draw, and an unknown queue.
  await t.engine.ensureQueues(["other"]);
  r = await anyone.req("GET", "/draw?queue=other");
  assertEquals([r.status, r.json.error.code], [404, "no_draw"]);
  r = await anyone.req("GET", "/draw?queue=nope");
  assertEquals([r.status, r.json.error.code], [404, "unknown_queue"]);
  r = await anyone.req("GET", "/draw?queue=Bad!");
  assertEquals(r.status, 400);
  const page = await anyone.req("GET", `/draw/verify?queue=${Q}`);
  assertEquals(page.status, 200);
  assert(page.text.includes("Check an opening draw"));
  // An unknown queue has no draw to check: a 404 page, not a check that fails later.
  const none = await anyone.req("GET", "/draw/verify?queue=nope");
  assertEquals(none.status, 404);
  assert(none.text.includes("no waiting room here"), none.text);
  // The arrival number of the waiting page's link fills the field (digits only).
  const mine = await anyone.req("GET", `/draw/verify?queue=${Q}&arrival=17`);
  assert(mine.text.includes('value="17"'), "arrival prefilled");
  const odd = await anyone.req("GET", `/draw/verify?queue=${Q}&arrival=%22x`);
  assert(!odd.text.includes('value="&quot;x"'), "only digits are carried");
  t.close();
});

Deno.test("Prometheus /metrics: the pre-queue's phase and participants", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 5 });
  const opensAt = t.clock.now() + HOUR;
  await t.engine.setOpensAt(Q, opensAt);
  await t.engine.setPrequeue(Q, 120);
  for (let i = 0; i < 4; i++) await t.engine.join(Q, null);
  const bearer = operator(t.config);
  let s = parseSamples((await scrape(t, "?format=prometheus", bearer)).text);
  const q = { queue: Q };
  assertEquals(valueOf(s, "tollgate_queue_prequeue_phase", { ...q, phase: "window" }), 1);
  assertEquals(valueOf(s, "tollgate_queue_prequeue_phase", { ...q, phase: "drawn" }), 0);
  assertEquals(valueOf(s, "tollgate_queue_prequeue_participants", q), 4);
  t.clock.ms = opensAt;
  await t.engine.drawIfDue(Q);
  t.clock.advance(1000);
  s = parseSamples((await scrape(t, "?format=prometheus", bearer)).text);
  assertEquals(valueOf(s, "tollgate_queue_prequeue_phase", { ...q, phase: "drawn" }), 1);
  assertEquals(valueOf(s, "tollgate_queue_prequeue_participants", q), 4);
  t.close();
});

Deno.test("a draw asked for at the opening runs even while the window's step is still under way", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 5 });
  try {
    const opensAt = t.clock.now() + HOUR;
    await t.engine.setOpensAt(Q, opensAt);
    await t.engine.setPrequeue(Q, 120);
    for (let i = 0; i < 3; i++) await served(t).join();
    // A tick's step of the window, in flight, as a tick leaves it in the background.
    const windowStep = t.engine.drawIfDue(Q);
    t.clock.ms = opensAt;
    await t.engine.drawIfDue(Q); // it used to get the window's step back, and no draw ran
    await windowStep;
    assertEquals(prequeuePhase(await t.engine.settings(Q), t.clock.now()), "drawn");
  } finally {
    t.close();
  }
});
