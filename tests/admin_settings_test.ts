import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { keys } from "../lib/store/keys.ts";
import { MAX_QUEUES } from "../routes/admin/settings.ts";
import { Client, makeApp, operator, type TestApp } from "./helpers.ts";

/** An app with a signed-in admin. */
async function setup(overrides: Parameters<typeof makeApp>[0] = {}) {
  const t = await makeApp(overrides);
  const { client } = await adminClient(t);
  return { t, admin: client };
}

// Session and Origin refusals of every write are covered over the whole contract in
// admin_csrf_test.ts.

Deno.test("admin settings: mode, schedule, pause, rate, capacity change the queue", async () => {
  const { t, admin } = await setup();
  let r = await admin.req("POST", "/api/admin/mode", { mode: "lottery" });
  assertEquals([r.status, r.json.mode], [200, "lottery"]);
  const opensAt = t.clock.now() + 3_600_000;
  r = await admin.req("PUT", "/api/admin/schedule", { opensAt });
  assertEquals(r.json.opensAt, opensAt);
  r = await admin.req("PUT", "/api/admin/rate", { admitPerSecond: 2.5 });
  assertEquals(r.json.admitPerSecond, 2.5);
  r = await admin.req("PUT", "/api/admin/capacity", { capacity: 7 });
  assertEquals(r.json.capacity, 7);
  const events: unknown[] = [];
  t.services.events = {
    emit: (e, q, d) => Promise.resolve(void events.push([e, q, d])),
  };
  r = await admin.req("POST", "/api/admin/pause", { paused: true });
  assertEquals(r.json.paused, true);
  assertEquals(events, [["pause", "default", { paused: true }]]);
  let m = await t.engine.metrics("default");
  assertEquals(
    [m.admissionMode, m.opensAt, m.admitPerSecond, m.capacity, m.paused],
    ["lottery", opensAt, 2.5, 7, true],
  );
  r = await admin.req("DELETE", "/api/admin/rate");
  assertEquals([r.status, r.json.admitPerSecond, r.json.defaultAdmitPerSecond], [200, null, 10]);
  r = await admin.req("PUT", "/api/admin/schedule", { opensAt: null });
  m = await t.engine.metrics("default");
  assertEquals([m.admitPerSecond, m.opensAt], [10, null]);
  t.close();
});

Deno.test("admin settings: bad values are refused with the field named and change nothing", async () => {
  const { t, admin } = await setup();
  const bad: [string, string, unknown, string][] = [
    ["POST", "/api/admin/mode", { mode: "random" }, "mode"],
    ["PUT", "/api/admin/schedule", { opensAt: "tomorrow" }, "opensAt"],
    ["PUT", "/api/admin/schedule", {}, "opensAt"],
    // A past opening time would read as upcoming: refused (null opens now).
    ["PUT", "/api/admin/schedule", { opensAt: 1_000 }, "opensAt"],
    ["POST", "/api/admin/pause", { paused: "yes" }, "paused"],
    ["PUT", "/api/admin/rate", { admitPerSecond: 0 }, "admitPerSecond"],
    ["PUT", "/api/admin/rate", { admitPerSecond: 1e9 }, "admitPerSecond"],
    ["PUT", "/api/admin/capacity", { capacity: 0 }, "capacity"],
    ["PUT", "/api/admin/capacity", { capacity: 1.5 }, "capacity"],
    ["POST", "/api/admin/mode", { mode: "queue", queue: "Bad Name" }, "queue"],
    ["PUT", "/api/admin/branding", { primaryColor: "red;}" }, "primaryColor"],
    ["PUT", "/api/admin/branding", { redirectUrl: "javascript:alert(1)" }, "redirectUrl"],
    ["PUT", "/api/admin/branding", { redirectUrl: "//evil.example" }, "redirectUrl"],
    ["PUT", "/api/admin/branding", { redirectUrl: "/wait?queue=x" }, "redirectUrl"],
    ["PUT", "/api/admin/branding", { logoUrl: "http://insecure.example/x.png" }, "logoUrl"],
    ["PUT", "/api/admin/branding", { admitHoldSeconds: 5 }, "admitHoldSeconds"],
    ["PUT", "/api/admin/branding", { nope: 1 }, ""],
  ];
  const before = JSON.stringify((await admin.req("GET", "/api/admin/state")).json.branding);
  for (const [method, path, body, field] of bad) {
    const r = await admin.req(method, path, body);
    assertEquals(r.status, 400, `${path} ${JSON.stringify(body)}`);
    assertEquals(r.json.error.code, "bad_request");
    const fields = r.json.error.details.fields.map((f: { path: string }) => f.path);
    assert(field === "" || fields.includes(field), `${JSON.stringify(body)}: ${fields}`);
  }
  const r = await admin.req("POST", "/api/admin/mode", "{not json");
  assertEquals(r.status, 400);
  const m = await t.engine.metrics("default");
  assertEquals([m.admissionMode, m.capacity, m.admitPerSecond, m.opensAt], [
    "queue",
    500,
    10,
    null,
  ]);
  assertEquals(JSON.stringify((await admin.req("GET", "/api/admin/state")).json.branding), before);
  t.close();
});

