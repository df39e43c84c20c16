import { Hono } from "hono";
import { onError } from "../app.ts";
import { TOS_VERSION } from "../lib/admin/tos.ts";
import { keys } from "../lib/store/keys.ts";
import { sessionChecker } from "../routes/admin/session.ts";
import { assert, assertEquals } from "./assert.ts";
import {
  AdminClient,
  adminClient,
  loginAs,
  setAcceptedTos,
  TEST_ORIGIN,
  TEST_PASSWORD,
} from "./admin_helpers.ts";
import { makeApp } from "./helpers.ts";

Deno.test("logout: ends the session and clears the cookie", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const cookie = client.cookies.get("tg_admin")!;
  const res = await client.req("POST", "/api/admin/logout");
  assertEquals(res.status, 200);
  assert(/tg_admin=;.*Max-Age=0/i.test(res.headers.getSetCookie().join("\n")), "cookie cleared");
  assertEquals(client.cookies.size, 0);
  const stale = new AdminClient(t.app);
  stale.cookies.set("tg_admin", cookie);
  assertEquals((await stale.req("GET", "/api/admin/users")).status, 401);
  assertEquals((await stale.req("POST", "/api/admin/logout")).status, 401);
  t.close();
});

Deno.test("sessions: 12 h idle and 7 days absolute on the injected clock", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const users = () => client.req("GET", "/api/admin/users");
  const h = 3_600_000;
  t.clock.advance(12 * h - 1000);
  assertEquals((await users()).status, 200, "just under 12 h idle");
  t.clock.advance(12 * h);
  assertEquals((await users()).status, 401, "12 h idle");
  const left = await t.kv.list({ prefix: keys.adminSessions() }).next();
  assertEquals(left.done, true, "the expired session was deleted");

  const b = await loginAs(t, "admin", TEST_PASSWORD);
  for (let i = 0; i < 13; i++) {
    t.clock.advance(12 * h - 60_000);
    assertEquals((await b.req("GET", "/api/admin/users")).status, 200, `use ${i}`);
  }
  t.clock.advance(12 * h - 60_000); // 7 days minus 14 minutes in total
  assertEquals((await b.req("GET", "/api/admin/users")).status, 200);
  t.clock.advance(15 * 60_000);
  assertEquals((await b.req("GET", "/api/admin/users")).status, 401, "7 days absolute");
  t.close();
});

Deno.test("sessions: lastSeenAt is written at most once a minute", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const record = async () => {
    const all = [];
    for await (const e of t.kv.list<{ lastSeenAt: number }>({ prefix: keys.adminSessions() })) {
      all.push(e);
    }
    assertEquals(all.length, 1);
    return all[0];
  };
  const first = await record();
  t.clock.advance(30_000);
  await client.req("GET", "/api/admin/users");
  assertEquals((await record()).versionstamp, first.versionstamp, "no write within a minute");
  t.clock.advance(31_000);
  await client.req("GET", "/api/admin/users");
  assertEquals((await record()).value.lastSeenAt, t.clock.now());
  t.close();
});

Deno.test("sessions: rotating TOKEN_SECRET ends every session; the id is stored only keyed", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const id = client.cookies.get("tg_admin")!;
  for await (const e of t.kv.list({ prefix: keys.adminSessions() })) {
    assert(!JSON.stringify(e).includes(id), "raw id not stored");
    const sha = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(id));
    const b64 = btoa(String.fromCharCode(...new Uint8Array(sha))).replace(/\+/g, "-")
      .replace(/\//g, "_").replace(/=+$/, "");
    assert(e.key[e.key.length - 1] !== b64, "not a plain SHA-256 either");
  }
  const same = await makeApp({}, { kv: t.kv, clock: t.clock });
  const rotated = await makeApp({ TOKEN_SECRET: "another-secret-another-secret-0123456" }, {
    kv: t.kv,
    clock: t.clock,
  });
  for (const [app, want] of [[same, 200], [rotated, 401]] as const) {
    const c = new AdminClient(app.app);
    c.cookies.set("tg_admin", id);
    assertEquals((await c.req("GET", "/api/admin/users")).status, want);
  }
  // Accounts survive a rotation: the admin signs in again.
  assertEquals((await loginAs(rotated, "admin", TEST_PASSWORD)).cookies.has("tg_admin"), true);
  t.close();
});

