import { assert, assertEquals } from "./assert.ts";
import { flappingOrigin, pausedQueues, watched } from "./access_helpers.ts";
import { operator } from "./helpers.ts";

// The origin health throttle's probing against a real (loopback) origin whose answers flip.

Deno.test("health: N failures pause every queue, M successes resume; a success resets the count", async () => {
  const origin = flappingOrigin();
  const { t, health, round } = await watched(origin);
  try {
    assert(await health.maybeProbe(), "due at once after a save");
    assert(!(await health.maybeProbe()), "not again before the interval");
    assertEquals(origin.seen, 1);
    origin.set(500);
    assertEquals((await round()).consecutiveFailures, 1);
    assertEquals((await round()).consecutiveFailures, 2);
    origin.set(204);
    const reset = await round();
    assertEquals([reset.state, reset.consecutiveFailures, reset.consecutiveSuccesses], [
      "healthy",
      0,
      1,
    ]);
    origin.set(503);
    await round();
    await round();
    assertEquals(await pausedQueues(t), [false, false], "two failures are not three");
    const down = await round();
    assertEquals([down.state, down.consecutiveFailures], ["unhealthy", 3]);
    assertEquals(down.lastError, `${origin.host} answered 503`);
    assertEquals(await pausedQueues(t), [true, true], "every queue health-paused");
    // capacity at once needs a queue that is not health-paused.
    const join = await t.app.request("/join", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ queue: "default" }),
    });
    assertEquals(join.status, 202);
    origin.set(302); // a redirect is an answer
    assertEquals((await round()).state, "unhealthy", "one success is not two");
    const up = await round();
    assertEquals([up.state, up.consecutiveSuccesses, up.lastError], ["healthy", 2, null]);
    assertEquals(await pausedQueues(t), [false, false], "resumed");
    assertEquals(origin.seen, 9);
  } finally {
    t.close();
    await origin.close();
  }
});

Deno.test("health: an override forces a state until cleared; clearing returns to the probes", async () => {
  const origin = flappingOrigin();
  const { t, client, round } = await watched(origin, { failures: 1 });
  try {
    await round();
    const forced = await client.req("PUT", "/api/admin/health", { override: "unhealthy" });
    assertEquals([forced.status, forced.json.override, forced.json.snapshot.state], [
      200,
      "unhealthy",
      "unhealthy",
    ]);
    assertEquals(await pausedQueues(t), [true, true], "applied at once");
    const meanwhile = await round();
    assertEquals([meanwhile.state, meanwhile.probed], ["unhealthy", "healthy"], "probes go on");
    assertEquals(await pausedQueues(t), [true, true], "a good probe does not undo the override");
    const cleared = await client.req("PUT", "/api/admin/health", { override: null });
    assertEquals([cleared.json.override, cleared.json.snapshot.state], [null, "healthy"]);
    assertEquals(await pausedQueues(t), [false, false]);

    origin.set(500);
    await client.req("PUT", "/api/admin/health", { override: "healthy" });
    assertEquals((await round()).state, "healthy", "forced healthy while the probes fail");
    assertEquals(await pausedQueues(t), [false, false]);
    await client.req("PUT", "/api/admin/health", { override: null });
    assertEquals(await pausedQueues(t), [true, true], "back to what the probes say");
    const audit = await client.req("GET", "/api/admin/audit");
    assertEquals(
      audit.json.entries.filter((e: { action: string }) => e.action === "health.override").length,
      4,
    );
  } finally {
    t.close();
    await origin.close();
  }
});

Deno.test("health: timeouts and network errors fail; errors name the host and the reason only", async () => {
  const origin = flappingOrigin();
  const { t, round } = await watched(origin, { timeoutMs: 100, intervalSeconds: 10 });
  try {
    origin.set("hang");
    const slow = await round();
    assertEquals([slow.consecutiveFailures, slow.lastError], [
      1,
      `${origin.host}: no answer within 100 ms`,
    ]);
    await origin.close();
    const gone = await round();
    assertEquals(gone.consecutiveFailures, 2);
    // The reason, not only the host (it said "could not reach" alone); never the URL's path.
    assert(
      gone.lastError?.startsWith(`could not reach ${origin.host}: connection refused (`),
      String(gone.lastError),
    );
    const metrics = await t.app.request("/metrics", { headers: operator(t.config) });
    const text = await metrics.text();
    assert(!text.includes("s3cret") && !text.includes("/healthz"), text);
    assertEquals(JSON.parse(text).queues[0].health.lastError, gone.lastError);
  } finally {
    t.close();
    await origin.close();
  }
});

Deno.test("health: the snapshot appears in operator /metrics and the admin metrics", async () => {
  const origin = flappingOrigin();
  const { t, client, round } = await watched(origin, { failures: 1, recoveries: 1 });
  try {
    origin.set(500);
    await round();
    const expected = {
      state: "unhealthy",
      probed: "unhealthy",
      override: null,
      consecutiveFailures: 1,
      consecutiveSuccesses: 0,
      lastCheckedAt: t.clock.now(),
      lastError: `${origin.host} answered 500`,
      config: {
        enabled: true,
        host: origin.host,
        intervalSeconds: 10,
        timeoutMs: 2000,
        failures: 1,
        recoveries: 1,
      },
    };
    const one = await t.app.request("/metrics?queue=other", { headers: operator(t.config) });
    const m = await one.json();
    assertEquals([m.health, m.healthPaused], [expected, true]);
    const admin = await client.req("GET", "/api/admin/metrics");
    assertEquals(admin.json.health, expected);
    assertEquals(admin.json.queues[0].health, expected);
    const read = await client.req("GET", "/api/admin/health");
    assertEquals(read.json.config.url, origin.url, "the admin sees the URL it saved");
    assertEquals(read.json.snapshot, expected);
  } finally {
    t.close();
    await origin.close();
  }
});

Deno.test("health: disabling forgets the probes and resumes admissions", async () => {
  const origin = flappingOrigin();
  const { t, client, round } = await watched(origin, { failures: 1 });
  try {
    origin.set(500);
    await round();
    assertEquals(await pausedQueues(t), [true, true]);
    const off = await client.req("PUT", "/api/admin/health", { enabled: false });
    assertEquals([off.json.config.enabled, off.json.config.url], [false, origin.url]);
    assertEquals(off.json.snapshot.state, "unmonitored");
    assertEquals(await pausedQueues(t), [false, false]);
    const seen = origin.seen;
    t.clock.advance(60_000);
    assert(!(await t.services.access.health.maybeProbe()), "no probes while disabled");
    assertEquals(origin.seen, seen);
  } finally {
    t.close();
    await origin.close();
  }
});