Deno.test("admin settings: per-queue writes hit the named queue; unknown queue is 404", async () => {
  const { t, admin } = await setup({ QUEUES: ["default", "vip"] });
  await admin.req("PUT", "/api/admin/rate", { queue: "vip", admitPerSecond: 50 });
  assertEquals((await t.engine.metrics("vip")).admitPerSecond, 50);
  assertEquals((await t.engine.metrics("default")).admitPerSecond, 10);
  await admin.req("POST", "/api/admin/pause", { paused: true });
  assertEquals((await t.engine.metrics("default")).paused, true);
  assertEquals((await t.engine.metrics("vip")).paused, false);
  const r = await admin.req("PUT", "/api/admin/capacity", { queue: "nope", capacity: 3 });
  assertEquals([r.status, r.json.error.code], [404, "unknown_queue"]);
  t.close();
});

Deno.test("admin settings: without a default queue, a write must name its queue", async () => {
  const { t, admin } = await setup({ QUEUES: ["a", "b"] });
  let r = await admin.req("POST", "/api/admin/pause", { paused: true });
  assertEquals([r.status, r.json.error.code], [400, "bad_request"]);
  r = await admin.req("POST", "/api/admin/pause", { queue: "b", paused: true });
  assertEquals([(await t.engine.metrics("a")).paused, (await t.engine.metrics("b")).paused], [
    false,
    true,
  ]);
  t.close();
});

Deno.test("admin settings: queues can be created and listed", async () => {
  const { t, admin } = await setup();
  let r = await admin.req("POST", "/api/admin/queues", { name: "drop-1", mode: "lottery" });
  assertEquals([r.status, r.json.queue, r.json.mode], [200, "drop-1", "lottery"]);
  r = await admin.req("POST", "/api/admin/queues", { name: "drop-1" });
  assertEquals(r.json.mode, "lottery", "creating again keeps the queue");
  r = await admin.req("GET", "/api/admin/queues");
  assertEquals(r.json.queues.map((q: { queue: string }) => q.queue), ["default", "drop-1"]);
  const v = await new Client(t.app).join("drop-1");
  assert(v.status === 200 || v.status === 202, "visitors can join the new queue");
  r = await admin.req("POST", "/api/admin/queues", { name: "../x" });
  assertEquals(r.status, 400);
  t.close();
});

Deno.test("admin queue-limits: needs the current value and confirmChanges; stale is 409", async () => {
  const { t, admin } = await setup();
  let r = await admin.req("GET", "/api/admin/queue-limits");
  assertEquals(r.json, { queue: "default", maxWaitingVisitors: 1_000_000 });
  r = await admin.req("PUT", "/api/admin/queue-limits", {
    maxWaitingVisitors: 2,
    previousMaxWaitingVisitors: 999,
    confirmChanges: true,
  });
  assertEquals([r.status, r.json.error.code], [409, "conflict"]);
  for (const confirm of [false, undefined, "true"]) {
    r = await admin.req("PUT", "/api/admin/queue-limits", {
      maxWaitingVisitors: 2,
      previousMaxWaitingVisitors: 1_000_000,
      confirmChanges: confirm,
    });
    assertEquals(r.status, 400, `confirmChanges ${confirm}`);
  }
  for (const max of [0, 50_000_001, 2.5]) {
    r = await admin.req("PUT", "/api/admin/queue-limits", {
      maxWaitingVisitors: max,
      previousMaxWaitingVisitors: 1_000_000,
      confirmChanges: true,
    });
    assertEquals(r.status, 400, `max ${max}`);
  }
  assertEquals((await t.engine.settings("default")).maxWaitingVisitors, 1_000_000);
  r = await admin.req("PUT", "/api/admin/queue-limits", {
    maxWaitingVisitors: 1,
    previousMaxWaitingVisitors: 1_000_000,
    confirmChanges: true,
  });
  assertEquals(r.json, { queue: "default", maxWaitingVisitors: 1 });
  // The cap is live for visitors: the first waits (closed queue), the second is refused.
  await t.engine.setPaused("default", true);
  assertEquals((await new Client(t.app).join()).status, 202);
  const full = await new Client(t.app).join();
  assertEquals([full.status, full.json.error.code], [503, "queue_full"]);
  t.close();
});

