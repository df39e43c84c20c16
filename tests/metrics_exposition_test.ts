/**
 * GET /metrics in the Prometheus formats: negotiation, the read-only METRICS_TOKEN, the values
 * (against the JSON metrics and the engine), bounded label sets and output, freshness across
 * instances, and the per-instance counters of requests, refusals, commits and ticks.
 */
import { FakeClock } from "../lib/clock.ts";
import { ConfigError, parseEnv } from "../lib/config.ts";
import { AppError } from "../lib/errors.ts";
import { MAX_EXPOSED_QUEUES, negotiateFormat } from "../lib/metrics/exposition.ts";
import { instanceMetrics } from "../lib/metrics/instance.ts";
import { Counter, ExpositionWriter, Histogram, MAX_SERIES } from "../lib/metrics/registry.ts";
import { retryCommit } from "../lib/store/commit.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { Client, makeApp, operator } from "./helpers.ts";
import { parseSamples, scrape, valueOf } from "./metrics_helpers.ts";

const TOKEN = "metrics-token-for-tests-0123";
const BEARER = { authorization: `Bearer ${TOKEN}` };
const PROM_ACCEPT = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;" +
  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

Deno.test("negotiateFormat: the query wins, Accept must name a text format, */* stays JSON", () => {
  assertEquals(negotiateFormat("prometheus", "application/json"), "prometheus");
  assertEquals(negotiateFormat("json", PROM_ACCEPT), "json");
  assertEquals(negotiateFormat(undefined, PROM_ACCEPT), "openmetrics");
  assertEquals(negotiateFormat(undefined, "text/plain; version=0.0.4"), "prometheus");
  assertEquals(negotiateFormat(undefined, "text/plain;version=0.0.4;q=0.9,*/*"), "prometheus");
  // Prometheus' preference order is honoured by q, not by position.
  assertEquals(
    negotiateFormat(undefined, "text/plain;version=0.0.4;q=1,application/openmetrics-text;q=0.5"),
    "prometheus",
  );
  for (const a of ["*/*", "text/plain", "application/json", "", "text/html,*/*;q=0.8"]) {
    assertEquals(negotiateFormat(undefined, a), "json", a);
  }
  assertEquals(negotiateFormat(undefined, "application/openmetrics-text;q=0"), "json");
  assertEquals(negotiateFormat(undefined, undefined), "json");
});

Deno.test("METRICS_TOKEN: validated, hidden in errors, never equal to TOKEN_SECRET", () => {
  assertEquals(parseEnv({ METRICS_TOKEN: TOKEN }).METRICS_TOKEN, TOKEN);
  for (const bad of ["short", "has a space in it 0123456"]) {
    try {
      parseEnv({ METRICS_TOKEN: bad });
      throw new Error("accepted " + bad);
    } catch (e) {
      assert(e instanceof ConfigError, String(e));
      assert(e.message.startsWith("invalid METRICS_TOKEN=(hidden)"), e.message);
      assert(!e.message.includes(bad), "the value is not shown");
    }
  }
  const same = "s".repeat(40);
  try {
    parseEnv({ METRICS_TOKEN: same, TOKEN_SECRET: same });
    throw new Error("accepted TOKEN_SECRET as METRICS_TOKEN");
  } catch (e) {
    assert(e instanceof ConfigError && e.message.includes("must differ from TOKEN_SECRET"));
  }
});

