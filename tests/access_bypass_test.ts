import { RulesCache, saveBypass } from "../lib/access/rules.ts";
import { FakeClock } from "../lib/clock.ts";
import { keys } from "../lib/store/keys.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import {
  fromIp,
  holdFirstRead,
  joinRequest,
  type ServedApp,
  servedApp,
  setCookies,
  twinJoin,
} from "./access_helpers.ts";
import { Client, makeApp } from "./helpers.ts";

const LIST = "# office\n203.0.113.7\n2001:db8::/32 # VPN\n";

Deno.test("bypass API: read, save, every bad line reported by number, nothing saved", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  assertEquals((await client.req("GET", "/api/admin/bypass")).json, {
    allowlistText: "",
    entries: 0,
    updatedAt: null,
  });
  const put = await client.req("PUT", "/api/admin/bypass", { allowlistText: LIST });
  assertEquals(put.status, 200);
  assertEquals(put.json, { allowlistText: LIST, entries: 2, updatedAt: t.clock.now() });
  assertEquals((await client.req("GET", "/api/admin/bypass")).json, put.json);
  const before = await t.kv.get(keys.bypass());

  const bad = await client.req("PUT", "/api/admin/bypass", {
    allowlistText: "10.0.0.1\n10.0.0.0/33\n\nnot-an-ip # typo\n2001:db8::1",
  });
  assertEquals([bad.status, bad.json.error.code], [400, "bad_request"]);
  assertEquals(
    bad.json.error.details.lines.map((l: { line: number; value: string }) => [l.line, l.value]),
    [[2, "10.0.0.0/33"], [4, "not-an-ip"]],
  );
  assertEquals(bad.json.error.details.fields.length, 2);
  for (const body of [{}, { allowlistText: 7 }, { allowlistText: "x".repeat(32_001) }]) {
    const r = await client.req("PUT", "/api/admin/bypass", body);
    assertEquals([r.status, r.json.error.code], [400, "bad_request"], JSON.stringify(body));
  }
  assertEquals((await t.kv.get(keys.bypass())).versionstamp, before.versionstamp, "nothing saved");
  const audit = await client.req("GET", "/api/admin/audit");
  const entry = audit.json.entries.find((e: { action: string }) => e.action === "access.bypass");
  assertEquals(entry.detail, { entries: 2 });
  t.close();
});

/** Twin apps (fast path, Hono) with one slot, an allowlist, and the slot taken by someone. */
async function twinsWithList(overrides: Parameters<typeof servedApp>[0] = {}) {
  const fast = await servedApp({ CAPACITY: 1, ...overrides });
  const hono = await servedApp({ CAPACITY: 1, ...overrides });
  for (const a of [fast, hono]) {
    await saveBypass(a.kv, a.clock, LIST);
    a.services.access.rules.invalidate();
  }
  const join = (ip: string, body: unknown = { queue: "default" }) =>
    twinJoin(fast, hono, () => joinRequest(body), fromIp(ip));
  const both = async (f: (a: ServedApp) => Promise<unknown>) => {
    await f(fast);
    await f(hono);
  };
  return { fast, hono, join, both, close: () => (fast.kv.close(), hono.kv.close()) };
}

Deno.test("bypass: an allowlisted join is admitted at once and takes no slot (both join paths)", async () => {
  const t = await twinsWithList();
  // The one slot goes to a normal visitor; the next one waits.
  assertEquals((await t.join("198.51.100.1")).status, 200);
  assertEquals((await t.join("198.51.100.2")).status, 202);
  const before = await t.fast.engine.metrics("default");

  for (const ip of ["203.0.113.7", "::ffff:203.0.113.7", "2001:db8:1::5"]) {
    const r = await t.join(ip);
    assertEquals(r.status, 200, ip);
    assertEquals([r.json.status, r.json.entered, r.json.queue], ["admitted", true, "default"]);
    const cookies = setCookies(r.res);
    assertEquals(cookies.tg_access, r.json.accessToken);
    assert(cookies.tg_ticket, "a ticket too");
    const claims = await t.fast.services.signer.verifyAccessToken(
      r.json.accessToken as string,
      t.fast.clock.now(),
      "default",
    );
    assertEquals(claims?.sub, r.json.visitorId);
  }
  const after = await t.fast.engine.metrics("default");
  assertEquals(
    [after.waiting, after.holding, after.entered, after.openSlots, after.admittedTotal],
    [before.waiting, before.holding, before.entered, before.openSlots, before.admittedTotal],
    "no slot, place or admission counted",
  );
  const records = await Array.fromAsync(t.fast.kv.list({ prefix: ["v", "default"] }));
  assertEquals(records.length, 2, "no visitor record for the allowlisted joins");
  // One address outside the list is a normal visitor again.
  assertEquals((await t.join("203.0.113.8")).status, 202);
  t.close();
});