Deno.test("admin branding: partial saves merge, reach visitors, and show in state", async () => {
  const { t, admin } = await setup();
  let r = await admin.req("PUT", "/api/admin/branding", {
    title: "Drop day",
    primaryColor: "#ff0000",
    showWaitingCount: true,
  });
  assertEquals([r.status, r.json.title, r.json.primaryColor, r.json.message.length > 0], [
    200,
    "Drop day",
    "#ff0000",
    true,
  ]);
  r = await admin.req("PUT", "/api/admin/branding", { redirectUrl: "/shop?x=1" });
  assertEquals([r.json.title, r.json.redirectUrl], ["Drop day", "/shop?x=1"]);
  r = await admin.req("GET", "/api/admin/state");
  assertEquals(r.json.branding.title, "Drop day");
  await t.engine.setPaused("default", true);
  const v = await new Client(t.app).join();
  assertEquals([v.status, v.json.waiting], [202, 1], "showWaitingCount reaches the visitor API");
  t.close();
});

Deno.test("admin state and metrics: the control room's data, and no secrets", async () => {
  const { t, admin } = await setup();
  await t.engine.setPaused("default", true);
  await new Client(t.app).join();
  const r = await admin.req("GET", "/api/admin/state");
  assertEquals(r.status, 200);
  assertEquals(r.json.me.username, "admin");
  assertEquals(r.json.team.users.length, 1);
  assertEquals(r.json.metrics.queues[0].waiting, 1);
  assertEquals(r.json.challenge.configured, false);
  assertEquals(r.json.webhooks.hasSecret, false);
  assert(
    !/"(\w*hash|salt|password|secret|sealedSecret)"\s*:/i.test(r.text),
    `no secret material: ${r.text}`,
  );
  assert(!r.text.includes(t.config.TOKEN_SECRET));
  assert(
    (r.headers.get("content-security-policy") ?? "").includes("script-src 'self'"),
    "strict CSP on admin responses",
  );
  const m = await admin.req("GET", "/api/admin/metrics");
  assertEquals([m.json.at, m.json.queues[0].waiting, m.json.queues[0].paused], [
    t.clock.now(),
    1,
    true,
  ]);
  t.close();
});