Deno.test("GET /metrics: formats by query and Accept, JSON stays the default", async () => {
  const t = await makeApp({ METRICS_TOKEN: TOKEN });
  try {
    // Three visitors (one client would resume its own place).
    for (let i = 0; i < 3; i++) await new Client(t.app).join();
    const json = await scrape(t, "", { ...BEARER, accept: "*/*" });
    assertEquals(json.status, 200);
    assert(json.type.startsWith("application/json"), json.type);
    const jm = JSON.parse(json.text).queues[0];

    const text = await scrape(t, "?format=prometheus", BEARER);
    assertEquals(text.type, "text/plain; version=0.0.4; charset=utf-8");
    assert(!text.text.includes("# EOF"));
    assert(text.text.includes("# TYPE tollgate_queue_admitted_total counter"));
    const s = parseSamples(text.text);
    const q = { queue: "default" };
    assertEquals(valueOf(s, "tollgate_queue_entered", q), jm.entered);
    assertEquals(valueOf(s, "tollgate_queue_capacity", q), jm.capacity);
    assertEquals(valueOf(s, "tollgate_queue_open_slots", q), jm.openSlots);
    assertEquals(valueOf(s, "tollgate_queue_admitted_total", q), 3);
    assertEquals(valueOf(s, "tollgate_queue_admit_per_second", q), jm.admitPerSecond);
    assertEquals(valueOf(s, "tollgate_queue_admission_mode", { ...q, mode: "queue" }), 1);
    assertEquals(valueOf(s, "tollgate_queue_admission_mode", { ...q, mode: "lottery" }), 0);
    assertEquals(valueOf(s, "tollgate_queues"), 1);

    const om = await scrape(t, "", { ...BEARER, accept: PROM_ACCEPT });
    assertEquals(om.type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
    assert(om.text.endsWith("# EOF\n"), "OpenMetrics ends with # EOF");
    // OpenMetrics names a counter family without `_total`; its samples keep it.
    assert(om.text.includes("# TYPE tollgate_queue_admitted counter"));
    assertEquals(valueOf(parseSamples(om.text), "tollgate_queue_admitted_total", q), 3);

    const one = await scrape(t, "?queue=default&format=openmetrics", BEARER);
    assertEquals(valueOf(parseSamples(one.text), "tollgate_queue_waiting", q), 0);
    assert(!one.text.includes("tollgate_queues "), "one queue: no service-wide queue count");
  } finally {
    t.close();
  }
});

Deno.test("GET /metrics: bad input is a clear error, never a 500", async () => {
  const t = await makeApp({ METRICS_TOKEN: TOKEN });
  try {
    const bad = await scrape(t, "?format=xml", BEARER);
    assertEquals(bad.status, 400);
    const err = JSON.parse(bad.text).error;
    assertEquals(err.code, "bad_request");
    assert(err.message.includes("format"), err.message);
    const unknown = await scrape(t, "?queue=nope&format=prometheus", BEARER);
    assertEquals(unknown.status, 404);
    assertEquals(JSON.parse(unknown.text).error.code, "unknown_queue");
    const badName = await scrape(t, "?queue=Bad%20Name&format=prometheus", BEARER);
    assertEquals(badName.status, 400);
  } finally {
    t.close();
  }
});

Deno.test("METRICS_TOKEN opens GET /metrics only; no credential is 401 in every format", async () => {
  const t = await makeApp({ METRICS_TOKEN: TOKEN });
  try {
    for (const q of ["", "?format=prometheus", "?format=openmetrics"]) {
      const none = await scrape(t, q);
      assertEquals(none.status, 401, q);
      assertEquals(JSON.parse(none.text).error.code, "unauthorized");
      assertEquals((await scrape(t, q, { authorization: `Bearer ${TOKEN}x` })).status, 401);
      assertEquals((await scrape(t, q, BEARER)).status, 200, q);
      assertEquals((await scrape(t, q, operator(t.config))).status, 200, q);
    }
    // Only as a bearer: the operator header does not take it.
    assertEquals((await scrape(t, "", { "x-service-operator": TOKEN })).status, 401);
    const writes: [string, string, unknown][] = [
      ["POST", "/admit", { queue: "default", count: 1 }],
      ["POST", "/pause", { queue: "default", paused: true }],
      ["POST", "/mode", { queue: "default", mode: "lottery" }],
      ["GET", "/api/admin/state", undefined],
      ["POST", "/api/admin/reset", {}],
    ];
    for (const [method, path, body] of writes) {
      const res = await t.fetch(
        new Request(`http://tollgate.test${path}`, {
          method,
          headers: { ...BEARER, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      assertEquals(res.status, 401, `${method} ${path}`);
      await res.body?.cancel();
    }
    assertEquals((await t.engine.settings("default")).paused, false, "nothing changed");
    assertEquals((await t.engine.settings("default")).mode, "queue");
  } finally {
    t.close();
  }
});

Deno.test("GET /metrics without METRICS_TOKEN set: an empty or any bearer is refused", async () => {
  const t = await makeApp();
  try {
    assertEquals((await scrape(t, "?format=prometheus", { authorization: "Bearer " })).status, 401);
    assertEquals((await scrape(t, "?format=prometheus", BEARER)).status, 401);
  } finally {
    t.close();
  }
});

Deno.test("a huge number of queues: the exposition lists a bounded number, ?queue= reaches the rest", async () => {
  const t = await makeApp({ METRICS_TOKEN: TOKEN });
  try {
    const names = Array.from(
      { length: MAX_EXPOSED_QUEUES + 20 },
      (_, i) => `q${String(i).padStart(4, "0")}`,
    );
    await t.engine.ensureQueues(names);
    const all = await scrape(t, "?format=prometheus", BEARER);
    assertEquals(all.status, 200);
    const s = parseSamples(all.text);
    assertEquals(valueOf(s, "tollgate_queues"), names.length + 1);
    assertEquals(valueOf(s, "tollgate_queues_omitted"), 21);
    const listed = new Set(
      s.filter((x) => x.name === "tollgate_queue_waiting").map((x) => x.labels.queue),
    );
    assertEquals(listed.size, MAX_EXPOSED_QUEUES);
    // Sorted by name: `default` and q0000..q0498 are listed, q0499..q0519 are not.
    assert(listed.has("default") && listed.has("q0498") && !listed.has("q0499"));
    const last = await scrape(t, "?format=prometheus&queue=q0519", BEARER);
    assertEquals(valueOf(parseSamples(last.text), "tollgate_queue_waiting", { queue: "q0519" }), 0);
  } finally {
    t.close();
  }
});

Deno.test("values are at most a second old on an instance that did not see the change", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const a = await makeApp({ METRICS_TOKEN: TOKEN }, { kv, clock });
  const b = await makeApp({ METRICS_TOKEN: TOKEN }, { kv, clock });
  try {
    await a.engine.setPaused("default", true);
    clock.advance(1000);
    const waiting = async () => {
      const s = parseSamples((await scrape(b, "?format=prometheus", BEARER)).text);
      const age = valueOf(s, "tollgate_queue_state_age_seconds", { queue: "default" })!;
      assert(age >= 0 && age <= 1, `state age ${age}`);
      return valueOf(s, "tollgate_queue_waiting", { queue: "default" });
    };
    assertEquals(await waiting(), 0);
    for (let i = 0; i < 4; i++) assertEquals((await new Client(a.app).join()).status, 202);
    clock.advance(999);
    assertEquals(await waiting(), 0, "B still shows its view, 999 ms old");
    clock.advance(1);
    assertEquals(await waiting(), 4, "a second later B shows the store");
  } finally {
    a.close();
  }
});

Deno.test("per-instance counters: requests by bounded route, refusals by cause, ticks, tick lag", async () => {
  const t = await makeApp({ METRICS_TOKEN: TOKEN, MAX_WAITING_VISITORS: 1 });
  try {
    const read = async () => parseSamples((await scrape(t, "?format=prometheus", BEARER)).text);
    const before = await read();
    const count = (s: typeof before, labels: Record<string, string>) =>
      valueOf(s, "tollgate_http_requests_total", labels) ?? 0;
    const refused = (s: typeof before) =>
      valueOf(s, "tollgate_join_refusals_total", { queue: "default", cause: "queue_full" }) ?? 0;
    await t.engine.setPaused("default", true);
    const c = new Client(t.app);
    // Through the served fetch, as Deno.serve runs it (the fast join path).
    const join = async () => {
      const r = await t.fetch(
        new Request("http://tollgate.test/join", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ queue: "default" }),
        }),
      );
      await r.body?.cancel();
      return r.status;
    };
    assertEquals(await join(), 202);
    assertEquals(await join(), 503);
    assertEquals(await join(), 503);
    await c.join("no-such-queue");
    const odd = await t.fetch(new Request("http://tollgate.test/some/visitor/chosen/path?x=1"));
    await odd.body?.cancel();
    await t.engine.tick("default");
    const after = await read();
    assertEquals(
      count(after, { route: "join", code: "202" }) - count(before, { route: "join", code: "202" }),
      1,
    );
    assertEquals(
      count(after, { route: "join", code: "503" }) - count(before, { route: "join", code: "503" }),
      2,
    );
    assert(count(after, { route: "other", code: "404" }) >= 1);
    assertEquals(refused(after) - refused(before), 2);
    // An unknown queue is not a refusal, and its name never becomes a label.
    assert(!after.some((x) => x.labels.queue === "no-such-queue"));
    assert(!after.some((x) => Object.values(x.labels).some((v) => v.includes("chosen"))));
    const routes = new Set(
      after.filter((x) => x.name === "tollgate_http_requests_total").map((x) => x.labels.route),
    );
    for (const r of routes) assert(/^[a-z_]+$/.test(r), `route label ${r}`);
    assert((valueOf(after, "tollgate_ticks_total", { result: "ran" }) ?? 0) >= 1);
    assert((valueOf(after, "tollgate_joins_numbered_total", { queue: "default" }) ?? 0) >= 1);
    assertEquals(valueOf(after, "tollgate_queue_tick_lag_seconds", { queue: "default" }), 0);
    assert(
      (valueOf(after, "tollgate_http_request_duration_seconds_count", { route: "join" }) ?? 0) >= 3,
    );
    t.clock.advance(7000);
    const later = await read();
    assertEquals(valueOf(later, "tollgate_queue_tick_lag_seconds", { queue: "default" }), 7);
    assertEquals(valueOf(later, "tollgate_queue_paused", { queue: "default" }), 1);
    assertEquals(valueOf(later, "tollgate_queue_waiting", { queue: "default" }), 1);
  } finally {
    t.close();
  }
});

Deno.test("KV commit metrics: conflicts retried, failures counted, domain refusals are not", async () => {
  const m = instanceMetrics;
  const conflicts0 = m.commitConflicts.value(["obs_test"]);
  const failures0 = m.commitFailures.value(["obs_test"]);
  let n = 0;
  assertEquals(
    await retryCommit(() => Promise.resolve(++n < 3 ? null : "done"), "obs test"),
    "done",
  );
  assertEquals(m.commitConflicts.value(["obs_test"]) - conflicts0, 2);
  await assertRejects(
    () => retryCommit(() => Promise.reject(new Error("disk")), "obs test"),
    "disk",
  );
  assertEquals(m.commitFailures.value(["obs_test"]) - failures0, 1);
  await assertRejects(() =>
    retryCommit(() => Promise.reject(new AppError(404, "not_in_queue", "gone")), "obs test")
  );
  assertEquals(m.commitFailures.value(["obs_test"]) - failures0, 1, "a refusal is no failure");
  await assertRejects(
    () => retryCommit(() => Promise.resolve(null), "obs test", { attempts: 3 }),
    "gave up after 3",
  );
  assertEquals(m.commitFailures.value(["obs_test"]) - failures0, 2);
});

Deno.test("oldest wait follows the head of the line (its arrival time is read once per head)", async () => {
  const t = await makeApp({ METRICS_TOKEN: TOKEN });
  try {
    await t.engine.setPaused("default", true);
    await new Client(t.app).join();
    await t.engine.sequence("default"); // numbered, as each tick does first (0.8.0)
    t.clock.advance(10_000);
    await new Client(t.app).join();
    await t.engine.sequence("default");
    t.clock.advance(10_000);
    const oldest = async () => {
      const s = parseSamples((await scrape(t, "?format=prometheus", BEARER)).text);
      return valueOf(s, "tollgate_queue_oldest_wait_seconds", { queue: "default" });
    };
    assertEquals(await oldest(), 20);
    t.clock.advance(5_000);
    assertEquals(await oldest(), 25, "the same head, older");
    await t.engine.setPaused("default", false);
    assertEquals(await t.engine.admit("default", 1), 1);
    t.clock.advance(1_000);
    assertEquals(await oldest(), 16, "the second arrival is the head now");
  } finally {
    t.close();
  }
});

Deno.test("a per-client limit refusal counts under its reason, client_limit", async () => {
  const t = await makeApp({ METRICS_TOKEN: TOKEN, JOINS_PER_CLIENT_PER_MINUTE: 1 });
  try {
    const refused = async () =>
      valueOf(
        parseSamples((await scrape(t, "?format=prometheus", BEARER)).text),
        "tollgate_join_refusals_total",
        { queue: "default", cause: "client_limit" },
      ) ?? 0;
    const before = await refused();
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await new Client(t.app).join()).status);
    assertEquals(statuses, [200, 429]);
    assertEquals(await refused() - before, 1);
    // The shared store's last-hour count of the same refusal (what every instance reports; the
    // guard counts are cached for two seconds).
    t.clock.advance(2000);
    const s = parseSamples((await scrape(t, "?format=prometheus", BEARER)).text);
    assertEquals(
      valueOf(s, "tollgate_queue_join_guard_events_last_hour", {
        queue: "default",
        event: "rate_limited",
      }),
      1,
    );
  } finally {
    t.close();
  }
});

