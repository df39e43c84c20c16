import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, CLOSED_STATES, makeApp, operator } from "./helpers.ts";

type App = Awaited<ReturnType<typeof makeApp>>;
const Q = "default";

/** Every metric name pinned in the contract with the JSON type it must have. */
const METRICS: Record<string, string> = {
  waiting: "number",
  capacity: "number",
  entered: "number",
  holding: "number",
  openSlots: "number",
  paused: "boolean",
  healthPaused: "boolean",
  opensAt: "number|null",
  admitPerSecond: "number",
  admissionMode: "string",
  estimatedWaitSeconds: "number",
  averageWaitSeconds: "number",
  oldestWaitSeconds: "number",
  abandoned: "number",
  health: "object",
};

async function op(
  t: App,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = operator(t.config),
) {
  const h: Record<string, string> = { ...headers };
  if (body !== undefined) h["content-type"] = "application/json";
  const res = await t.app.request(path, {
    method,
    headers: h,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  // deno-lint-ignore no-explicit-any
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch { /* not JSON */ }
  return { status: res.status, json, text, headers: res.headers };
}

async function metrics(t: App, q = Q) {
  const r = await op(t, "GET", `/metrics?queue=${q}`);
  assertEquals(r.status, 200, r.text);
  return r.json;
}

function assertErr(r: Awaited<ReturnType<typeof op>>, status: number, code: string) {
  assertEquals(r.status, status, r.text);
  assertEquals(r.json?.error?.code, code, r.text);
  assertEquals(typeof r.json.error.message, "string");
  assert(r.json.error.details && typeof r.json.error.details === "object", r.text);
}

/** Joins visitors while paused so they all wait, then resumes; returns their clients in order. */
async function line(t: App, ids: string[], q = Q): Promise<Client[]> {
  await t.engine.setPaused(q, true);
  const out: Client[] = [];
  for (const id of ids) {
    const c = new Client(t.app);
    assertEquals((await c.join(q, id)).status, 202);
    out.push(c);
  }
  // Numbered into the line (what each tick does first): positions exact from here (0.8.0).
  await t.engine.sequence(q);
  await t.engine.setPaused(q, false);
  return out;
}

const ids = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);

async function states(t: App, list: string[]) {
  const out: (string | null)[] = [];
  for (const id of list) out.push((await t.engine.visitor(Q, id))?.state ?? null);
  return out;
}

// ---------------------------------------------------------------- auth

const CALLS: [string, string, unknown][] = [
  ["POST", "/admit", { queue: Q, count: 1 }],
  ["POST", "/mode", { queue: Q, mode: "lottery" }],
  ["POST", "/pause", { queue: Q, paused: true }],
  ["GET", "/metrics", undefined],
  ["GET", "/metrics?queue=default", undefined],
];

Deno.test("operator calls without a credential or with a wrong one are 401 and change nothing", async () => {
  const t = await makeApp();
  await line(t, ids("auth", 3));
  const secret = t.config.TOKEN_SECRET;
  const bad: Record<string, string>[] = [
    {},
    { authorization: "Bearer wrong-secret" },
    { authorization: `Bearer ${secret}x` },
    { authorization: `Bearer ${secret.slice(0, -1)}` },
    { authorization: `Basic ${btoa(`admin:${secret}`)}` },
    { authorization: secret },
    { "x-service-operator": "wrong-secret" },
    { "x-service-operator": "" },
    { cookie: `tg_admin=${secret}` },
  ];
  for (const [m, p, body] of CALLS) {
    for (const h of bad) {
      const r = await op(t, m, p, body, h);
      assertErr(r, 401, "unauthorized");
      // RFC 9110: a 401 names the scheme to use (clients offer their credential on it).
      assertEquals(r.headers.get("www-authenticate"), 'Bearer realm="tollgate"', `${m} ${p}`);
    }
  }
  // So do the bearer-only admin calls (factory reset, claim).
  const reset = await t.app.request("/api/admin/reset", { method: "POST" });
  await reset.body?.cancel();
  assertEquals([reset.status, reset.headers.get("www-authenticate")], [
    401,
    'Bearer realm="tollgate"',
  ]);
  const m = await t.engine.metrics(Q);
  assertEquals([m.paused, m.admissionMode, m.waiting, m.admittedTotal], [false, "queue", 3, 0]);
  t.close();
});

Deno.test("operator calls accept Authorization: Bearer TOKEN_SECRET and X-Service-Operator", async () => {
  const t = await makeApp();
  const secret = t.config.TOKEN_SECRET;
  const good: Record<string, string>[] = [
    { authorization: `Bearer ${secret}` },
    { authorization: `bearer ${secret}` },
    { "x-service-operator": secret },
  ];
  for (const h of good) {
    for (const [m, p, body] of CALLS) {
      const r = await op(t, m, p, body, h);
      assertEquals(r.status, 200, `${m} ${p} with ${Object.keys(h)[0]}: ${r.text}`);
    }
  }
  t.close();
});

// ---------------------------------------------------------------- /admit

Deno.test("/admit ignores the rate budget and returns the number really admitted", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100 });
  await line(t, ids("rate", 10));
  const r = await op(t, "POST", "/admit", { queue: Q, count: 6 });
  assertEquals(r.status, 200);
  assertEquals(r.json, { queue: Q, admitted: 6 });
  const more = await op(t, "POST", "/admit", { queue: Q, count: 100 });
  assertEquals(more.json, { queue: Q, admitted: 4 }, "only 4 were left");
  const none = await op(t, "POST", "/admit", { queue: Q, count: 5 });
  assertEquals(none.json, { queue: Q, admitted: 0 }, "nobody left to admit");
  const m = await metrics(t);
  assertEquals([m.waiting, m.holding + m.entered], [0, 10]);
  t.close();
});

