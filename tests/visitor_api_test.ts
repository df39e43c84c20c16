import { keys } from "../lib/store/keys.ts";
import { Signer } from "../lib/tokens.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, CLOSED_STATES, makeApp } from "./helpers.ts";

type App = Awaited<ReturnType<typeof makeApp>>;
type Res = Awaited<ReturnType<Client["req"]>>;
const Q = "default";

/** Keys that must never appear in a visitor response. */
const HIDDEN = [
  "paused",
  "opensAt",
  "capacity",
  "health",
  "healthPaused",
  "openSlots",
  "admitPerSecond",
];

const WAITING_QUEUE = [
  "admissionMode",
  "estimatedWaitSeconds",
  "nextCheckAt",
  "nextPollAfterMs",
  "position",
  "queue",
  "status",
  "visitorId",
];
const WAITING_LOTTERY = WAITING_QUEUE.filter((k) => k !== "position");
/** A paused line promises no wait (it moves at no pace): the same keys, less the estimate. */
const PAUSED_QUEUE = WAITING_QUEUE.filter((k) => k !== "estimatedWaitSeconds");
const PAUSED_LOTTERY = WAITING_LOTTERY.filter((k) => k !== "estimatedWaitSeconds");
const ENTERED = ["accessToken", "entered", "queue", "status", "visitorId"];

function noHidden(json: unknown, where = "response"): void {
  if (json === null || typeof json !== "object") return;
  for (const [k, v] of Object.entries(json)) {
    assert(!HIDDEN.includes(k), `${where} exposes "${k}": ${JSON.stringify(json)}`);
    noHidden(v, where);
  }
}

/** Checks a visitor response for hidden keys and returns it. */
function visible(r: Res): Res {
  noHidden(r.json, `${r.status} response`);
  return r;
}

function sortedKeys(o: Record<string, unknown>): string[] {
  return Object.keys(o).sort();
}

/**
 * The keys of `o` are `want`, and a provisional position (a join not numbered by the tick yet)
 * carries `positionExact: false` besides (the contract since 0.8.0).
 */
function assertKeys(o: Record<string, unknown>, want: string[], msg = "keys"): void {
  const got = sortedKeys(o).filter((k) => !(k === "positionExact" && o[k] === false));
  if (o.positionExact === false) {
    assert("position" in o, `positionExact without a position: ${msg}`);
  }
  assertEquals(got, [...want].sort(), `${msg} of ${JSON.stringify(o)}`);
}

/** One Set-Cookie header by cookie name: value and lower-cased attributes. */
function setCookieOf(h: Headers, name: string): { value: string; attrs: string[] } | null {
  for (const sc of h.getSetCookie()) {
    const [pair, ...rest] = sc.split(";").map((s) => s.trim());
    const i = pair.indexOf("=");
    if (pair.slice(0, i) === name) {
      return { value: pair.slice(i + 1), attrs: rest.map((a) => a.toLowerCase()) };
    }
  }
  return null;
}

function assertVisitorCookie(h: Headers, name: string, secure: boolean) {
  const c = setCookieOf(h, name);
  assert(c, `${name} not set`);
  assert(c.value.length > 0, `${name} empty`);
  assert(c.attrs.includes("httponly"), `${name} not HttpOnly: ${c.attrs}`);
  assert(c.attrs.includes("samesite=lax"), `${name} not SameSite=Lax: ${c.attrs}`);
  assert(c.attrs.includes("path=/"), `${name} not Path=/: ${c.attrs}`);
  assertEquals(c.attrs.includes("secure"), secure, `${name} Secure`);
  return c.value;
}

async function assertError(r: Res, status: number, code: string) {
  assertEquals(r.status, status, `status of ${r.text}`);
  assertEquals(r.json?.error?.code, code, `code of ${r.text}`);
  assertEquals(typeof r.json.error.message, "string");
  assert(r.json.error.details && typeof r.json.error.details === "object", "details object");
  await Promise.resolve();
}

async function counts(t: App) {
  const m = await t.engine.metrics(Q);
  return { waiting: m.waiting, entered: m.entered, holding: m.holding, admitted: m.admittedTotal };
}

/** Visitors joined while paused so they all wait; the queue is resumed afterwards unless told. */
async function waiters(t: App, ids: string[], resume = true): Promise<Client[]> {
  await t.engine.setPaused(Q, true);
  const out: Client[] = [];
  for (const id of ids) {
    const c = new Client(t.app);
    const r = visible(await c.join(Q, id));
    assertEquals(r.status, 202, `${id} should wait`);
    out.push(c);
  }
  // The tick numbers the joins into the line: positions are exact from then on (0.8.0).
  await t.engine.tick(Q);
  if (resume) await t.engine.setPaused(Q, false);
  return out;
}

async function step(t: App, ms = 1000) {
  t.clock.advance(ms);
  return await t.engine.tick(Q);
}

function post(c: Client, path: string, body: unknown) {
  return c.req("POST", path, body);
}

// ---------------------------------------------------------------- join: 200 vs 202, cookies

Deno.test("join on an open, empty queue admits at once: 200 with token, tg_access and tg_ticket", async () => {
  const t = await makeApp();
  const c = new Client(t.app);
  const r = visible(await c.join(Q, "visitor-0001"));
  assertEquals(r.status, 200);
  assertKeys(r.json, ENTERED);
  assertEquals([r.json.status, r.json.entered, r.json.queue, r.json.visitorId], [
    "admitted",
    true,
    Q,
    "visitor-0001",
  ]);
  const claims = await t.services.signer.verifyAccessToken(r.json.accessToken, t.clock.now(), Q);
  assertEquals(claims?.sub, "visitor-0001");
  assertEquals(assertVisitorCookie(r.headers, "tg_access", false), r.json.accessToken);
  const ticket = await t.services.signer.verifyTicket(
    assertVisitorCookie(r.headers, "tg_ticket", false),
  );
  assertEquals([ticket?.sub, ticket?.queue], ["visitor-0001", Q]);
  assertEquals(await counts(t), { waiting: 0, entered: 1, holding: 0, admitted: 1 });
  t.close();
});