Deno.test("bypass: pause, opening time, health pause and a full line do not apply", async () => {
  const t = await twinsWithList({ MAX_WAITING_VISITORS: 1 });
  await t.join("198.51.100.1"); // the slot
  await t.join("198.51.100.2"); // the one waiting place
  const closers: [string, (a: ServedApp) => Promise<unknown>][] = [
    ["full line", () => Promise.resolve()],
    ["paused", (a) => a.engine.setPaused("default", true)],
    ["before opensAt", (a) => a.engine.setOpensAt("default", a.clock.now() + 3_600_000)],
    ["health-paused", (a) => a.engine.setHealthPaused("default", true)],
  ];
  for (const [name, close] of closers) {
    await t.both(close);
    assertEquals((await t.join("198.51.100.9")).status, 503, `${name}: others are turned away`);
    const r = await t.join("203.0.113.7");
    assertEquals([r.status, r.json.entered], [200, true], name);
  }
  // An unknown queue is unknown to everyone.
  const unknown = await t.join("203.0.113.7", { queue: "nope" });
  assertEquals([unknown.status, unknown.json.error], [404, {
    code: "unknown_queue",
    message: 'unknown queue "nope"',
    details: {},
  }]);
  t.close();
});

Deno.test("bypass: the client IP comes only from CLIENT_IP_HEADER when set, else the socket", async () => {
  const viaHeader = await twinsWithList({ CLIENT_IP_HEADER: "cf-connecting-ip" });
  const j = (a: typeof viaHeader, socket: string, h: Record<string, string>) =>
    twinJoin(a.fast, a.hono, () => joinRequest({ queue: "default" }, h), fromIp(socket));
  await viaHeader.join("198.51.100.1"); // the slot
  const listed = await j(viaHeader, "198.51.100.50", { "cf-connecting-ip": "203.0.113.7" });
  assertEquals(listed.status, 200, "the header names an allowlisted address");
  const socketOnly = await j(viaHeader, "203.0.113.7", { "cf-connecting-ip": "198.51.100.60" });
  assertEquals(socketOnly.status, 202, "the socket does not count when the header is configured");
  viaHeader.close();

  const viaSocket = await twinsWithList();
  await viaSocket.join("198.51.100.1");
  const spoofed = await j(viaSocket, "198.51.100.70", {
    "x-forwarded-for": "203.0.113.7",
    "cf-connecting-ip": "203.0.113.7",
  });
  assertEquals(spoofed.status, 202, "headers are not trusted without CLIENT_IP_HEADER");
  viaSocket.close();
});

Deno.test("bypass: status, leave and join again are coherent without a waiting record", async () => {
  const a = await servedApp({ CAPACITY: 1 });
  const send = (req: Request, ip = "203.0.113.7") => a.fetch(req, fromIp(ip));
  // A visitor that waited before it was allowlisted gives its place up on its next join.
  await send(joinRequest({ queue: "default" }), "198.51.100.1");
  const waiter = await send(joinRequest({ queue: "default" }));
  assertEquals(waiter.status, 202);
  const oldTicket = setCookies(waiter).tg_ticket;
  const id = (await waiter.json()).visitorId;
  await a.engine.sequence("default"); // numbered, as each tick does first (0.8.0)
  assertEquals((await a.engine.metrics("default")).waiting, 1);
  await saveBypass(a.kv, a.clock, LIST);
  a.services.access.rules.invalidate();

  const c = new Client({ request: (p, init) => send(new Request(`http://localhost${p}`, init)) });
  c.cookies.set("tg_ticket", oldTicket);
  const joined = await c.join();
  assertEquals([joined.status, joined.json.visitorId, joined.json.entered], [200, id, true]);
  assertEquals((await a.engine.metrics("default")).waiting, 0, "its place was freed");
  assertEquals(await a.engine.visitor("default", id), null);
  assertEquals(c.ticketClaims.sub, id);

  // Status: nothing to track (404 not_in_queue, as for anyone gone); a client joins again.
  const status = await c.status();
  assertEquals([status.status, status.json.error.code], [404, "not_in_queue"]);
  const again = await c.join();
  assertEquals([again.status, again.json.visitorId], [200, id], "same visitor, admitted again");
  const left = await c.req("POST", "/leave", { queue: "default", visitorId: id });
  assertEquals([left.status, left.json], [200, { status: "left" }]);
  assert(!c.cookies.has("tg_ticket") && !c.cookies.has("tg_access"), "cookies cleared");

  // Someone else's id without its ticket is refused, as on a normal join.
  await send(joinRequest({ queue: "default", visitorId: "taken_id_01" }), "198.51.100.2");
  const takeover = await send(joinRequest({ queue: "default", visitorId: "taken_id_01" }));
  assertEquals(takeover.status, 401);
  const own = await send(joinRequest({ queue: "default", visitorId: "fresh_id_01" }));
  assertEquals([own.status, (await own.json()).visitorId], [200, "fresh_id_01"]);
  a.kv.close();
});