Deno.test("/admit respects capacity", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 100, CAPACITY: 3 });
  const list = ids("cap", 8);
  await line(t, list);
  assertEquals((await op(t, "POST", "/admit", { queue: Q, count: 8 })).json.admitted, 3);
  assertEquals((await op(t, "POST", "/admit", { queue: Q, count: 8 })).json.admitted, 0);
  const m = await metrics(t);
  assertEquals([m.holding + m.entered, m.openSlots, m.waiting], [3, 0, 5]);
  t.close();
});

for (
  const [name, close] of CLOSED_STATES
) {
  Deno.test(`/admit admits nobody while the queue is ${name}`, async () => {
    const t = await makeApp({ CAPACITY: 100 });
    const list = ids("closed", 4);
    await line(t, list);
    await close(t);
    const r = await op(t, "POST", "/admit", { queue: Q, count: 4 });
    assertEquals([r.status, r.json], [200, { queue: Q, admitted: 0 }]);
    assertEquals(await states(t, list), ["waiting", "waiting", "waiting", "waiting"]);
    t.close();
  });
}

Deno.test("/admit selects in FIFO order in queue mode", async () => {
  const t = await makeApp({ CAPACITY: 100 });
  const list = ids("fifo", 6);
  const clients = await line(t, list);
  assertEquals((await op(t, "POST", "/admit", { queue: Q, count: 2 })).json.admitted, 2);
  assertEquals(await states(t, list), [
    "admitted",
    "admitted",
    "waiting",
    "waiting",
    "waiting",
    "waiting",
  ]);
  assertEquals((await op(t, "POST", "/admit", { queue: Q, count: 1 })).json.admitted, 1);
  assertEquals((await states(t, list))[2], "admitted");
  for (let i = 3; i < 6; i++) assertEquals((await clients[i].status()).json.position, i - 2);
  const s = await clients[0].status();
  assertEquals([s.json.status, s.json.entered], ["admitted", true]);
  t.close();
});

Deno.test("/admit in lottery mode admits exactly count waiters among all", async () => {
  const t = await makeApp({ CAPACITY: 100, ADMISSION_MODE: "lottery" });
  const list = ids("lotto", 20);
  await line(t, list);
  assertEquals((await op(t, "POST", "/admit", { queue: Q, count: 5 })).json.admitted, 5);
  const st = await states(t, list);
  assertEquals(st.filter((s) => s === "admitted").length, 5);
  assertEquals(st.filter((s) => s === "waiting").length, 15);
  assertEquals((await metrics(t)).waiting, 15);
  t.close();
});