Deno.test("join that has to wait: 202 and only tg_ticket (no tg_access)", async () => {
  const t = await makeApp({ CAPACITY: 1 });
  assertEquals((await new Client(t.app).join()).status, 200);
  const c = new Client(t.app);
  const r = visible(await c.join(Q, "visitor-0002"));
  assertEquals(r.status, 202);
  assertEquals(r.json.status, "waiting");
  assertEquals(r.json.visitorId, "visitor-0002");
  assertEquals(r.json.accessToken, undefined);
  assertEquals(r.json.entered, undefined);
  assertVisitorCookie(r.headers, "tg_ticket", false);
  assertEquals(setCookieOf(r.headers, "tg_access"), null, "no tg_access while waiting");
  t.close();
});

Deno.test("cookies carry Secure when the request came over https", async () => {
  const t = await makeApp({ CAPACITY: 1 });
  const init = (id: string) => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ queue: Q, visitorId: id }),
  });
  const a = await t.app.request("https://tollgate.example/join", init("secure-0001"));
  assertEquals(a.status, 200);
  assertVisitorCookie(a.headers, "tg_ticket", true);
  assertVisitorCookie(a.headers, "tg_access", true);
  const b = await t.app.request("https://tollgate.example/join", init("secure-0002"));
  assertEquals(b.status, 202);
  assertVisitorCookie(b.headers, "tg_ticket", true);
  const ticket = setCookieOf(b.headers, "tg_ticket")!.value;
  const left = await t.app.request("https://tollgate.example/leave", {
    method: "POST",
    headers: { "content-type": "application/json", cookie: `tg_ticket=${ticket}` },
    body: JSON.stringify({ queue: Q, visitorId: "secure-0002" }),
  });
  assertEquals(left.status, 200);
  const cleared = setCookieOf(left.headers, "tg_ticket");
  assert(cleared?.attrs.includes("max-age=0"), "tg_ticket cleared");
  assert(cleared?.attrs.includes("secure"), "the clearing cookie is Secure too");
  t.close();
});

Deno.test("join waits (202) when someone is already waiting, even with a free slot and budget", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 100, CAPACITY: 100 });
  await waiters(t, ["first-00001"]);
  const r = visible(await new Client(t.app).join(Q, "second-0001"));
  assertEquals(r.status, 202);
  assertEquals(r.json.position, 2);
  assertEquals(await counts(t), { waiting: 2, entered: 0, holding: 0, admitted: 0 });
  t.close();
});

for (
  const [name, close] of CLOSED_STATES
) {
  Deno.test(`join waits (202) on an empty queue that is ${name}, without saying why`, async () => {
    const t = await makeApp();
    await close(t);
    const c = new Client(t.app);
    const r = visible(await c.join(Q, "visitor-closed"));
    assertEquals(r.status, 202);
    assertKeys(r.json, name === "before opensAt" ? WAITING_QUEUE : PAUSED_QUEUE);
    assertEquals(r.json.position, 1);
    assertEquals(c.cookies.has("tg_access"), false);
    visible(await c.status());
    assertEquals(await counts(t), { waiting: 1, entered: 0, holding: 0, admitted: 0 });
    t.close();
  });
}

Deno.test("join waits (202) when no slot is open", async () => {
  const t = await makeApp({ CAPACITY: 2, ADMIT_PER_SECOND: 100 });
  assertEquals((await new Client(t.app).join()).status, 200);
  assertEquals((await new Client(t.app).join()).status, 200);
  const r = visible(await new Client(t.app).join());
  assertEquals(r.status, 202);
  assertEquals(await counts(t), { waiting: 1, entered: 2, holding: 0, admitted: 2 });
  t.close();
});

Deno.test("join waits (202) when the rate budget is spent, even with nobody waiting; admits again once it refills", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100 });
  const a = new Client(t.app);
  assertEquals((await a.join(Q, "alpha-00001")).status, 200);
  assertEquals((await post(a, "/leave", { queue: Q, visitorId: "alpha-00001" })).status, 200);
  assertEquals((await counts(t)).waiting, 0);
  const b = new Client(t.app);
  assertEquals(visible(await b.join(Q, "bravo-00001")).status, 202, "budget spent this second");
  await step(t);
  const sb = visible(await b.status());
  assertEquals(sb.json.status, "admitted", "the tick admitted the waiter");
  t.clock.advance(1000);
  assertEquals((await new Client(t.app).join(Q, "charlie-001")).status, 200, "budget refilled");
  t.close();
});

// ---------------------------------------------------------------- join: resume, ids, cap

Deno.test("join with a valid tg_ticket resumes that visitor and ignores a conflicting body visitorId", async () => {
  const t = await makeApp();
  const [alice] = await waiters(t, ["alice-00001", "bob-0000001"], false);
  const r = visible(await alice.join(Q, "mallory-001"));
  assertEquals(r.status, 202);
  assertEquals(r.json.visitorId, "alice-00001");
  assertEquals(r.json.position, 1);
  assertEquals(alice.visitorId, "alice-00001");
  assertEquals(await t.engine.visitor(Q, "mallory-001"), null);
  assertEquals((await counts(t)).waiting, 2);
  t.close();
});

Deno.test("join with a valid tg_ticket of an entered visitor returns the same admission, not a second one", async () => {
  const t = await makeApp();
  const c = new Client(t.app);
  const first = await c.join(Q, "entered-0001");
  assertEquals(first.status, 200);
  const again = visible(await c.join(Q));
  assertEquals(again.status, 200);
  assertEquals(again.json.visitorId, "entered-0001");
  assertEquals(again.json.accessToken, first.json.accessToken);
  assertEquals(await counts(t), { waiting: 0, entered: 1, holding: 0, admitted: 1 });
  t.close();
});

Deno.test("join with a visitorId already in the queue but without its ticket is 401 and changes nothing", async () => {
  const t = await makeApp();
  await waiters(t, ["owner-00001", "other-00001"], false);
  const before = await t.engine.visitor(Q, "owner-00001");
  const thief = new Client(t.app);
  const r = visible(await thief.join(Q, "owner-00001"));
  await assertError(r, 401, "unauthorized");
  assertEquals(setCookieOf(r.headers, "tg_ticket"), null, "no ticket handed out");
  assertEquals(await t.engine.visitor(Q, "owner-00001"), before);
  assertEquals((await counts(t)).waiting, 2);
  t.close();
});