Deno.test("admin session also drives the operator endpoints", async () => {
  const { t, admin } = await setup({ CAPACITY: 5 });
  await t.engine.setPaused("default", true);
  const v = new Client(t.app);
  await v.join();
  await t.engine.setPaused("default", false);
  const r = await admin.req("POST", "/admit", { queue: "default", count: 1 });
  assertEquals([r.status, r.json.admitted], [200, 1]);
  const m = await admin.req("GET", "/metrics?queue=default");
  assertEquals([m.status, m.json.holding + m.json.entered], [200, 1]);
  assertEquals((await new Client(t.app).req("GET", "/metrics")).status, 401);
  const log = await admin.req("GET", "/api/admin/audit");
  const entry = JSON.stringify(log.json).match(/\{[^{}]*"operator\.admit"[^{}]*/)?.[0] ?? "";
  assert(entry.includes('"actor":"admin"'), `operator action audited with its admin: ${entry}`);
  t.close();
});

Deno.test("admin pass: an access cookie for this browser that takes no slot", async () => {
  const { t, admin } = await setup({ CAPACITY: 1 });
  let r = await admin.req("POST", "/api/admin/pass", {});
  assertEquals([r.status, r.json.redirectTo, r.json.queue], [200, "/demo", "default"]);
  const access = admin.cookies.get("tg_access");
  assert(access, "tg_access set");
  const verify = await t.app.request("/verify?queue=default", {
    headers: { authorization: `Bearer ${access}` },
  });
  assertEquals(verify.status, 204);
  const m = await t.engine.metrics("default");
  assertEquals([m.entered, m.holding, m.openSlots], [0, 0, 1]);
  assertEquals((await new Client(t.app).join()).status, 200, "the one slot is still free");
  await admin.req("PUT", "/api/admin/branding", { redirectUrl: "https://shop.example/" });
  r = await admin.req("POST", "/api/admin/pass", { queue: "default" });
  assertEquals(r.json.redirectTo, "https://shop.example/");
  r = await admin.req("POST", "/api/admin/pass", { queue: "nope" });
  assertEquals(r.status, 404);
  t.close();
});

Deno.test("admin reset: bearer only; clears admins and settings, keeps queue state", async () => {
  const { t, admin } = await setup();
  await admin.req("PUT", "/api/admin/branding", { title: "Kept" });
  await t.engine.setPaused("default", true);
  const visitor = new Client(t.app);
  await visitor.join();
  const invite = await admin.req("POST", "/api/admin/invites", {});
  assertEquals(invite.status, 200);
  const hook = await admin.req("PUT", "/api/admin/webhooks", {
    enabled: true,
    url: "https://hooks.example/tollgate",
    events: ["pause"],
    secret: "whsec-0123456789",
  });
  assertEquals(hook.status, 200);
  // Edge, challenge, pending setup and origin records belong to later issues; plant them.
  const planted = [keys.edge(), keys.challenge(), keys.setupPendingEdge(), keys.origin()];
  for (const k of [...planted, keys.setupPendingChallenge()]) {
    await t.kv.set(k, { planted: true });
  }
  await t.kv.set(keys.depthArmed("default"), { firedAt: 1, waiting: 100 });
  await t.kv.set(keys.updatesCache(), { planted: true });
  let r = await admin.req("POST", "/api/admin/reset");
  assertEquals(r.status, 401, "a session is not enough");
  r = await new Client(t.app).req("POST", "/api/admin/reset", undefined, {
    authorization: "Bearer wrong-wrong-wrong-wrong-wrong-wrong",
  });
  assertEquals(r.status, 401);
  r = await new Client(t.app).req("POST", "/api/admin/reset", undefined, operator(t.config));
  assertEquals([r.status, r.json.reset], [200, true]);
  assertEquals((await admin.req("GET", "/api/admin/state")).status, 401, "session gone");
  for (
    const k of [
      keys.edge(),
      keys.challenge(),
      keys.setupPendingEdge(),
      keys.setupPendingChallenge(),
      keys.origin(),
      keys.webhooks(),
      keys.depthArmed("default"),
      keys.updatesCache(),
    ]
  ) {
    assertEquals((await t.kv.get(k)).value, null, `${k.join("/")} cleared`);
  }
  assertEquals((await Array.fromAsync(t.kv.list({ prefix: keys.adminPrefix() }))).length, 0);
  const boot = await new Client(t.app).req("GET", "/api/admin/bootstrap");
  assertEquals(boot.json.claimed, false);
  assertEquals((await visitor.status()).json.status, "waiting", "queue state kept");
  assertEquals((await t.engine.metrics("default")).paused, true, "queue settings kept");
  const again = await adminClient(t as TestApp);
  const st = await again.client.req("GET", "/api/admin/state");
  assertEquals([st.json.team.users.length, st.json.branding.title], [1, "Kept"]);
  t.close();
});

Deno.test("admin actions land in the audit log", async () => {
  const { t, admin } = await setup();
  await admin.req("POST", "/api/admin/pause", { paused: true });
  await admin.req("PUT", "/api/admin/rate", { admitPerSecond: 3 });
  const r = await admin.req("GET", "/api/admin/audit");
  const text = JSON.stringify(r.json);
  assert(text.includes("queue.pause") && text.includes("queue.rate"), text);
  t.close();
});

Deno.test("admin queues: creation is capped", async () => {
  const { t, admin } = await setup();
  for (let i = 1; i < MAX_QUEUES; i++) await t.engine.ensureQueues([`q${i}`]);
  const r = await admin.req("POST", "/api/admin/queues", { name: "one-too-many" });
  assertEquals([r.status, r.json.error.details.fields[0].path], [400, "name"]);
  assertEquals((await admin.req("POST", "/api/admin/queues", { name: "q1" })).status, 200);
  assertEquals((await t.engine.queueNames()).length, MAX_QUEUES);
  t.close();
});

Deno.test("admin pause: the webhook fires only when the state changes", async () => {
  const { t, admin } = await setup();
  const events: unknown[] = [];
  t.services.events = { emit: (e, q, d) => Promise.resolve(void events.push([e, q, d])) };
  await admin.req("POST", "/api/admin/pause", { paused: true });
  await admin.req("POST", "/api/admin/pause", { paused: true });
  await admin.req("POST", "/api/admin/pause", { paused: false });
  // The operator endpoint goes through the same engine hook.
  await admin.req("POST", "/pause", { queue: "default", paused: false });
  await admin.req("POST", "/pause", { queue: "default", paused: true });
  assertEquals(events, [
    ["pause", "default", { paused: true }],
    ["pause", "default", { paused: false }],
    ["pause", "default", { paused: true }],
  ]);
  t.close();
});
