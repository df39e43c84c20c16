/**
 * Room switches through the served handler: the admin API (with its audit entries and its
 * refusals of bad input, which change nothing), a closed room (503 `room_closed` with
 * Retry-After on join, the branded closed page on `/wait`), a passthrough room (admitted at once
 * whatever the line, pause or capacity, and counted), and the Safety Net stepping over an
 * accelerated clock, its state shared by two instances over one store; and both switches through
 * the origin proxy.
 */
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { Client, commitCounter, makeApp, operator, type TestApp } from "./helpers.ts";
import { readTraffic } from "../lib/traffic.ts";
import { passedSlots } from "../lib/room/passthrough.ts";
import { instanceMetrics } from "../lib/metrics/instance.ts";
import { keys } from "../lib/store/keys.ts";
import { startOrigin } from "./origin_helpers.ts";

async function withAdmin(fn: (t: TestApp, admin: Client) => Promise<void>, t?: TestApp) {
  const app = t ?? await makeApp();
  try {
    const { client } = await adminClient(app);
    await fn(app, client);
  } finally {
    if (!t) app.close();
  }
}

const SAFETY = {
  joinsPerMinuteHigh: 5,
  joinsPerMinuteLow: 2,
  holdingHigh: null,
  holdingLow: null,
  calmMinutes: 1,
};

Deno.test("the admin API reads, switches and audits a room; bad input changes nothing", () =>
  withAdmin(async (_t, admin) => {
    const first = await admin.req("GET", "/api/admin/room?queue=default");
    assertEquals(first.status, 200);
    assertEquals([first.json.mode, first.json.effectiveMode], ["normal", "normal"]);

    const closed = await admin.req("PUT", "/api/admin/room", {
      queue: "default",
      mode: "reject",
      closedMessage: "Back at 10:00 with new stock.",
      retryAfterSeconds: 120,
    });
    assertEquals(closed.status, 200, closed.text);
    assertEquals(closed.json.effectiveMode, "reject");

    const bad = [
      [{ mode: "sideways" }, "mode"],
      [{ mode: "auto" }, "safetyNet"],
      [
        { mode: "auto", safetyNet: { ...SAFETY, joinsPerMinuteLow: 9 } },
        "safetyNet.joinsPerMinuteLow",
      ],
      [{ mode: "normal", retryAfterSeconds: 0 }, "retryAfterSeconds"],
    ] as const;
    for (const [body, field] of bad) {
      const res = await admin.req("PUT", "/api/admin/room", { queue: "default", ...body });
      assertEquals(res.status, 400, JSON.stringify(body));
      assertEquals(res.json.error.code, "bad_request");
      const fields = (res.json.error.details.fields ?? res.json.error.details.issues ?? [])
        .map((f: { path: string | string[] }) => Array.isArray(f.path) ? f.path.join(".") : f.path);
      assert(fields.includes(field), `${JSON.stringify(res.json.error)} names ${field}`);
    }
    const after = await admin.req("GET", "/api/admin/room?queue=default");
    assertEquals([after.json.mode, after.json.closedMessage], [
      "reject",
      "Back at 10:00 with new stock.",
    ]);

    const unknown = await admin.req("PUT", "/api/admin/room", { queue: "nope", mode: "normal" });
    assertEquals(unknown.status, 404);

    const audit = await admin.req("GET", "/api/admin/audit");
    const entries = audit.json.entries.filter((e: { action: string }) => e.action === "queue.room");
    assertEquals(entries.length, 1, "one audited switch (refusals are not)");
    assertEquals([entries[0].detail.from, entries[0].detail.mode], ["normal", "reject"]);
  }));