Deno.test("two simultaneous joins with the same new visitorId create one visitor", async () => {
  const t = await makeApp();
  await t.engine.setPaused(Q, true);
  const [a, b] = await Promise.all([
    new Client(t.app).join(Q, "double-click1"),
    new Client(t.app).join(Q, "double-click1"),
  ]);
  const statuses = [a.status, b.status].sort();
  assertEquals(statuses, [202, 401], `got ${a.text} and ${b.text}`);
  assertEquals((await counts(t)).waiting, 1, "one waiter, counted once");
  // The line is consistent: a newcomer is second.
  assertEquals((await new Client(t.app).join(Q, "newcomer-001")).json.position, 2);
  t.close();
});

Deno.test("rejoin after leave goes to the back of the line", async () => {
  const t = await makeApp();
  const [a, b, c] = await waiters(t, ["a-visitor1", "b-visitor1", "c-visitor1"], false);
  assertEquals((await post(a, "/leave", { queue: Q, visitorId: "a-visitor1" })).status, 200);
  assertEquals(a.cookies.has("tg_ticket"), false);
  const r = visible(await a.join(Q, "a-visitor1"));
  assertEquals(r.status, 202);
  assertEquals(r.json.visitorId, "a-visitor1");
  assertEquals(r.json.position, 3);
  assertEquals((await b.status()).json.position, 1);
  assertEquals((await c.status()).json.position, 2);
  t.close();
});

Deno.test("503 queue_full at maxWaitingVisitors, and nothing changes", async () => {
  const t = await makeApp();
  await t.engine.setMaxWaiting(Q, 2, 1_000_000);
  const [first] = await waiters(t, ["cap-visitor1", "cap-visitor2"], false);
  const before = await counts(t);
  const third = new Client(t.app);
  const r = visible(await third.join(Q, "cap-visitor3"));
  await assertError(r, 503, "queue_full");
  assertEquals(setCookieOf(r.headers, "tg_ticket"), null);
  assertEquals(await t.engine.visitor(Q, "cap-visitor3"), null);
  assertEquals(await counts(t), before);
  const anon = visible(await new Client(t.app).join(Q));
  await assertError(anon, 503, "queue_full");
  // A waiter already in line can still resume at the cap.
  const resumed = visible(await first.join(Q));
  assertEquals([resumed.status, resumed.json.visitorId, resumed.json.position], [
    202,
    "cap-visitor1",
    1,
  ]);
  // Once a place frees up the newcomer gets in, at the back.
  assertEquals((await post(first, "/leave", { queue: Q, visitorId: "cap-visitor1" })).status, 200);
  const later = visible(await third.join(Q, "cap-visitor3"));
  assertEquals([later.status, later.json.position], [202, 2]);
  t.close();
});

Deno.test("join on an unknown queue is 404 unknown_queue and creates nothing", async () => {
  const t = await makeApp();
  const c = new Client(t.app);
  const r = visible(await c.join("nope", "visitor-0404"));
  await assertError(r, 404, "unknown_queue");
  assertEquals(setCookieOf(r.headers, "tg_ticket"), null);
  assertEquals(await t.engine.queueNames(), [Q]);
  assertEquals((await t.kv.get(keys.queue("nope"))).value, null);
  t.close();
});

// ---------------------------------------------------------------- bad input

const BAD_JOIN_BODIES: [string, unknown][] = [
  ["queue with uppercase and !", { queue: "Bad!" }],
  ["empty queue", { queue: "" }],
  ["queue starting with a dash", { queue: "-abc" }],
  ["queue of 65 characters", { queue: "a".repeat(65) }],
  ["queue as a number", { queue: 5 }],
  ["missing queue", { visitorId: "visitor-0001" }],
  ["visitorId too short", { queue: Q, visitorId: "short" }],
  ["visitorId too long", { queue: Q, visitorId: "v".repeat(65) }],
  ["visitorId with a space", { queue: Q, visitorId: "has space 123" }],
  ["visitorId with !", { queue: Q, visitorId: "bad!chars12" }],
  ["visitorId as a number", { queue: Q, visitorId: 12345678 }],
  ["visitorId null", { queue: Q, visitorId: null }],
  ["empty object", {}],
  ["JSON null", null],
  ["JSON array", [Q]],
  ["JSON string", "default"],
];

Deno.test("join with bad queue names, visitorIds, wrong types or a missing body is 400 bad_request with the failing fields", async () => {
  const t = await makeApp();
  const c = new Client(t.app);
  for (const [what, body] of BAD_JOIN_BODIES) {
    const r = visible(
      await c.req("POST", "/join", JSON.stringify(body), { "content-type": "application/json" }),
    );
    await assertError(r, 400, "bad_request");
    const fields = r.json.error.details.fields;
    assert(
      Array.isArray(fields) && fields.length > 0,
      `${what}: details.fields missing in ${r.text}`,
    );
    for (const f of fields) assertEquals(typeof f.path, "string", what);
    assertEquals(setCookieOf(r.headers, "tg_ticket"), null, what);
  }
  const none = visible(await c.req("POST", "/join"));
  await assertError(none, 400, "bad_request");
  assertEquals(await counts(t), { waiting: 0, entered: 0, holding: 0, admitted: 0 });
  assertEquals((await t.kv.get(keys.counts(Q))).value, null, "no counter was written");
  t.close();
});

Deno.test("malformed JSON and non-JSON bodies are 400 bad_request and change nothing", async () => {
  const t = await makeApp();
  const cases: [string, string | undefined][] = [
    ["{", "application/json"],
    ['{"queue": "default",}', "application/json"],
    ["", "application/json"],
    ["queue=default", "application/x-www-form-urlencoded"],
    ['{"queue":"default"}', "text/plain"],
  ];
  for (const [body, type] of cases) {
    const res = await t.app.request("/join", {
      method: "POST",
      headers: type ? { "content-type": type } : {},
      body,
    });
    assertEquals(res.status, 400, `${type} ${body}`);
    const json = await res.json();
    assertEquals(json.error.code, "bad_request");
    assert(json.error.details && typeof json.error.details === "object");
    assertEquals(res.headers.getSetCookie().length, 0);
  }
  assertEquals(await counts(t), { waiting: 0, entered: 0, holding: 0, admitted: 0 });
  t.close();
});

