import { keys } from "../lib/store/keys.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { HealthMonitor } from "../lib/access/health.ts";
import { flappingOrigin, holdFirstRead, servedApp } from "./access_helpers.ts";
import { startReceiver } from "./fixtures/https_receiver.ts";
import { makeApp } from "./helpers.ts";

// The origin health throttle's admin API, webhook, shared claim and tick wiring.

Deno.test("health: invalid config is 400 bad_request and changes nothing", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const url = "https://shop.example.com/health";
  const bad: [unknown, string][] = [
    [{ enabled: true }, "url"],
    [{ enabled: true, url: "https://user:pw@shop.example.com/" }, "url"],
    [{ enabled: true, url: "ftp://shop.example.com/" }, "url"],
    [{ enabled: true, url, intervalSeconds: 4 }, "intervalSeconds"],
    [{ enabled: true, url, intervalSeconds: 3601 }, "intervalSeconds"],
    [{ enabled: true, url, timeoutMs: 99 }, "timeoutMs"],
    [{ enabled: true, url, intervalSeconds: 5, timeoutMs: 5000 }, "timeoutMs"],
    [{ enabled: true, url, failures: 0 }, "failures"],
    [{ enabled: true, url, recoveries: 21 }, "recoveries"],
    [{ enabled: true, url, override: "healthy" }, "enabled"],
    [{ override: "maybe" }, "override"],
    [{ url }, "enabled"],
    [{}, "enabled"],
    // A misspelt key is refused, not ignored (the config would be saved without the override).
    [{ enabled: true, url, overide: "unhealthy" }, ""],
  ];
  for (const [body, field] of bad) {
    const r = await client.req("PUT", "/api/admin/health", body);
    assertEquals([r.status, r.json.error.code], [400, "bad_request"], JSON.stringify(body));
    assertEquals(r.json.error.details.fields[0].path, field, JSON.stringify(body));
  }
  assertEquals((await t.kv.get(keys.health())).versionstamp, null);
  const ok = await client.req("PUT", "/api/admin/health", { enabled: true, url });
  assertEquals(ok.json.config, {
    enabled: true,
    url,
    intervalSeconds: 10,
    timeoutMs: 2000,
    failures: 3,
    recoveries: 2,
    updatedAt: t.clock.now(),
  });
  t.close();
});

Deno.test("health: saving the config emits the `health` webhook; an override does not", async () => {
  const rx = await startReceiver();
  const t = await makeApp();
  t.services.fetch = rx.fetch;
  const { client } = await adminClient(t);
  try {
    await client.req("PUT", "/api/admin/webhooks", {
      enabled: true,
      url: rx.url,
      events: ["health"],
    });
    const url = "https://shop.example.com/health";
    assertEquals(
      (await client.req("PUT", "/api/admin/health", { enabled: true, url })).status,
      200,
    );
    await client.req("PUT", "/api/admin/health", { override: "unhealthy" });
    await client.req("PUT", "/api/admin/health", { enabled: false });
    await t.services.webhooks.idle();
    const got = rx.received.map((r) => JSON.parse(r.body));
    assertEquals(got.map((p) => [p.event, p.queue, p.detail]), [
      ["health", "default", { enabled: true, url }],
      ["health", "default", { enabled: false, url }],
    ]);
    const audit = await client.req("GET", "/api/admin/audit");
    const saved = audit.json.entries.find((e: { action: string }) => e.action === "health.config");
    assertEquals(saved.detail.host, "shop.example.com");
  } finally {
    await t.services.webhooks.idle();
    t.close();
    await rx.close();
  }
});

Deno.test("health: two instances sharing one KV probe once per round", async () => {
  const origin = flappingOrigin();
  const kv = await Deno.openKv(":memory:");
  const a = await servedApp({}, { kv });
  const b = await servedApp({}, { kv, clock: a.clock });
  try {
    await a.services.access.health.saveConfig({ enabled: true, url: origin.url, failures: 2 });
    origin.set(500);
    for (let round = 1; round <= 3; round++) {
      const ran = await Promise.all([
        a.services.access.health.maybeProbe(),
        b.services.access.health.maybeProbe(),
      ]);
      assertEquals(ran.filter(Boolean).length, 1, `round ${round}: ${ran}`);
      assertEquals(origin.seen, round);
      a.clock.advance(10_000);
    }
    // Whoever probed, both see the shared state (and the queue both serve is paused).
    a.clock.advance(1000);
    assertEquals((await b.services.access.health.snapshot()).consecutiveFailures, 3);
    assertEquals((await b.engine.ctx.readSettings("default"))!.healthPaused, true);
  } finally {
    kv.close();
    await origin.close();
  }
});

Deno.test("health: a snapshot read begun before a write never replaces the one read after it", async () => {
  const a = await servedApp();
  const { kv, release } = holdFirstRead(a.kv);
  const events = { emit: () => Promise.resolve() };
  const deps = {
    clock: a.clock,
    engine: a.engine,
    fetch: globalThis.fetch,
    config: a.services.config,
    log: () => {},
  };
  const health = new HealthMonitor({ ...deps, kv, events });
  const stale = health.snapshot(); // reads "unmonitored", then waits
  await health.setOverride("unhealthy");
  assertEquals((await health.snapshot()).state, "unhealthy", "read after the write");
  release();
  assertEquals((await stale).state, "unmonitored", "the early caller gets what it read");
  assertEquals((await health.snapshot()).state, "unhealthy", "the cache keeps the newer read");
  a.kv.close();
});

Deno.test("health: the admission tick drives the probe", async () => {
  const t = await makeApp();
  let calls = 0;
  t.services.access.health.maybeProbe = () => (calls++, Promise.resolve(false));
  await t.engine.tick("default");
  assertEquals(calls, 1, "a tick this instance ran asks for a probe round");
  await t.engine.tick("default");
  assertEquals(calls, 1, "a tick already run this second does nothing");
  t.close();
});

Deno.test("health: an override works without probing and holds queues created later", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const r = await client.req("PUT", "/api/admin/health", { override: "unhealthy" });
  assertEquals([r.status, r.json.config.enabled, r.json.snapshot.state], [200, false, "unhealthy"]);
  assertEquals((await t.engine.ctx.readSettings("default"))!.healthPaused, true);
  await t.engine.ensureQueues(["later"]);
  t.clock.advance(1000);
  await t.services.access.health.maybeProbe();
  assertEquals((await t.engine.ctx.readSettings("later"))!.healthPaused, true);
  await client.req("PUT", "/api/admin/health", { override: null });
  for (const q of ["default", "later"]) {
    assertEquals((await t.engine.ctx.readSettings(q))!.healthPaused, false, q);
  }
  t.close();
});

Deno.test("access settings survive a factory reset (lists what it clears)", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  await client.req("PUT", "/api/admin/bypass", { allowlistText: "203.0.113.7" });
  await client.req("PUT", "/api/admin/geo-block", {
    enabled: true,
    countriesText: "RU",
    ttlHours: 1,
  });
  await client.req("PUT", "/api/admin/health", { enabled: false, url: "https://shop.example/" });
  const reset = await t.app.request("/api/admin/reset", {
    method: "POST",
    headers: { authorization: `Bearer ${t.config.TOKEN_SECRET}` },
  });
  assertEquals(reset.status, 200);
  for (const k of [keys.bypass(), keys.geoBlock(), keys.health()]) {
    assert((await t.kv.get(k)).value !== null, `${k.join("/")} kept`);
  }
  t.close();
});