Deno.test("a closed room: 503 room_closed with Retry-After on join, the closed page on /wait", () =>
  withAdmin(async (t, admin) => {
    await admin.req("PUT", "/api/admin/room", {
      mode: "reject",
      closedMessage: "Maintenance until 10:00 UTC.",
      retryAfterSeconds: 90,
    });
    const before = instanceMetrics.roomAdmissions.series.get(["default", "reject"])?.n ?? 0;
    const visitor = new Client(t.app);
    const res = await visitor.join();
    assertEquals(res.status, 503);
    assertEquals(res.json.error.code, "room_closed");
    assertEquals(res.json.error.message, "Maintenance until 10:00 UTC.");
    assertEquals(res.headers.get("retry-after"), "90");
    assertEquals(visitor.cookies.has("tg_ticket"), false, "a refused join sets no cookie");

    const page = await visitor.req("GET", "/wait");
    assertEquals(page.status, 503);
    assertEquals(page.headers.get("retry-after"), "90");
    assert(page.text.includes("Maintenance until 10:00 UTC."), "the operator's text");
    assert(page.text.includes("Closed right now"));
    assertEquals((await t.engine.metrics("default")).waiting, 0);
    const after = instanceMetrics.roomAdmissions.series.get(["default", "reject"])?.n ?? 0;
    assert(after >= before + 2, "refusals counted");

    await admin.req("PUT", "/api/admin/room", { mode: "normal" });
    assertEquals((await new Client(t.app).join()).status, 200, "open again");
  }));

Deno.test("a passthrough room admits at once, paused or full, and counts each admission", () =>
  withAdmin(async (t, admin) => {
    await t.engine.setCapacity("default", 1);
    assertEquals((await new Client(t.app).join()).status, 200); // holds the one slot
    assertEquals((await new Client(t.app).join()).status, 202); // waits
    await t.engine.setPaused("default", true);
    await admin.req("PUT", "/api/admin/room", { mode: "passthrough" });
    for (let i = 0; i < 3; i++) {
      const res = await new Client(t.app).join();
      assertEquals(res.status, 200);
      assertEquals(res.json.status, "admitted");
      assert(res.json.accessToken, "a token at once");
    }
    const m = await t.engine.metrics("default");
    assertEquals([m.waiting, m.holding + m.entered], [1, 1], "the engine's line is untouched");
    // Counted in memory, written at most once a second: readers wait for this instance's counts.
    await t.services.access.hits.idle();
    const now = t.clock.now();
    assertEquals(await passedSlots(t.kv, "default", now, t.config.ACCESS_TOKEN_TTL_SECONDS), 3);
    const rows = await readTraffic(t.kv, "default", now, 60_000);
    const sum = (k: "inflow" | "outflow") => rows.reduce((n, r) => n + r[k], 0);
    assertEquals([sum("inflow"), sum("outflow")], [5, 4], "admissions kept in the traffic");
    // The operator metrics show the switch and the slots, in JSON and for Prometheus.
    const json = await t.app.request("/metrics?queue=default", { headers: operator(t.config) });
    assertEquals((await json.json()).room, {
      mode: "passthrough",
      effectiveMode: "passthrough",
      safetyNetQueueing: null,
      passthroughSlots: 3,
    });
    const prom = await (await t.app.request("/metrics?format=prometheus", {
      headers: operator(t.config),
    })).text();
    assert(prom.includes('tollgate_room_mode{queue="default",mode="passthrough"} 1'), prom);
    assert(prom.includes('tollgate_room_passthrough_slots{queue="default"} 3'));
    assert(prom.includes("tollgate_store_unreachable 0"));
    assert(/tollgate_room_admissions_total\{queue="default",mode="passthrough"\} \d+/.test(prom));
    // The slots passthrough visitors hold end with their tokens.
    t.clock.advance((t.config.ACCESS_TOKEN_TTL_SECONDS + 20) * 1000);
    assertEquals(await passedSlots(t.kv, "default", t.clock.now(), 900), 0);
  }));

Deno.test("a deleted queue takes its switch and path rules with it", () =>
  withAdmin(async (t, admin) => {
    await admin.req("POST", "/api/admin/queues", { name: "sale" });
    await admin.req("PUT", "/api/admin/room", { queue: "sale", mode: "reject" });
    await admin.req("PUT", "/api/admin/path-rules", {
      queue: "sale",
      rules: [{ match: "path", pattern: "/x", action: "bypass" }],
    });
    assertEquals((await admin.req("DELETE", "/api/admin/queues/sale")).status, 200);
    assertEquals((await t.kv.get(keys.roomSwitch("sale"))).value, null);
    assertEquals((await t.kv.get(keys.pathRules("sale"))).value, null);
  }));