Deno.test("malformed JSON errors list the failing field in details.fields, like validation errors", async () => {
  const t = await makeApp();
  for (const [body, type] of [["{", "application/json"], ["queue=default", "text/plain"]]) {
    const res = await t.app.request("/join", {
      method: "POST",
      headers: { "content-type": type },
      body,
    });
    const json = await res.json();
    assertEquals(res.status, 400);
    const fields = json.error.details.fields;
    assert(
      Array.isArray(fields) && fields.length > 0,
      `details lists no failing field: ${JSON.stringify(json)}`,
    );
  }
  t.close();
});

Deno.test("status, heartbeat, leave and enter reject bad input with 400 and leave the visitor untouched", async () => {
  const t = await makeApp();
  const [c] = await waiters(t, ["steady-0001"], false);
  const before = await t.kv.get(keys.visitor(Q, "steady-0001"));
  const bad: [string, string, unknown][] = [
    ["GET", "/status?queue=Bad!", undefined],
    ["GET", "/status", undefined],
    ["GET", "/status?queue=default&visitorId=x", undefined],
    ["POST", "/heartbeat", { queue: Q }],
    ["POST", "/heartbeat", { queue: Q, visitorId: "bad id!!" }],
    ["POST", "/leave", {}],
    ["POST", "/leave", { queue: "Nope!", visitorId: "steady-0001" }],
    ["POST", "/enter", { queue: Q, visitorId: "x" }],
    ["POST", "/enter", { queue: 1, visitorId: "steady-0001" }],
  ];
  for (const [m, p, body] of bad) {
    const r = visible(await c.req(m, p, body));
    await assertError(r, 400, "bad_request");
    assert(r.json.error.details.fields?.length > 0, `${m} ${p}: no failing fields in ${r.text}`);
  }
  // /verify answers only 204 or 401, even for a malformed queue name.
  await assertError(visible(await c.req("GET", "/verify?queue=Bad!")), 401, "unauthorized");
  const after = await t.kv.get(keys.visitor(Q, "steady-0001"));
  assertEquals(after.versionstamp, before.versionstamp, "visitor record untouched");
  assertEquals((await counts(t)).waiting, 1);
  t.close();
});

// ---------------------------------------------------------------- tickets

Deno.test("status without a tg_ticket is 401 unauthorized", async () => {
  const t = await makeApp();
  await waiters(t, ["someone-001"], false);
  await assertError(visible(await new Client(t.app).status()), 401, "unauthorized");
  const hb = await post(new Client(t.app), "/heartbeat", { queue: Q, visitorId: "someone-001" });
  await assertError(visible(hb), 401, "unauthorized");
  // Leave without any ticket is the second leave of a browser: "left", and nothing changes.
  const lv = await post(new Client(t.app), "/leave", { queue: Q, visitorId: "someone-001" });
  assertEquals([lv.status, lv.json.status], [200, "left"]);
  const forged = new Client(t.app);
  forged.cookies.set("tg_ticket", "eyJzdWIiOiJzb21lb25lLTAwMSJ9.AAAA");
  const lf = await post(forged, "/leave", { queue: Q, visitorId: "someone-001" });
  await assertError(visible(lf), 401, "unauthorized");
  const en = await post(new Client(t.app), "/enter", { queue: Q, visitorId: "someone-001" });
  await assertError(visible(en), 401, "unauthorized");
  assertEquals((await counts(t)).waiting, 1, "the visitor is still there");
  t.close();
});

Deno.test("a ticket for another queue is 401", async () => {
  const t = await makeApp({ QUEUES: ["default", "other"] });
  const c = new Client(t.app);
  assertEquals((await c.join("other", "multi-00001")).status, 200);
  await assertError(visible(await c.status(Q)), 401, "unauthorized");
  const hb = await post(c, "/heartbeat", { queue: Q, visitorId: "multi-00001" });
  await assertError(visible(hb), 401, "unauthorized");
  assertEquals((await c.status("other")).status, 200);
  t.close();
});

function reencode(ticket: string, change: Record<string, unknown>): string {
  const [body, sig] = ticket.split(".");
  const std = body.replaceAll("-", "+").replaceAll("_", "/");
  const claims = JSON.parse(atob(std + "=".repeat((4 - (std.length % 4)) % 4)));
  const next = btoa(JSON.stringify({ ...claims, ...change })).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
  return `${next}.${sig}`;
}

Deno.test("forged and tampered tickets are 401 and cannot take over another visitor", async () => {
  const t = await makeApp();
  const [victim] = await waiters(t, ["victim-0001"], false);
  const real = victim.cookies.get("tg_ticket")!;
  const attacker = new Client(t.app);
  await attacker.join(Q, "attacker-01");
  const own = attacker.cookies.get("tg_ticket")!;
  // Own ticket with the victim's id swapped in (signature no longer matches).
  attacker.cookies.set("tg_ticket", reencode(own, { sub: "victim-0001" }));
  await assertError(visible(await attacker.status()), 401, "unauthorized");
  // A ticket with valid shape signed with a guessed secret.
  const claims = (await t.services.signer.verifyTicket(real))!;
  const forged = await new Signer("guessed-secret-guessed-secret-000").signTicket(claims);
  attacker.cookies.set("tg_ticket", forged);
  await assertError(visible(await attacker.status()), 401, "unauthorized");
  const lv = await post(attacker, "/leave", { queue: Q, visitorId: "victim-0001" });
  await assertError(visible(lv), 401, "unauthorized");
  // Joining with a forged ticket does not resume the victim.
  const j = visible(await attacker.join(Q));
  assert(j.json.visitorId !== "victim-0001", "forged ticket resumed the victim");
  // Garbage in the cookie.
  attacker.cookies.set("tg_ticket", "not-a-ticket");
  await assertError(visible(await attacker.status()), 401, "unauthorized");
  assertEquals((await victim.status()).json.position, 1, "the victim is unaffected");
  t.close();
});

Deno.test("a visitorId query parameter must match the ticket", async () => {
  const t = await makeApp();
  const [a] = await waiters(t, ["match-00001", "match-00002"], false);
  await assertError(
    visible(await a.req("GET", `/status?queue=${Q}&visitorId=match-00002`)),
    401,
    "unauthorized",
  );
  const ok = visible(await a.req("GET", `/status?queue=${Q}&visitorId=match-00001`));
  assertEquals([ok.status, ok.json.visitorId], [200, "match-00001"]);
  const hb = await post(a, "/heartbeat", { queue: Q, visitorId: "match-00002" });
  await assertError(visible(hb), 401, "unauthorized");
  const lv = await post(a, "/leave", { queue: Q, visitorId: "match-00002" });
  await assertError(visible(lv), 401, "unauthorized");
  assertEquals((await counts(t)).waiting, 2, "nobody left");
  t.close();
});