Deno.test("bypass: /wait sends an allowlisted visitor straight in (no join, no slot)", async () => {
  const a = await servedApp({ CAPACITY: 1 });
  await a.engine.setPaused("default", true);
  await saveBypass(a.kv, a.clock, LIST);
  a.services.access.rules.invalidate();
  const page = await a.fetch(
    new Request("http://localhost/wait?return=/shop"),
    fromIp("203.0.113.7"),
  );
  assertEquals([page.status, page.headers.get("location")], [303, "/shop"]);
  assert(setCookies(page).tg_access, "admitted with a token");
  const m = await a.engine.metrics("default");
  assertEquals([m.waiting, m.holding, m.entered], [0, 0, 0]);
  const other = await a.fetch(new Request("http://localhost/wait"), fromIp("198.51.100.1"));
  assertEquals(other.status, 200, "anyone else waits on the page");
  await other.body?.cancel();
  a.kv.close();
});

Deno.test("bypass: each instance re-reads the list within a second and parses it once", async () => {
  const kv = await Deno.openKv(":memory:");
  const a = await servedApp({}, { kv });
  const b = await servedApp({}, { kv, clock: a.clock });
  const { client } = await adminClient({ ...a, config: a.services.config } as never);
  const before = await b.services.access.rules.current();
  assertEquals(before.allow.size, 0);
  assertEquals(
    (await client.req("PUT", "/api/admin/bypass", { allowlistText: LIST })).status,
    200,
  );
  assertEquals((await a.services.access.rules.current()).allow.size, 2, "the writer at once");
  assertEquals((await b.services.access.rules.current()).allow.size, 0, "the other: cached");
  a.clock.advance(1000);
  const fresh = await b.services.access.rules.current();
  assertEquals(fresh.allow.size, 2, "after a second");
  a.clock.advance(1000);
  assert((await b.services.access.rules.current()).allow === fresh.allow, "not parsed again");
  kv.close();
});

Deno.test("bypass: a read begun before an admin write never replaces what was read after it", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const { kv: slow, release } = holdFirstRead(kv);
  const rules = new RulesCache(slow, clock);
  const stale = rules.current(); // reads the empty list, then waits
  await saveBypass(kv, clock, LIST);
  rules.invalidate();
  assertEquals((await rules.current()).allow.size, 2, "read after the write");
  release();
  assertEquals((await stale).allow.size, 0, "the early caller gets what it read");
  assertEquals((await rules.current()).allow.size, 2, "the cache keeps the newer read");
  kv.close();
});

Deno.test("trusted proxies: a client reaching the port cannot claim an allowlisted address", async () => {
  // The proxy in front is 10.0.0.2; the client connects from 198.51.100.20 and claims the office.
  const t = await servedApp({ CLIENT_IP_HEADER: "x-forwarded-for", TRUSTED_PROXIES: "10.0.0.2" });
  await saveBypass(t.kv, t.clock, LIST);
  t.services.access.rules.invalidate();
  await t.engine.setPaused("default", true);
  const spoofed = await t.fetch(
    joinRequest({ queue: "default" }, { "x-forwarded-for": "203.0.113.7" }),
    fromIp("198.51.100.20"),
  );
  assertEquals(spoofed.status, 202, "a paused queue: the spoofer waits like everyone");
  // The same header through the trusted proxy is the office, admitted at once.
  const real = await t.fetch(
    joinRequest({ queue: "default" }, { "x-forwarded-for": "203.0.113.7" }),
    fromIp("10.0.0.2"),
  );
  assertEquals(real.status, 200);
  t.kv.close();
});