// ---------------------------------------------------------------- /mode

Deno.test("/mode switches both ways without losing anyone; counts stay exact", async () => {
  const t = await makeApp({ CAPACITY: 100 });
  const list = ids("mode", 8);
  const clients = await line(t, list);
  const toLottery = await op(t, "POST", "/mode", { queue: Q, mode: "lottery" });
  assertEquals([toLottery.status, toLottery.json], [200, { queue: Q, mode: "lottery" }]);
  let m = await metrics(t);
  assertEquals([m.admissionMode, m.waiting], ["lottery", 8]);
  for (const c of clients) {
    const s = await c.status();
    assertEquals([s.json.status, s.json.admissionMode, s.json.position], [
      "waiting",
      "lottery",
      undefined,
    ]);
  }
  assertEquals((await op(t, "POST", "/admit", { queue: Q, count: 3 })).json.admitted, 3);
  m = await metrics(t);
  assertEquals([m.waiting, m.holding + m.entered, m.admittedTotal], [5, 3, 3]);
  const toQueue = await op(t, "POST", "/mode", { queue: Q, mode: "queue" });
  assertEquals([toQueue.status, toQueue.json], [200, { queue: Q, mode: "queue" }]);
  m = await metrics(t);
  assertEquals([m.admissionMode, m.waiting, m.holding + m.entered], ["queue", 5, 3]);
  // The remaining waiters are numbered 1..5 in their join order.
  const st = await states(t, list);
  let expect = 1;
  for (let i = 0; i < list.length; i++) {
    const s = await clients[i].status();
    if (st[i] === "waiting") {
      assertEquals([s.json.status, s.json.position], ["waiting", expect], list[i]);
      expect++;
    } else {
      assertEquals(s.json.status, "admitted", list[i]);
    }
  }
  assertEquals(expect, 6);
  // FIFO again from the head of those left.
  const firstWaiting = list[st.indexOf("waiting")];
  assertEquals((await op(t, "POST", "/admit", { queue: Q, count: 1 })).json.admitted, 1);
  assertEquals((await t.engine.visitor(Q, firstWaiting))?.state, "admitted");
  t.close();
});

Deno.test("/mode to the current mode is a no-op answer", async () => {
  const t = await makeApp();
  const r = await op(t, "POST", "/mode", { queue: Q, mode: "queue" });
  assertEquals([r.status, r.json], [200, { queue: Q, mode: "queue" }]);
  assertEquals((await metrics(t)).admissionMode, "queue");
  t.close();
});

// ---------------------------------------------------------------- /pause

Deno.test("/pause silences admission (tick and join) without telling visitors; resume admits again", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 2, CAPACITY: 100 });
  const list = ids("pause", 4);
  const clients = await line(t, list);
  const p = await op(t, "POST", "/pause", { queue: Q, paused: true });
  assertEquals([p.status, p.json], [200, { queue: Q, paused: true }]);
  assertEquals((await metrics(t)).paused, true);
  t.clock.advance(1000);
  assertEquals((await t.engine.tick(Q)).admitted, 0, "tick admits none while paused");
  const s = await clients[0].status();
  assertEquals(s.json.status, "waiting");
  assert(!("paused" in s.json), "visitors are not told");
  const r = await op(t, "POST", "/pause", { queue: Q, paused: false });
  assertEquals([r.status, r.json], [200, { queue: Q, paused: false }]);
  assertEquals((await metrics(t)).paused, false);
  t.clock.advance(1000);
  assertEquals((await t.engine.tick(Q)).admitted, 2);
  assertEquals(await states(t, list), ["admitted", "admitted", "waiting", "waiting"]);
  t.close();
});

Deno.test("/pause on an empty queue: a join does not admit at once; after resume it does", async () => {
  const t = await makeApp();
  assertEquals((await op(t, "POST", "/pause", { queue: Q, paused: true })).status, 200);
  const a = new Client(t.app);
  const j = await a.join(Q, "paused-join1");
  assertEquals(j.status, 202);
  assert(!("paused" in j.json));
  assertEquals((await op(t, "POST", "/pause", { queue: Q, paused: false })).status, 200);
  assertEquals(
    (await a.req("POST", "/leave", { queue: Q, visitorId: "paused-join1" })).status,
    200,
  );
  t.clock.advance(1000); // a second of rate budget after resuming
  // The tick takes the leave of a join it had not numbered yet in (0.8.0).
  await t.engine.tick(Q);
  const b = await new Client(t.app).join(Q, "resumed-join");
  assertEquals(b.status, 200);
  t.close();
});