// ---------------------------------------------------------------- response fields

Deno.test("queue mode fields: position without depth fields unless showWaitingCount is on", async () => {
  const t = await makeApp();
  const [, b] = await waiters(t, ["fields-0001", "fields-0002", "fields-0003"], false);
  const plain = visible(await b.status());
  assertEquals(plain.status, 200);
  assertKeys(plain.json, PAUSED_QUEUE);
  assertEquals([plain.json.status, plain.json.admissionMode, plain.json.position], [
    "waiting",
    "queue",
    2,
  ]);
  assertEquals([plain.json.queue, plain.json.visitorId], [Q, "fields-0002"]);
  await t.setBranding({ showWaitingCount: true });
  const depth = visible(await b.status());
  assertKeys(depth.json, [...PAUSED_QUEUE, "ahead", "behind", "waiting"]);
  assertEquals([depth.json.position, depth.json.ahead, depth.json.behind, depth.json.waiting], [
    2,
    1,
    1,
    3,
  ]);
  const hb = visible(await post(b, "/heartbeat", { queue: Q, visitorId: "fields-0002" }));
  assertKeys(hb.json, [...PAUSED_QUEUE, "ahead", "behind", "waiting"], "heartbeat keys");
  const j = visible(await new Client(t.app).join(Q, "fields-0004"));
  assertKeys(j.json, [...PAUSED_QUEUE, "ahead", "behind", "waiting"], "join keys");
  assertEquals([j.json.position, j.json.ahead, j.json.behind, j.json.waiting], [4, 3, 0, 4]);
  t.close();
});

Deno.test("lottery mode fields: no position; lotteryOdds and waiting only with showWaitingCount", async () => {
  const t = await makeApp({ ADMISSION_MODE: "lottery" });
  const [a] = await waiters(t, ["lotto-00001", "lotto-00002", "lotto-00003"], false);
  const plain = visible(await a.status());
  assertKeys(plain.json, PAUSED_LOTTERY);
  assertEquals(plain.json.admissionMode, "lottery");
  await t.setBranding({ showWaitingCount: true });
  const depth = visible(await a.status());
  assertKeys(depth.json, [...PAUSED_LOTTERY, "lotteryOdds", "waiting"]);
  assertEquals(depth.json.waiting, 3);
  assert(
    depth.json.lotteryOdds > 0 && depth.json.lotteryOdds <= 1,
    `odds ${depth.json.lotteryOdds}`,
  );
  const j = visible(await new Client(t.app).join(Q, "lotto-00004"));
  assertKeys(j.json, [...PAUSED_LOTTERY, "lotteryOdds", "waiting"], "join keys");
  t.close();
});

Deno.test("no visitor response exposes pause, opening time, capacity or health", async () => {
  const t = await makeApp({ CAPACITY: 3 });
  await t.setBranding({ showWaitingCount: true });
  const [a] = await waiters(t, ["secret-0001", "secret-0002"], false);
  await t.engine.setOpensAt(Q, t.clock.now() + 3_600_000);
  await t.engine.setHealthPaused(Q, true);
  for (const mode of ["queue", "lottery"] as const) {
    await t.engine.setMode(Q, mode);
    visible(await a.status());
    visible(await post(a, "/heartbeat", { queue: Q, visitorId: "secret-0001" }));
    visible(await a.join(Q));
    visible(await new Client(t.app).join(Q));
    visible(await post(a, "/enter", { queue: Q, visitorId: "secret-0001" }));
  }
  const text = JSON.stringify((await a.status()).json);
  for (const word of ["paus", "opens", "capacity", "health"]) {
    assert(!text.toLowerCase().includes(word), `response mentions ${word}: ${text}`);
  }
  t.close();
});

Deno.test("nextCheckAt is second-aligned and in the future; nextPollAfterMs is the time until it", async () => {
  const t = await makeApp();
  t.clock.advance(337);
  const [a] = await waiters(t, ["slot-000001", "slot-000002"], false);
  const check = (r: Res) => {
    const now = t.clock.now();
    assertEquals(r.json.nextCheckAt % 1000, 0, "second-aligned");
    assert(r.json.nextCheckAt > now, "in the future");
    assert(r.json.nextCheckAt <= now + 5000 + 1000, "within one 5 s period");
    assertEquals(r.json.nextPollAfterMs, r.json.nextCheckAt - now);
    assert(Number.isInteger(r.json.nextCheckAt) && Number.isInteger(r.json.nextPollAfterMs));
  };
  const j = visible(await a.join(Q));
  check(j);
  t.clock.advance(250);
  const early = visible(await a.status());
  check(early);
  assertEquals(early.json.nextCheckAt, j.json.nextCheckAt, "an early status keeps the slot");
  t.clock.advance(j.json.nextCheckAt - t.clock.now() + 123);
  const due = visible(await a.status());
  check(due);
  assert(due.json.nextCheckAt > j.json.nextCheckAt, "a due status gets the next slot");
  t.clock.advance(400);
  check(visible(await post(a, "/heartbeat", { queue: Q, visitorId: "slot-000001" })));
  t.close();
});

// ---------------------------------------------------------------- liveness