Deno.test("registry: a family keeps at most MAX_SERIES series; label values are escaped", () => {
  const c = new Counter("x_things_total", "Things.", ["k"]);
  for (let i = 0; i <= MAX_SERIES; i++) c.inc([`v${i}`]);
  assertEquals([...c.series.entries()].length, MAX_SERIES);
  assertEquals(c.series.dropped, 1);
  const h = new Histogram("x_seconds", "Seconds.", ["k"], [0.1, 1]);
  for (const v of [0.05, 0.1, 0.5, 3]) h.observe(['a"b\\c\nd'], v);
  const w = new ExpositionWriter("openmetrics");
  w.histogramOf(h);
  w.counter("x_done_total", "Done.", [[{}, 2]]);
  const text = w.text();
  assert(text.includes('x_seconds_bucket{k="a\\"b\\\\c\\nd",le="0.1"} 2'), text);
  assert(text.includes('le="1"} 3') && text.includes('le="+Inf"} 4'), "cumulative buckets");
  assert(text.includes("x_seconds_sum{") && text.includes("x_seconds_count{"), text);
  assert(text.includes("# TYPE x_done counter\nx_done_total 2\n# EOF\n"), text);
  const parsed = parseSamples(text.replace("# EOF\n", ""));
  assertEquals(parsed.find((x) => x.name === "x_seconds_count")?.labels.k, 'a"b\\c\nd');
});