Deno.test("CSRF: admin writes need this service's Origin; reads do not", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const post = (headers: Record<string, string>) =>
    client.req("POST", "/api/admin/invites", undefined, headers);
  // AdminClient adds the Origin unless one is given, so pass the bad ones explicitly.
  const noOrigin = await t.app.request("/api/admin/invites", {
    method: "POST",
    headers: { cookie: `tg_admin=${client.cookies.get("tg_admin")}` },
  });
  assertEquals(noOrigin.status, 403);
  assertEquals((await noOrigin.json()).error.code, "forbidden");
  assertEquals((await post({ origin: "https://evil.example" })).status, 403);
  assertEquals((await post({ origin: "null" })).status, 403);
  assertEquals((await post({ origin: TEST_ORIGIN })).status, 200);
  assertEquals((await client.req("GET", "/api/admin/invites")).json.invites.length, 1);
  const get = await t.app.request("/api/admin/invites", {
    headers: { cookie: `tg_admin=${client.cookies.get("tg_admin")}` },
  });
  assertEquals(get.status, 200, "GET without Origin");

  // With PUBLIC_URL set, its origin is the only one accepted.
  const p = await makeApp({ PUBLIC_URL: "https://queue.example.com/" });
  const a = await adminClient(p);
  assertEquals((await a.client.req("POST", "/api/admin/invites")).status, 403);
  const ok = await a.client.req("POST", "/api/admin/invites", undefined, {
    origin: "https://queue.example.com",
  });
  assertEquals(ok.status, 200);
  t.close();
  p.close();
});

Deno.test("ToS: a stale acceptance allows only tos/accept (and logout) until accepted", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  await setAcceptedTos(t, "admin", "2020-01-01");
  const users = await client.req("GET", "/api/admin/users");
  assertEquals([users.status, users.json.error.code], [403, "forbidden"]);
  assertEquals(users.json.error.details.tosVersion, TOS_VERSION);
  assertEquals((await client.req("POST", "/api/admin/invites")).status, 403);
  const boot = (await client.req("GET", "/api/admin/bootstrap")).json;
  assertEquals([boot.needsTos, boot.acceptedTosVersion], [true, "2020-01-01"]);
  const wrong = await client.req("POST", "/api/admin/tos/accept", {
    acceptedTosVersion: "2020-01-01",
  });
  assertEquals(wrong.status, 403);
  assertEquals((await client.req("POST", "/api/admin/tos/accept", {})).status, 400);
  const ok = await client.req("POST", "/api/admin/tos/accept", { acceptedTosVersion: TOS_VERSION });
  assertEquals([ok.status, ok.json.user.acceptedTosVersion], [200, TOS_VERSION]);
  assertEquals((await client.req("GET", "/api/admin/users")).status, 200);
  assertEquals((await client.req("GET", "/api/admin/bootstrap")).json.needsTos, false);
  await setAcceptedTos(t, "admin", "2020-01-01");
  assertEquals((await client.req("POST", "/api/admin/logout")).status, 200);
  const anon = new AdminClient(t.app);
  assertEquals(
    (await anon.req("POST", "/api/admin/tos/accept", { acceptedTosVersion: TOS_VERSION })).status,
    401,
  );
  t.close();
});