Deno.test("/pause affects only the named queue", async () => {
  const t = await makeApp({ QUEUES: ["default", "shop"] });
  assertEquals((await op(t, "POST", "/pause", { queue: "shop", paused: true })).status, 200);
  assertEquals((await metrics(t, "shop")).paused, true);
  assertEquals((await metrics(t, "default")).paused, false);
  assertEquals((await new Client(t.app).join("default")).status, 200);
  assertEquals((await new Client(t.app).join("shop")).status, 202);
  t.close();
});

// ---------------------------------------------------------------- /metrics

Deno.test("/metrics?queue= has every metric name pinned in the contract with exact values", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 4, CAPACITY: 10 });
  const empty = await metrics(t);
  for (const [k, type] of Object.entries(METRICS)) {
    assert(k in empty, `missing metric ${k}`);
    const actual = empty[k] === null ? "null" : typeof empty[k];
    assert(type.split("|").includes(actual), `${k} is ${actual}, want ${type}`);
  }
  assertEquals(empty.queue, Q);
  assertEquals(
    [empty.waiting, empty.capacity, empty.entered, empty.holding, empty.openSlots],
    [0, 10, 0, 0, 10],
  );
  assertEquals([empty.paused, empty.healthPaused, empty.opensAt], [false, false, null]);
  assertEquals([empty.admitPerSecond, empty.admissionMode, empty.abandoned], [4, "queue", 0]);
  assertEquals([empty.estimatedWaitSeconds, empty.averageWaitSeconds, empty.oldestWaitSeconds], [
    0,
    0,
    0,
  ]);
  // One entered at once, eight waiting.
  assertEquals((await new Client(t.app).join(Q, "metric-0000")).status, 200);
  const clients = await line(t, ids("metric", 9).slice(1));
  t.clock.advance(30_000);
  let m = await metrics(t);
  assertEquals([m.waiting, m.entered, m.holding, m.openSlots], [8, 1, 0, 9]);
  assertEquals(m.oldestWaitSeconds, 30);
  assertEquals(m.estimatedWaitSeconds, 2, "8 waiting at 4/s");
  // Two admitted by force after waiting 30 s.
  assertEquals((await op(t, "POST", "/admit", { queue: Q, count: 2 })).json.admitted, 2);
  m = await metrics(t);
  assertEquals([m.waiting, m.entered, m.holding, m.openSlots], [6, 1, 2, 7]);
  assertEquals(m.averageWaitSeconds, 20, "(0 + 30 + 30) / 3");
  await clients[0].status();
  m = await metrics(t);
  assertEquals([m.entered, m.holding], [2, 1]);
  // Settings show up: rate override, opening time, pause, health, mode.
  await t.engine.setRate(Q, 0.5);
  const opensAt = t.clock.now() + 3_600_000;
  await t.engine.setOpensAt(Q, opensAt);
  await t.engine.setHealthPaused(Q, true);
  await op(t, "POST", "/pause", { queue: Q, paused: true });
  await op(t, "POST", "/mode", { queue: Q, mode: "lottery" });
  m = await metrics(t);
  assertEquals(
    [m.admitPerSecond, m.opensAt, m.healthPaused, m.paused, m.admissionMode],
    [0.5, opensAt, true, true, "lottery"],
  );
  assertEquals(typeof m.health, "object");
  assert(m.health !== null && !Array.isArray(m.health));
  t.close();
});

Deno.test("/metrics counts abandoned visitors", async () => {
  const t = await makeApp();
  await line(t, ids("gone", 2));
  await t.engine.setPaused(Q, true);
  t.clock.advance(60_000);
  await t.engine.tick(Q);
  // Silent past their deadline: kept for the grace (300 s by default), counted as silent.
  let m = await metrics(t);
  assertEquals([m.waiting, m.silent, m.abandoned], [2, 2, 0]);
  t.clock.advance(300_000);
  await t.engine.tick(Q);
  m = await metrics(t);
  assertEquals([m.waiting, m.silent, m.abandoned], [0, 0, 2]);
  t.close();
});