Deno.test("a status before nextCheckAt is read-only: no write, no renewal, and the visitor is dropped after its deadline and grace", async () => {
  const t = await makeApp();
  const [a] = await waiters(t, ["early-00001"], false);
  const before = await t.kv.get<{ deadline: number; nextCheckAt: number }>(
    keys.visitor(Q, "early-00001"),
  );
  assert(before.value);
  const { deadline, nextCheckAt } = before.value;
  assertEquals(deadline - nextCheckAt, 40_000, "two 5 s periods plus 30 s");
  for (const at of [t.clock.now() + 10, nextCheckAt - 500, nextCheckAt - 1]) {
    t.clock.advance(at - t.clock.now());
    const r = visible(await a.status());
    assertEquals(r.json.status, "waiting");
    assertEquals(r.json.nextCheckAt, nextCheckAt);
  }
  const after = await t.kv.get(keys.visitor(Q, "early-00001"));
  assertEquals(after.versionstamp, before.versionstamp, "early status wrote to the store");
  t.clock.advance(deadline - t.clock.now());
  await t.engine.tick(Q);
  assertEquals(
    (await t.engine.visitor(Q, "early-00001"))?.state,
    "waiting",
    "alive at the deadline",
  );
  // Then silent, its place kept for the queue's grace (300 s by default; issue 32).
  t.clock.advance(300_000);
  await t.engine.tick(Q);
  assertEquals((await t.engine.visitor(Q, "early-00001"))?.state, "waiting", "kept in its grace");
  await step(t);
  await assertError(visible(await a.status()), 404, "not_in_queue");
  const m = await t.engine.metrics(Q);
  assertEquals([m.waiting, m.abandoned], [0, 1]);
  t.close();
});

Deno.test("a due status renews liveness: the visitor survives its first deadline", async () => {
  const t = await makeApp();
  const [a] = await waiters(t, ["due-0000001"], false);
  const rec = (await t.engine.visitor(Q, "due-0000001"))!;
  t.clock.advance(rec.nextCheckAt - t.clock.now());
  const r = visible(await a.status());
  assertEquals(r.json.status, "waiting");
  const renewed = (await t.engine.visitor(Q, "due-0000001"))!;
  assert(renewed.nextCheckAt > rec.nextCheckAt, "new slot");
  assert(renewed.deadline > rec.deadline, "new deadline");
  t.clock.advance(rec.deadline + 1000 - t.clock.now());
  await t.engine.tick(Q);
  const s = visible(await a.status());
  assertEquals([s.status, s.json.status], [200, "waiting"]);
  assertEquals((await t.engine.metrics(Q)).abandoned, 0);
  t.close();
});

Deno.test("heartbeat renews liveness at any time; a silent visitor is dropped and counted as abandoned", async () => {
  const t = await makeApp();
  const [a, b, c] = await waiters(t, ["beat-000001", "quiet-00001", "beat-000003"], false);
  // 420 s: past the quiet one's deadline and its 300 s grace.
  for (let s = 0; s < 21; s++) {
    await step(t, 20_000);
    for (const [cl, id] of [[a, "beat-000001"], [c, "beat-000003"]] as const) {
      const r = visible(await post(cl, "/heartbeat", { queue: Q, visitorId: id }));
      assertEquals([r.status, r.json.status], [200, "waiting"]);
    }
  }
  await step(t);
  await assertError(visible(await b.status()), 404, "not_in_queue");
  await assertError(
    visible(await post(b, "/heartbeat", { queue: Q, visitorId: "quiet-00001" })),
    404,
    "not_in_queue",
  );
  assertEquals(visible(await a.status()).json.position, 1);
  assertEquals(visible(await c.status()).json.position, 2, "moved up past the dropped visitor");
  const m = await t.engine.metrics(Q);
  assertEquals([m.waiting, m.abandoned], [2, 1]);
  // The dropped visitor may join again, at the back.
  const again = visible(await b.join(Q, "quiet-00001"));
  assertEquals([again.status, again.json.position], [202, 3]);
  t.close();
});

// ---------------------------------------------------------------- estimated wait

Deno.test("estimatedWaitSeconds in queue mode is position over rate and decreases as the line moves", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100 });
  const last = (await waiters(t, ["est-000001", "est-000002", "est-000003", "est-000004"]))[3];
  const seen: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = visible(await last.status());
    assertEquals(r.json.estimatedWaitSeconds, r.json.position, "position / 1 per second");
    seen.push(r.json.estimatedWaitSeconds);
    assertEquals((await step(t)).admitted, 1);
  }
  assertEquals(seen, [4, 3, 2]);
  t.close();
});

Deno.test("estimatedWaitSeconds in lottery mode is given and decreases as the line shrinks", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100, ADMISSION_MODE: "lottery" });
  const cs = await waiters(t, [
    "lot-est-001",
    "lot-est-002",
    "lot-est-003",
    "lot-est-004",
    "lot-est-005",
  ]);
  let prev = Infinity;
  for (let i = 0; i < 3; i++) {
    const views = [];
    for (const c of cs) {
      const r = visible(await c.status());
      if (r.json.status === "waiting") views.push(r.json);
    }
    assertEquals(views.length, 5 - i);
    for (const v of views) {
      assert(
        typeof v.estimatedWaitSeconds === "number" && v.estimatedWaitSeconds > 0,
        JSON.stringify(v),
      );
      assert(
        v.estimatedWaitSeconds <= 5 - i,
        `estimate ${v.estimatedWaitSeconds} for ${5 - i} waiting at 1/s`,
      );
    }
    const worst = Math.max(...views.map((v) => v.estimatedWaitSeconds));
    assert(worst < prev, `estimate did not decrease: ${worst} after ${prev}`);
    prev = worst;
    assertEquals((await step(t)).admitted, 1);
  }
  t.close();
});

Deno.test("estimatedWaitSeconds counts from the opening time, never to it (opensAt stays secret)", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  await t.engine.setOpensAt(Q, t.clock.now() + 600_000);
  const c = new Client(t.app);
  const r = visible(await c.join(Q, "opening-001"));
  assertEquals(r.status, 202);
  assertEquals(r.json.estimatedWaitSeconds, 1);
  t.clock.advance(100_000);
  assertEquals(visible(await c.status()).json.estimatedWaitSeconds, 1);
  t.close();
});

// ---------------------------------------------------------------- leave

Deno.test("leave frees the place, shifts those behind, clears cookies, and leaving twice is fine", async () => {
  const t = await makeApp();
  const [, b, c, d] = await waiters(
    t,
    ["leave-0001", "leave-0002", "leave-0003", "leave-0004"],
    false,
  );
  const oldTicket = b.cookies.get("tg_ticket")!;
  const r = await post(b, "/leave", { queue: Q, visitorId: "leave-0002" });
  assertEquals(r.status, 200);
  assertEquals(r.json, { status: "left" });
  for (const name of ["tg_ticket", "tg_access"]) {
    const sc = setCookieOf(r.headers, name);
    assert(sc, `${name} not cleared`);
    assert(
      sc.attrs.includes("max-age=0") || sc.attrs.some((a) => a.startsWith("expires=")),
      `${name} kept`,
    );
    assertEquals(sc.value, "");
  }
  assertEquals((await c.status()).json.position, 2);
  assertEquals((await d.status()).json.position, 3);
  assertEquals((await counts(t)).waiting, 3);
  // A second leave with the old ticket is not an error and does not count twice.
  b.cookies.set("tg_ticket", oldTicket);
  const again = await post(b, "/leave", { queue: Q, visitorId: "leave-0002" });
  assertEquals([again.status, again.json], [200, { status: "left" }]);
  assertEquals((await counts(t)).waiting, 3);
  b.cookies.set("tg_ticket", oldTicket);
  await assertError(visible(await b.status()), 404, "not_in_queue");
  t.close();
});