Deno.test("challenge gate: login calls s.challenge.verify and is refused when it fails", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client: before } = await adminClient(t);
  const calls: [string | undefined, string][] = [];
  t.services.challenge = {
    configured: () => Promise.resolve(true),
    verify: (r, ip) => {
      calls.push([r, ip]);
      return Promise.resolve(r === "good");
    },
  };
  const c = new AdminClient(t.app);
  const body = { username: "admin", password: TEST_PASSWORD };
  const refused = await c.req("POST", "/api/admin/login", body, { "x-ip": "9.9.9.9" });
  assertEquals([refused.status, refused.json.error.code], [401, "unauthorized"]);
  assertEquals(c.cookies.size, 0);
  const bad = await c.req("POST", "/api/admin/login", { ...body, challengeResponse: "bad" }, {
    "x-ip": "9.9.9.9",
  });
  assertEquals(bad.status, 401);
  const ok = await c.req("POST", "/api/admin/login", { ...body, challengeResponse: "good" }, {
    "x-ip": "9.9.9.9",
  });
  assertEquals(ok.status, 200);
  assertEquals(calls, [[undefined, "9.9.9.9"], ["bad", "9.9.9.9"], ["good", "9.9.9.9"]]);
  // the session issued before the challenge was configured stays valid.
  assertEquals((await before.req("GET", "/api/admin/state")).status, 200);
  t.close();
});

Deno.test("sessionChecker: true for a valid session, false for none, 403 when it may not act", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const check = sessionChecker(t.services);
  const probe = new Hono();
  probe.onError(onError);
  probe.all("/x", async (c) => c.json({ ok: await check(c), admin: c.get("admin" as never) }));
  const ask = async (method: string, headers: Record<string, string>) => {
    const r = await probe.request("/x", { method, headers });
    const body = await r.json();
    return r.status === 200 ? body : `${r.status} ${body.error.code}`;
  };
  const cookie = `tg_admin=${client.cookies.get("tg_admin")}`;
  const me = (await client.req("GET", "/api/admin/bootstrap")).json.me;
  assertEquals(await ask("GET", { cookie }), { ok: true, admin: { id: me.id, username: "admin" } });
  assertEquals(await ask("GET", {}), { ok: false });
  assertEquals(await ask("GET", { cookie: "tg_admin=forged" }), { ok: false });
  assertEquals(await ask("POST", { cookie }), "403 forbidden", "a write without Origin");
  assertEquals(await ask("POST", { cookie, origin: "https://evil.example" }), "403 forbidden");
  assertEquals((await ask("POST", { cookie, origin: TEST_ORIGIN })).ok, true);
  await setAcceptedTos(t, "admin", "2020-01-01");
  assertEquals(await ask("GET", { cookie }), "403 forbidden", "stale ToS");
  t.close();
});

Deno.test("operator endpoints: a stale-ToS session is 403 forbidden (not 401) and changes nothing", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const calls: [string, string, unknown][] = [
    ["POST", "/admit", { queue: "default", count: 1 }],
    ["POST", "/mode", { queue: "default", mode: "lottery" }],
    ["POST", "/pause", { queue: "default", paused: true }],
    ["GET", "/metrics", undefined],
    ["GET", "/metrics?queue=default", undefined],
  ];
  await setAcceptedTos(t, "admin", "2020-01-01");
  for (const [m, p, body] of calls) {
    const r = await client.req(m, p, body);
    assertEquals([r.status, r.json.error.code], [403, "forbidden"], `${m} ${p}`);
    assertEquals(r.json.error.details.needsTos, true);
  }
  const m = await t.engine.metrics("default");
  assertEquals([m.paused, m.admissionMode], [false, "queue"], "nothing changed");
  // No session at all is still 401; the bearer still works whatever the cookie says.
  const anon = await new AdminClient(t.app).req("GET", "/metrics");
  assertEquals(anon.status, 401);
  const bearer = await client.req("GET", "/metrics", undefined, {
    authorization: `Bearer ${t.config.TOKEN_SECRET}`,
  });
  assertEquals(bearer.status, 200);
  await setAcceptedTos(t, "admin", TOS_VERSION);
  for (const [m, p, body] of calls) assertEquals((await client.req(m, p, body)).status, 200, p);
  t.close();
});
