/**
 * The session settings through the admin API (bounds, partial changes, unknown queue), the
 * session figures in `/metrics` (JSON and Prometheus), and `noteSessionEnd`, the tick's part:
 * how each ended session is counted once, in the tick's own commit.
 */
import { noteSessionEnd, readSessionStats, sessionMetrics } from "../lib/session/stats.ts";
import type { Visitor } from "../lib/queue/types.ts";
import { assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { operator } from "./helpers.ts";
import { admittedVisitor, countedApp, setSessions } from "./session_helpers.ts";

Deno.test("admin sessions API: read, set, partial change, bounds and unknown queue refused", async () => {
  const { t } = await countedApp();
  const { client: c } = await adminClient(t);
  const got = await c.req("GET", "/api/admin/sessions");
  assertEquals(got.status, 200);
  assertEquals(got.json, {
    queue: "default",
    sessionMode: "fixed",
    sessionIdleSeconds: 300,
    sessionMaxSeconds: null,
    renewalIntervalSeconds: 60,
  });
  const put = await c.req("PUT", "/api/admin/sessions", {
    sessionMode: "sliding",
    sessionIdleSeconds: 120,
    sessionMaxSeconds: 1800,
  });
  assertEquals(put.status, 200);
  assertEquals(put.json.renewalIntervalSeconds, 24);
  const part = await c.req("PUT", "/api/admin/sessions", { sessionMaxSeconds: null });
  assertEquals([part.json.sessionMode, part.json.sessionIdleSeconds, part.json.sessionMaxSeconds], [
    "sliding",
    120,
    null,
  ]);
  for (
    const bad of [
      { sessionIdleSeconds: 59 },
      { sessionIdleSeconds: 3601 },
      { sessionIdleSeconds: 90.5 },
      { sessionMaxSeconds: 10 },
      { sessionMode: "rolling" },
    ]
  ) {
    const r = await c.req("PUT", "/api/admin/sessions", bad);
    assertEquals(r.status, 400, JSON.stringify(bad));
    assertEquals(r.json.error.code, "bad_request");
  }
  assertEquals((await c.req("GET", "/api/admin/sessions?queue=nope")).status, 404);
  assertEquals((await c.req("GET", "/api/admin/sessions")).json.sessionIdleSeconds, 120);
  t.close();
});

Deno.test("/metrics: session figures in JSON and in the Prometheus text", async () => {
  const { t } = await countedApp();
  await setSessions(t, { sessionIdleSeconds: 60 });
  const v = await admittedVisitor(t);
  t.clock.advance(30_000);
  const release = await t.app.request("/release", {
    method: "POST",
    headers: { authorization: `Bearer ${v.token}` },
  });
  assertEquals(release.status, 200);
  const json = await (await t.app.request("/metrics?queue=default", {
    headers: operator(t.config),
  })).json();
  assertEquals(json.sessions, {
    sessionMode: "sliding",
    sessionsRenewed: 0,
    sessionsReleased: 1,
    sessionsEndedIdle: 0,
    sessionsEndedCap: 0,
    sessionsExpired: 0,
    averageSessionSeconds: 30,
  });
  const text = await (await t.app.request("/metrics?format=prometheus", {
    headers: operator(t.config),
  })).text();
  for (
    const line of [
      'tollgate_queue_sessions_ended_total{queue="default",reason="released"} 1',
      'tollgate_queue_sessions_renewed_total{queue="default"} 0',
      'tollgate_queue_average_session_seconds{queue="default"} 30',
      'tollgate_queue_session_mode{queue="default",mode="sliding"} 1',
    ]
  ) assertEquals(text.includes(line), true, line);
  t.close();
});

Deno.test("noteSessionEnd: idle, cap and expiry each counted once, with the session's length", async () => {
  const kv = await Deno.openKv(":memory:");
  const at = 1_000_000;
  const base: Visitor = {
    id: "v1",
    seq: 1,
    joinedAt: at,
    state: "entered",
    nextCheckAt: 0,
    deadline: 0,
    admittedAt: at,
    enteredAt: at,
  };
  const cases: Visitor[] = [
    { ...base, until: at + 200_000, seenAt: at + 100_000 }, // idle
    { ...base, until: at + 600_000, seenAt: at + 500_000, capAt: at + 600_000 }, // cap
    { ...base, until: at + 900_000 }, // never renewed: its token's end
    { ...base, state: "admitted", until: at + 60_000 }, // not entered: not a session
  ];
  for (const v of cases) {
    const op = kv.atomic();
    noteSessionEnd(op, "q", v);
    await op.commit();
  }
  const c = await readSessionStats(kv, "q");
  assertEquals([c.idle, c.cap, c.expired, c.lengthCount], [1, 1, 1, 3]);
  assertEquals(c.lengthMs, 200_000 + 600_000 + 900_000);
  assertEquals((await sessionMetrics(kv, "q")).averageSessionSeconds, 566.7);
  kv.close();
});