Deno.test("queue_all is the effective mode the join engine asks for", () =>
  withAdmin(async (t, admin) => {
    await admin.req("PUT", "/api/admin/room", { mode: "queue_all" });
    assertEquals(await t.services.rooms.effectiveMode("default"), "queue_all");
    assertEquals(t.services.rooms.modeNow("default"), "queue_all");
    const res = await admin.req("GET", "/api/admin/room");
    assertEquals(res.json.effectiveMode, "queue_all");
    // An empty line with free capacity and budget: the join waits all the same.
    const j = await new Client(t.app).join();
    assertEquals([j.status, j.json.status], [202, "waiting"]);
    await admin.req("PUT", "/api/admin/room", { mode: "normal" });
    await t.engine.tick("default");
    t.clock.advance(1000);
    await t.engine.tick("default");
    const m = await t.engine.metrics("default");
    assertEquals(m.holding + m.entered, 1, "normal again: let in by the tick");
  }));

Deno.test("the Safety Net: passthrough until joins cross the threshold, back after calm; every instance agrees", async () => {
  const t = await makeApp();
  // Nobody here checks in: the shortest grace, so a waiter silent for minutes has given up.
  await t.engine.updateSettings("default", (s) => void (s.returnGraceSeconds = 30));
  const other = await makeApp({}, { kv: t.kv, clock: t.clock });
  try {
    const { client: admin } = await adminClient(t);
    const set = await admin.req("PUT", "/api/admin/room", { mode: "auto", safetyNet: SAFETY });
    assertEquals(set.status, 200, set.text);
    assertEquals(set.json.effectiveMode, "passthrough");
    assertEquals(set.json.safetyNetState.queueing, false);
    // A normal join then waits, the one slot being taken: easy to tell apart. (Not a pause: a
    // calm Safety Net yields to a pause, tests/safety_net_closed_test.ts.)
    await t.engine.setCapacity("default", 1);
    await t.engine.join("default", null, "slot-holder-1", { records: [] });

    for (let i = 0; i < 5; i++) assertEquals((await new Client(t.app).join()).status, 200);
    // The joins' own step of this second (it waits for their counts to be written) ends first.
    await t.services.rooms.maybeStep("default");
    t.clock.advance(1000);
    // Written by this step, or already by the joins' own step if it saw all five (under load).
    await t.services.rooms.step("default");
    assertEquals((await t.services.rooms.current("default")).auto?.queueing, true, "crossed");
    assertEquals(await t.services.rooms.effectiveMode("default"), "normal");
    // The other instance reads the stored state once its copy is a second old.
    t.clock.advance(1000);
    assertEquals(await other.services.rooms.effectiveMode("default"), "normal");
    assertEquals((await new Client(other.app).join()).status, 202, "queued on the other instance");

    // An accelerated minute and a half of quiet: the joins fall out of the one-minute window,
    // then the calm must last a full minute before the room lets everyone through again.
    let released = -1;
    for (let sec = 0; sec < 180 && released < 0; sec++) {
      t.clock.advance(1000);
      await t.services.rooms.step("default");
      if ((await t.services.rooms.current("default")).auto?.queueing === false) released = sec;
    }
    assert(released >= 60 + 45 && released <= 60 + 75, `released after ${released} s`);
    const view = await admin.req("GET", "/api/admin/room");
    assertEquals(view.json.safetyNetState.queueing, false);
    // The visitor left in line from the surge goes first: newcomers queue behind it until the
    // line is empty, rather than overtaking it.
    t.clock.advance(1000);
    await other.engine.settings("default"); // the other instance's view of the line, refreshed
    assertEquals(await other.services.rooms.effectiveMode("default"), "normal");
    assertEquals((await new Client(other.app).join()).status, 202, "behind the line left");
    await t.engine.setCapacity("default", 100);
    await t.engine.admit("default", 10);
    assertEquals((await t.engine.metrics("default")).waiting, 0, "the line drained");
    t.clock.advance(1000);
    await other.engine.settings("default");
    assertEquals(await other.services.rooms.effectiveMode("default"), "passthrough");
    assertEquals((await new Client(other.app).join()).status, 200, "line empty: straight in");
    // The operator's own metrics call still works on a switched queue.
    assertEquals(
      (await t.app.request("/metrics?queue=default", { headers: operator(t.config) })).status,
      200,
    );
  } finally {
    t.close();
  }
});