Deno.test("the head of the line leaving: the next visitor is first and an old ticket is gone", async () => {
  const t = await makeApp();
  const [a, b] = await waiters(t, ["head-000001", "head-000002"], false);
  const old = a.cookies.get("tg_ticket")!;
  assertEquals((await post(a, "/leave", { queue: Q, visitorId: "head-000001" })).status, 200);
  assertEquals((await b.status()).json.position, 1);
  a.cookies.set("tg_ticket", old);
  await assertError(visible(await a.status()), 404, "not_in_queue");
  assertEquals((await post(b, "/leave", { queue: Q, visitorId: "head-000002" })).status, 200);
  assertEquals((await counts(t)).waiting, 0);
  t.close();
});

Deno.test("an entered visitor leaving frees its slot for the next waiter", async () => {
  const t = await makeApp({ CAPACITY: 1, ADMIT_PER_SECOND: 100 });
  const a = new Client(t.app);
  assertEquals((await a.join(Q, "slot-holder1")).status, 200);
  const b = new Client(t.app);
  assertEquals((await b.join(Q, "slot-waiter1")).status, 202);
  assertEquals((await step(t)).admitted, 0);
  const r = await post(a, "/leave", { queue: Q, visitorId: "slot-holder1" });
  assertEquals(r.status, 200);
  assertEquals(a.cookies.has("tg_access"), false, "tg_access cleared");
  assertEquals((await counts(t)).entered, 0);
  assertEquals((await step(t)).admitted, 1);
  const s = visible(await b.status());
  assertEquals([s.json.status, s.json.entered], ["admitted", true]);
  assertEquals(
    assertVisitorCookie(s.headers, "tg_access", false),
    s.json.accessToken,
    "status sets tg_access",
  );
  t.close();
});

// ---------------------------------------------------------------- click-to-enter

Deno.test("click-to-enter: admitted shows entered:false without token; /enter gives the token and tg_access", async () => {
  const t = await makeApp();
  await t.setBranding({ clickToEnter: true, admitHoldSeconds: 30 });
  const c = new Client(t.app);
  const j = visible(await c.join(Q, "clicker-0001"));
  assertEquals(j.status, 200);
  assertEquals([j.json.status, j.json.entered, j.json.accessToken], ["admitted", false, undefined]);
  for (const k of Object.keys(j.json)) {
    assert(["queue", "visitorId", "status", "entered", "enterBy"].includes(k), `unexpected ${k}`);
  }
  assertEquals(setCookieOf(j.headers, "tg_access"), null, "no tg_access before entering");
  assertVisitorCookie(j.headers, "tg_ticket", false);
  assertEquals(await counts(t), { waiting: 0, entered: 0, holding: 1, admitted: 1 });
  const s = visible(await c.status());
  assertEquals([s.json.status, s.json.entered, s.json.accessToken], ["admitted", false, undefined]);
  assertEquals(c.cookies.has("tg_access"), false);
  const e = visible(await post(c, "/enter", { queue: Q, visitorId: "clicker-0001" }));
  assertEquals(e.status, 200);
  assertEquals([e.json.status, e.json.entered], ["admitted", true]);
  assert(
    await t.services.signer.verifyAccessToken(e.json.accessToken, t.clock.now(), Q),
    "valid token",
  );
  assertEquals(assertVisitorCookie(e.headers, "tg_access", false), e.json.accessToken);
  assertEquals(await counts(t), { waiting: 0, entered: 1, holding: 0, admitted: 1 });
  const twice = visible(await post(c, "/enter", { queue: Q, visitorId: "clicker-0001" }));
  assertEquals([twice.status, twice.json.accessToken], [200, e.json.accessToken]);
  assertEquals((await counts(t)).entered, 1, "confirming twice enters once");
  const s2 = visible(await c.status());
  assertEquals([s2.json.entered, s2.json.accessToken], [true, e.json.accessToken]);
  t.close();
});

Deno.test("click-to-enter: /enter while waiting is 409 not_admitted", async () => {
  const t = await makeApp();
  await t.setBranding({ clickToEnter: true });
  const [a] = await waiters(t, ["patient-0001"], false);
  const r = visible(await post(a, "/enter", { queue: Q, visitorId: "patient-0001" }));
  await assertError(r, 409, "not_admitted");
  assertEquals(setCookieOf(r.headers, "tg_access"), null);
  assertEquals((await a.status()).json.status, "waiting");
  t.close();
});

Deno.test("click-to-enter: an unconfirmed admission expires admitHoldSeconds after the visitor could learn it, and its slot frees", async () => {
  const t = await makeApp({ CAPACITY: 1, ADMIT_PER_SECOND: 100 });
  await t.setBranding({ clickToEnter: true, admitHoldSeconds: 30 });
  const [w1, w2] = await waiters(t, ["holder-0001", "holder-0002"]);
  const t0 = t.clock.now();
  const nca = (await t.engine.visitor(Q, "holder-0001"))!.nextCheckAt;
  assert(nca > t0, "the slot is in the future");
  assertEquals(await t.engine.admit(Q, 5), 1, "one slot");
  assertEquals(await counts(t), { waiting: 1, entered: 0, holding: 1, admitted: 1 });
  const s = visible(await w1.status());
  assertEquals([s.json.status, s.json.entered, s.json.accessToken], ["admitted", false, undefined]);
  // The hold counts from the visitor's next check-in, not from the moment of admission.
  t.clock.advance(t0 + 30_000 + 500 - t.clock.now());
  assert(t.clock.now() < nca + 30_000);
  await t.engine.tick(Q);
  assertEquals((await t.engine.visitor(Q, "holder-0001"))?.state, "admitted", "still held");
  t.clock.advance(nca + 30_000 - t.clock.now());
  await t.engine.tick(Q);
  await assertError(visible(await w1.status()), 404, "not_in_queue");
  const late = visible(await post(w1, "/enter", { queue: Q, visitorId: "holder-0001" }));
  await assertError(late, 404, "not_in_queue");
  assertEquals(setCookieOf(late.headers, "tg_access"), null);
  // The same tick that expired the hold gave the freed slot to the next waiter.
  const s2 = visible(await w2.status());
  assertEquals(
    [s2.json.status, s2.json.entered],
    ["admitted", false],
    "the freed slot went to the next",
  );
  assertEquals(await counts(t), { waiting: 0, entered: 0, holding: 1, admitted: 2 });
  t.close();
});

