import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, operator } from "./helpers.ts";

const Q = "default";

Deno.test("a malformed tg_access cookie is 401 at /verify, not a crash", async () => {
  const t = await makeApp();
  const r = await t.app.request("/verify", { headers: { cookie: "tg_access=%ZZ" } });
  assertEquals(r.status, 401);
  assertEquals((await r.json()).error.code, "unauthorized");
  t.close();
});

Deno.test("a wrong Bearer does not block a correct X-Service-Operator", async () => {
  const t = await makeApp();
  const r = await t.app.request("/metrics", {
    headers: { authorization: "Bearer wrong", "x-service-operator": t.config.TOKEN_SECRET },
  });
  assertEquals(r.status, 200);
  const bad = await t.app.request("/metrics", {
    headers: { authorization: "Bearer wrong", "x-service-operator": "also-wrong" },
  });
  assertEquals(bad.status, 401);
  t.close();
});

Deno.test("an expired admission rejoins at the back with its own ticket, before the sweep", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, ACCESS_TOKEN_TTL_SECONDS: 60 });
  const a = new Client(t.app);
  assertEquals((await a.join()).status, 200);
  const id = a.visitorId;
  t.clock.advance(61_000); // token and slot ran out; no tick has swept it yet
  assertEquals((await a.status()).status, 404);
  const again = await a.join();
  assertEquals(again.status, 200, JSON.stringify(again.json));
  assertEquals(again.json.visitorId, id);
  const c = (await t.kv.get<{ entered: number; holding: number }>(keys.counts(Q))).value!;
  assertEquals([c.entered, c.holding], [1, 0], "the old slot was freed, the new one taken");
  t.close();
});

Deno.test("a silent pause does not change the front of line's check-in cadence", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  const a = new Client(t.app), b = new Client(t.app);
  await a.join();
  const running = await b.join();
  await t.engine.setPaused(Q, true);
  const c = new Client(t.app);
  const paused = await c.join();
  assertEquals(running.json.nextPollAfterMs <= 5000, true);
  assert(
    paused.json.nextPollAfterMs <= 5000,
    `paused front polls at ${paused.json.nextPollAfterMs}`,
  );
  assertEquals("paused" in paused.json, false);
  t.close();
});

Deno.test("a pause that lands while a tick runs: no admission is committed after it", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 5 });
  for (let i = 0; i < 6; i++) await new Client(t.app).join();
  t.clock.advance(1000);
  const admitted = async () =>
    (await t.kv.get<{ admitted: number }>(keys.counts(Q))).value!.admitted;
  // The tick runs while the pause request is served; whatever the tick committed before the
  // pause answered stands, nothing may be committed after it (the tick checks the settings).
  const tick = t.engine.tick(Q);
  const paused = await t.app.request("/pause", {
    method: "POST",
    headers: { ...operator(t.config), "content-type": "application/json" },
    body: JSON.stringify({ queue: Q, paused: true }),
  });
  assertEquals(paused.status, 200);
  const atPause = await admitted();
  await tick;
  assertEquals(await admitted(), atPause, "the running tick committed nothing after the pause");
  t.clock.advance(1000);
  await t.engine.tick(Q);
  assertEquals(await admitted(), atPause, "later ticks admit nobody while paused");
  t.close();
});

Deno.test("without click-to-enter, an admitted visitor keeps its slot as long as a late check-in would", async () => {
  // A 120 s poll interval: a waiter may be 2 x 120 + 30 s late before it is dropped.
  const t = await makeApp({ ADMIT_PER_SECOND: 1, WAITING_ROOM_POLL_INTERVAL_MS: 120_000 });
  const a = new Client(t.app), b = new Client(t.app);
  await a.join();
  const w = await b.join();
  t.clock.advance(1000);
  await t.engine.tick(Q);
  const rec = await t.engine.visitor(Q, b.visitorId);
  assertEquals(rec!.state, "admitted");
  // Late by more than admitHoldSeconds (60 s) but inside its liveness allowance.
  t.clock.ms = w.json.nextCheckAt + 90_000;
  await t.engine.tick(Q);
  const s = await b.status();
  assertEquals([s.status, s.json.status, s.json.entered], [200, "admitted", true]);
  t.close();
});

Deno.test("a tick with more expired slots than its round's budget keeps admitting (no zero KV list limit)", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 100, CAPACITY: 300, ACCESS_TOKEN_TTL_SECONDS: 60 });
  // The shortest grace: the latecomer below is dropped within the 120 s (issue 32).
  await t.engine.updateSettings(Q, (s) => void (s.returnGraceSeconds = 30));
  for (let i = 0; i < 300; i++) await new Client(t.app).join(Q, `expiry-visitor-${i}`);
  for (let i = 0; i < 3; i++) {
    t.clock.advance(1000);
    await t.engine.tick(Q);
  }
  const late = new Client(t.app);
  assertEquals((await late.join(Q, "expiry-latecomer")).status, 202, "every slot is taken");
  t.clock.advance(120_000); // every token lapsed: 300 slots to free at once
  const r = await t.engine.tick(Q);
  assert(r.expired >= 40, `the tick freed slots (${r.expired})`);
  t.clock.advance(1000);
  await t.engine.tick(Q);
  const m = await t.engine.metrics(Q);
  assert(m.entered + m.holding < 300, `slots came back (${m.entered + m.holding} held)`);
  // The latecomer lapsed meanwhile (it stopped checking in); a new arrival gets in at once.
  const fresh = await new Client(t.app).join(Q, "expiry-fresh-visitor");
  assertEquals([fresh.status, fresh.json.status], [200, "admitted"]);
  t.close();
});