Deno.test("a passthrough room costs no commit per visitor: its counts are written once a second", () =>
  withAdmin(async (t, admin) => {
    await admin.req("PUT", "/api/admin/room", { mode: "passthrough" });
    await t.services.access.hits.idle();
    const commits = commitCounter(t.kv);
    for (let i = 0; i < 30; i++) assertEquals((await new Client(t.app).join()).status, 200);
    await t.services.access.hits.idle();
    assert(commits.count <= 3, `30 passthrough admissions made ${commits.count} commits`);
    const now = t.clock.now();
    assertEquals(await passedSlots(t.kv, "default", now, t.config.ACCESS_TOKEN_TTL_SECONDS), 30);
  }));

Deno.test("joins step the Safety Net by themselves, once a second per instance", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    await admin.req("PUT", "/api/admin/room", { mode: "auto", safetyNet: SAFETY });
    for (let i = 0; i < 6; i++) {
      assertEquals((await new Client(t.app).join()).status, 200, `calm: join ${i} passes`);
    }
    // This second's step (it waits for the joins' counts to be written) ends first.
    await t.services.rooms.maybeStep("default");
    t.clock.advance(1000);
    await new Client(t.app).join(); // the first join of a new second steps it
    await t.services.rooms.maybeStep("default"); // waits for that step if it still runs
    assertEquals(await t.services.rooms.effectiveMode("default"), "normal");
    await t.engine.setPaused("default", true);
    assertEquals((await new Client(t.app).join()).status, 202, "now the line runs");
  } finally {
    t.close();
  }
});

Deno.test("through the origin proxy: a passthrough room lets visitors in with a token, a closed one refuses", async () => {
  const origin = startOrigin();
  const t = await makeApp({ ORIGIN_URL: origin.url });
  try {
    await t.services.rooms.save("default", { mode: "passthrough" });
    const first = await t.app.request("/shop", { headers: { accept: "text/html" } });
    assertEquals(first.status, 200, "straight to the site");
    assertEquals((await first.json()).path, "/shop");
    const cookie = first.headers.getSetCookie().find((c) => c.startsWith("tg_access="));
    assert(cookie, "an access cookie, so the next request passes on it");
    assertEquals(await passedSlots(t.kv, "default", t.clock.now(), 900), 1);
    const again = await t.app.request("/cart", { headers: { cookie: cookie.split(";")[0] } });
    assertEquals(again.status, 200);
    assertEquals(again.headers.getSetCookie().length, 0, "no second admission");
    await again.body?.cancel();
    assertEquals(await passedSlots(t.kv, "default", t.clock.now(), 900), 1);

    await t.services.rooms.save("default", {
      mode: "reject",
      closedMessage: "Closed for the night.",
      retryAfterSeconds: 3600,
    });
    const page = await t.app.request("/shop", { headers: { accept: "text/html" } });
    assertEquals(page.status, 302);
    assertEquals(page.headers.get("location"), "/wait?queue=default&return=%2Fshop");
    const api = await t.app.request("/api-of-the-site/cart", {
      method: "POST",
      headers: { accept: "application/json" },
      body: "{}",
    });
    assertEquals([api.status, api.headers.get("retry-after")], [503, "3600"]);
    const err = (await api.json()).error;
    assertEquals([err.code, err.message], ["room_closed", "Closed for the night."]);
    // Visitors admitted before the room closed keep their access.
    const kept = await t.app.request("/shop", { headers: { cookie: cookie.split(";")[0] } });
    assertEquals(kept.status, 200);
    await kept.body?.cancel();
  } finally {
    t.close();
    await origin.close();
  }
});