Deno.test("/metrics without a queue lists every queue", async () => {
  const t = await makeApp({ QUEUES: ["default", "shop", "alpha"], CAPACITY: 7 });
  assertEquals((await new Client(t.app).join("shop")).status, 200);
  const r = await op(t, "GET", "/metrics");
  assertEquals(r.status, 200);
  assert(Array.isArray(r.json.queues), r.text);
  assertEquals(r.json.queues.map((q: { queue: string }) => q.queue).sort(), [
    "alpha",
    "default",
    "shop",
  ]);
  for (const q of r.json.queues) {
    for (const k of Object.keys(METRICS)) assert(k in q, `${q.queue} misses ${k}`);
    assertEquals(q.capacity, 7);
  }
  const shop = r.json.queues.find((q: { queue: string }) => q.queue === "shop");
  assertEquals(shop.entered, 1);
  t.close();
});

Deno.test("/metrics does not write configuration", async () => {
  const t = await makeApp();
  const before = await t.kv.get(keys.queue(Q));
  await op(t, "GET", "/metrics?queue=default");
  await op(t, "GET", "/metrics");
  assertEquals((await t.kv.get(keys.queue(Q))).versionstamp, before.versionstamp);
  t.close();
});

// ---------------------------------------------------------------- bad input, unknown queue

Deno.test("operator calls with bad input are 400 bad_request and change nothing", async () => {
  const t = await makeApp({ CAPACITY: 100 });
  await line(t, ids("badin", 3));
  const cases: [string, string, unknown][] = [
    ["POST", "/admit", { queue: Q }],
    ["POST", "/admit", { queue: Q, count: 0 }],
    ["POST", "/admit", { queue: Q, count: -1 }],
    ["POST", "/admit", { queue: Q, count: 1.5 }],
    ["POST", "/admit", { queue: Q, count: "2" }],
    ["POST", "/admit", { queue: "Bad!", count: 1 }],
    ["POST", "/admit", { count: 1 }],
    ["POST", "/admit", "{"],
    ["POST", "/admit", []],
    ["POST", "/mode", { queue: Q, mode: "fifo" }],
    ["POST", "/mode", { queue: Q }],
    ["POST", "/mode", { queue: "", mode: "lottery" }],
    ["POST", "/mode", "not json"],
    ["POST", "/pause", { queue: Q, paused: "yes" }],
    ["POST", "/pause", { queue: Q, paused: 1 }],
    ["POST", "/pause", { queue: Q }],
    ["POST", "/pause", null],
    ["GET", "/metrics?queue=Bad!", undefined],
  ];
  for (const [m, p, body] of cases) {
    const r = await op(t, m, p, body);
    assertErr(r, 400, "bad_request");
  }
  const none = await t.app.request("/admit", { method: "POST", headers: operator(t.config) });
  assertEquals(none.status, 400, "missing body");
  const met = await t.engine.metrics(Q);
  assertEquals([met.waiting, met.admittedTotal, met.paused, met.admissionMode], [
    3,
    0,
    false,
    "queue",
  ]);
  t.close();
});

Deno.test("operator calls on an unknown queue are 404 unknown_queue", async () => {
  const t = await makeApp();
  const cases: [string, string, unknown][] = [
    ["POST", "/mode", { queue: "nope", mode: "lottery" }],
    ["POST", "/pause", { queue: "nope", paused: true }],
    ["GET", "/metrics?queue=nope", undefined],
  ];
  for (const [m, p, body] of cases) assertErr(await op(t, m, p, body), 404, "unknown_queue");
  assertEquals(await t.engine.queueNames(), [Q], "no queue was created");
  t.close();
});

Deno.test("/admit on an unknown queue is 404 unknown_queue", async () => {
  const t = await makeApp();
  assertErr(await op(t, "POST", "/admit", { queue: "nope", count: 1 }), 404, "unknown_queue");
  t.close();
});