Deno.test("click-to-enter: an instant admission at join is held for admitHoldSeconds", async () => {
  const t = await makeApp();
  await t.setBranding({ clickToEnter: true, admitHoldSeconds: 20 });
  const c = new Client(t.app);
  assertEquals((await c.join(Q, "instant-001")).status, 200);
  await step(t, 19_000);
  assertEquals((await c.status()).json.status, "admitted");
  await step(t, 1_000);
  await assertError(visible(await c.status()), 404, "not_in_queue");
  assertEquals((await counts(t)).holding, 0);
  t.close();
});

// ---------------------------------------------------------------- /verify

Deno.test("/verify: 204 with a valid token via header, query or cookie; 401 otherwise", async () => {
  const t = await makeApp({ QUEUES: ["default", "other"], ACCESS_TOKEN_TTL_SECONDS: 60 });
  const c = new Client(t.app);
  const j = await c.join(Q, "verified-001");
  assertEquals(j.status, 200);
  const token: string = j.json.accessToken;
  const anon = new Client(t.app);
  assertEquals(
    (await anon.req("GET", "/verify", undefined, { authorization: `Bearer ${token}` })).status,
    204,
  );
  assertEquals(
    (await anon.req("GET", `/verify?accessToken=${encodeURIComponent(token)}`)).status,
    204,
  );
  assertEquals((await c.req("GET", "/verify")).status, 204, "tg_access cookie");
  assertEquals((await c.req("GET", "/verify?queue=default")).status, 204);
  await assertError(await c.req("GET", "/verify?queue=other"), 401, "unauthorized");
  await assertError(await anon.req("GET", "/verify"), 401, "unauthorized");
  const tampered = token.slice(0, 10) + (token[10] === "A" ? "B" : "A") + token.slice(11);
  await assertError(
    await anon.req("GET", "/verify", undefined, { authorization: `Bearer ${tampered}` }),
    401,
    "unauthorized",
  );
  const ticket = c.cookies.get("tg_ticket")!;
  await assertError(
    await anon.req("GET", "/verify", undefined, { authorization: `Bearer ${ticket}` }),
    401,
    "unauthorized",
  );
  const foreign = await new Signer("another-secret-another-secret-00").signAccessToken(
    "verified-001",
    Q,
    t.clock.now(),
    60,
  );
  await assertError(await anon.req("GET", `/verify?accessToken=${foreign}`), 401, "unauthorized");
  t.clock.advance(59_000);
  assertEquals((await c.req("GET", "/verify")).status, 204, "still valid before exp");
  t.clock.advance(1_000);
  await assertError(await c.req("GET", "/verify"), 401, "unauthorized");
  t.close();
});

// ---------------------------------------------------------------- learning of admission

for (const mode of ["queue", "lottery"] as const) {
  Deno.test(`${mode} mode: a visitor admitted by the tick learns it at its next status, even before its slot`, async () => {
    const t = await makeApp({ ADMIT_PER_SECOND: 2, CAPACITY: 100, ADMISSION_MODE: mode });
    const list = ["learn-00001", "learn-00002", "learn-00003", "learn-00004", "learn-00005"];
    const cs = await waiters(t, list);
    assertEquals((await step(t)).admitted, 2);
    let admitted = 0;
    for (let i = 0; i < cs.length; i++) {
      const st = (await t.engine.visitor(Q, list[i]))?.state;
      const r = visible(await cs[i].status());
      assertEquals(r.status, 200);
      if (st === "waiting") {
        assertEquals(r.json.status, "waiting", list[i]);
        assert(r.json.nextCheckAt > t.clock.now());
      } else {
        admitted++;
        assertEquals([r.json.status, r.json.entered], ["admitted", true], list[i]);
        assertEquals(cs[i].cookies.get("tg_access"), r.json.accessToken);
      }
    }
    assertEquals(admitted, 2);
    assertEquals(await counts(t), { waiting: 3, entered: 2, holding: 0, admitted: 2 });
    t.close();
  });
}

Deno.test("click-to-enter: leaving while admitted but unconfirmed frees the held slot", async () => {
  const t = await makeApp({ CAPACITY: 1 });
  await t.setBranding({ clickToEnter: true });
  const a = new Client(t.app);
  assertEquals((await a.join(Q, "unconfirmed1")).status, 200);
  assertEquals(await counts(t), { waiting: 0, entered: 0, holding: 1, admitted: 1 });
  assertEquals((await post(a, "/leave", { queue: Q, visitorId: "unconfirmed1" })).status, 200);
  assertEquals(await counts(t), { waiting: 0, entered: 0, holding: 0, admitted: 1 });
  t.clock.advance(1000);
  assertEquals(
    (await new Client(t.app).join(Q, "next-visitor")).status,
    200,
    "the slot is free again",
  );
  t.close();
});

Deno.test("lottery odds of a short line are the share admitted per period, not a certainty", async () => {
  const t = await makeApp({ ADMISSION_MODE: "lottery", ADMIT_PER_SECOND: 1 });
  await t.setBranding({ showWaitingCount: true });
  await t.engine.setPaused(Q, true);
  const clients = [];
  for (let i = 0; i < 50; i++) {
    const c = new Client(t.app);
    await c.join(Q);
    clients.push(c);
  }
  const r = await clients[0].status();
  // 50 waiting, one admission a second, a check-in every 5 s: 5 of 50 per period.
  assertEquals([r.json.waiting, r.json.lotteryOdds], [50, 0.1]);
  t.close();
});
