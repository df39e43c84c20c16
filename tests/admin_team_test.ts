import { createHash } from "node:crypto";
import { redactDetail } from "../lib/admin/audit.ts";
import { createInvite, type InviteRecord } from "../lib/admin/invites.ts";
import { removeUser } from "../lib/admin/users.ts";
import { TOS_VERSION } from "../lib/admin/tos.ts";
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { AdminClient, adminClient, loginAs } from "./admin_helpers.ts";
import { makeApp, type TestApp } from "./helpers.ts";

const H = 3_600_000;

async function invite(client: AdminClient) {
  const res = await client.req("POST", "/api/admin/invites");
  assertEquals(res.status, 200);
  return res.json as {
    invite: { id: string; expiresAt: number };
    acceptUrl: string;
    token: string;
  };
}

function accept(t: TestApp, token: string, extra: Record<string, unknown> = {}, ip = "1.1.1.1") {
  const c = new AdminClient(t.app);
  const body = {
    token,
    username: "bob",
    password: "bobs password 1",
    acceptedTosVersion: TOS_VERSION,
    ...extra,
  };
  return c.req("POST", "/api/admin/invites/accept", body, { "x-ip": ip }).then((r) => ({
    ...r,
    c,
  }));
}

Deno.test("invites: create once with token, list without it, accept into a new admin", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const inv = await invite(client);
  assertEquals(inv.acceptUrl, `/admin?invite=${inv.token}`);
  assert(inv.token.length >= 43, "256-bit token");
  assertEquals(inv.invite.expiresAt - t.clock.now(), 72 * H);
  const list = await client.req("GET", "/api/admin/invites");
  assertEquals(list.json.invites, [inv.invite]);
  assert(!list.text.includes(inv.token), "no raw token in the list");
  const stored = JSON.stringify(await Array.fromAsync(t.kv.list({ prefix: keys.adminPrefix() })));
  assert(!stored.includes(inv.token), "the raw token is not stored");

  const res = await accept(t, inv.token);
  assertEquals(res.status, 200);
  assertEquals(res.json.user.username, "bob");
  assertEquals(res.json.recoveryPhrase.split(" ").length, 12);
  assertEquals(
    (await res.c.req("GET", "/api/admin/users")).json.users.map((u: { username: string }) =>
      u.username
    ),
    ["admin", "bob"],
  );
  assertEquals((await client.req("GET", "/api/admin/invites")).json.invites, [], "used up");
  assertEquals((await accept(t, inv.token, { username: "carol" })).status, 401, "used twice");
  assertEquals((await loginAs(t, "bob", "bobs password 1")).cookies.has("tg_admin"), true);
  t.close();
});

Deno.test("invites: accept validates input, checks ToS and unique usernames without using the invite", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const { token } = await invite(client);
  let ip = 0;
  const tryIt = (extra: Record<string, unknown>) => accept(t, token, extra, `10.0.0.${ip++}`);
  for (
    const bad of [{ password: "short" }, { username: "x" }, { token: "" }, {
      acceptedTosVersion: undefined,
    }]
  ) {
    const r = await tryIt(bad);
    assertEquals([r.status, r.json.error.code], [400, "bad_request"], JSON.stringify(bad));
  }
  const tos = await tryIt({ acceptedTosVersion: "2001-01-01" });
  assertEquals([tos.status, tos.json.error.code], [403, "forbidden"]);
  const dup = await tryIt({ username: "ADMIN" });
  assertEquals([dup.status, dup.json.error.code], [409, "conflict"]);
  const unknown = await accept(t, "not-a-real-token", {}, "10.0.1.1");
  assertEquals([unknown.status, unknown.json.error.code], [401, "unauthorized"]);
  assertEquals(
    (await client.req("GET", "/api/admin/invites")).json.invites.length,
    1,
    "still pending",
  );
  assertEquals((await tryIt({})).status, 200);
  t.close();
});

Deno.test("invites: valid for 72 h on the injected clock", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const first = await adminClient(t);
  const a = await invite(first.client);
  const b = await invite(first.client);
  t.clock.advance(72 * H - 1);
  const client = await loginAs(t, "admin", first.password); // the first session idled out
  assertEquals((await client.req("GET", "/api/admin/invites")).json.invites.length, 2);
  assertEquals((await accept(t, a.token)).status, 200, "just inside 72 h");
  t.clock.advance(1);
  assertEquals((await client.req("GET", "/api/admin/invites")).json.invites, []);
  const late = await accept(t, b.token, { username: "carol" }, "2.2.2.2");
  assertEquals([late.status, late.json.error.code], [401, "unauthorized"]);
  t.close();
});

Deno.test("invites: revoke, 404 for unknown ids, and a revoked invite cannot be accepted", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const inv = await invite(client);
  const none = await client.req("DELETE", "/api/admin/invites/nope");
  assertEquals([none.status, none.json.error.code], [404, "not_found"]);
  assertEquals((await client.req("DELETE", `/api/admin/invites/${inv.invite.id}`)).status, 200);
  assertEquals((await client.req("DELETE", `/api/admin/invites/${inv.invite.id}`)).status, 404);
  assertEquals((await accept(t, inv.token)).status, 401);
  t.close();
});

Deno.test("invites: accept is limited to 5 per hour per IP", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  for (let i = 0; i < 5; i++) assertEquals((await accept(t, `guess-${i}`)).status, 401);
  const { token } = await invite(client);
  const limited = await accept(t, token);
  assertEquals([limited.status, limited.json.error.code], [429, "rate_limited"]);
  assert(Number(limited.headers.get("retry-after")) <= 3600);
  assertEquals((await accept(t, token, {}, "3.3.3.3")).status, 200, "another IP");
  t.clock.advance(H);
  assertEquals((await accept(t, "guess-x")).status, 401, "the window reset");
  t.close();
});

Deno.test("team endpoints need a session", async () => {
  const t = await makeApp();
  await adminClient(t);
  const anon = new AdminClient(t.app);
  for (
    const [m, p] of [
      ["GET", "/api/admin/users"],
      ["DELETE", "/api/admin/users/x"],
      ["GET", "/api/admin/invites"],
      ["POST", "/api/admin/invites"],
      ["DELETE", "/api/admin/invites/x"],
      ["DELETE", "/api/admin/invites/accept"], // only POST .../accept is public
      ["GET", "/api/admin/audit"],
    ]
  ) {
    const r = await anon.req(m, p);
    assertEquals([r.status, r.json.error?.code], [401, "unauthorized"], `${m} ${p}`);
  }
  t.close();
});

Deno.test("users: remove another admin (sessions end), never yourself, 404 for unknown", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const bob = await accept(t, (await invite(client)).token);
  const me = (await client.req("GET", "/api/admin/bootstrap")).json.me.id;
  const self = await client.req("DELETE", `/api/admin/users/${me}`);
  assertEquals([self.status, self.json.error.code], [403, "forbidden"]);
  assertEquals((await client.req("DELETE", "/api/admin/users/ghost")).status, 404);
  const gone = await client.req("DELETE", `/api/admin/users/${bob.json.user.id}`);
  assertEquals(gone.status, 200);
  assertEquals((await bob.c.req("GET", "/api/admin/users")).status, 401, "bob's session ended");
  const login = await new AdminClient(t.app).req("POST", "/api/admin/login", {
    username: "bob",
    password: "bobs password 1",
  });
  assertEquals(login.status, 401);
  assertEquals((await client.req("GET", "/api/admin/users")).json.users.length, 1);
  // The name is free again.
  assertEquals((await accept(t, (await invite(client)).token, {}, "4.4.4.4")).status, 200);
  t.close();
});

Deno.test("users: the last admin cannot be removed, even when two remove each other at once", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const bob = await accept(t, (await invite(client)).token);
  const me = (await client.req("GET", "/api/admin/bootstrap")).json.me.id;
  const [a, b] = await Promise.all([
    client.req("DELETE", `/api/admin/users/${bob.json.user.id}`),
    bob.c.req("DELETE", `/api/admin/users/${me}`),
  ]);
  assertEquals([a.status, b.status].filter((s) => s === 200).length, 1, `${a.status} ${b.status}`);
  assert([401, 409].includes(a.status === 200 ? b.status : a.status));
  assertEquals((await Array.fromAsync(t.kv.list({ prefix: keys.adminUsers() }))).length, 1);
  // The domain rule itself: removing the only admin (by an actor already gone) is a conflict.
  const [only] = await Array.fromAsync(t.kv.list<{ id: string }>({ prefix: keys.adminUsers() }));
  const e = await assertRejects(
    () => removeUser(t.kv, "someone-else", only.value.id),
    "last admin",
  );
  assertEquals((e as unknown as { status: number }).status, 409);
  t.close();
});

Deno.test("audit: newest first, ?limit bounded, actors and no secrets", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client, phrase, password } = await adminClient(t);
  const inv = await invite(client);
  const bob = await accept(t, inv.token);
  await new AdminClient(t.app).req("POST", "/api/admin/login", {
    username: "bob",
    password: "wrong password",
  }, { "x-ip": "7.7.7.7" });
  const log = await client.req("GET", "/api/admin/audit");
  assertEquals(log.status, 200);
  const actions = log.json.entries.map((e: { actor: string; action: string }) =>
    `${e.actor}:${e.action}`
  );
  // A wrong password is not an entry of its own (see the login.rate_limited test).
  assertEquals(actions, ["bob:invite.accept", "admin:invite.create", "admin:admin.claim"]);
  assertEquals(log.json.entries[0].ip, "1.1.1.1");
  assertEquals((await client.req("GET", "/api/admin/audit?limit=2")).json.entries.length, 2);
  for (const bad of ["0", "501", "x"]) {
    assertEquals((await client.req("GET", `/api/admin/audit?limit=${bad}`)).status, 400, bad);
  }
  assertEquals((await client.req("GET", "/api/admin/audit?limit=500")).status, 200);
  const all = JSON.stringify(await Array.fromAsync(t.kv.list({ prefix: keys.auditPrefix() })));
  for (
    const secret of [
      password,
      phrase,
      inv.token,
      bob.json.recoveryPhrase,
      "bobs password 1",
      "wrong password",
      client.cookies.get("tg_admin")!,
      t.config.TOKEN_SECRET,
    ]
  ) {
    assert(!all.includes(secret), `audit log leaks ${secret.slice(0, 6)}...`);
  }
  t.close();
});

Deno.test("audit: details are scrubbed of secret-looking fields at any depth", () => {
  assertEquals(
    redactDetail({
      queue: "default",
      password: "p",
      newPassword: "p",
      recoveryPhrase: "w",
      apiToken: "t",
      nested: { webhookSecret: "s", url: "https://x" },
      hasSecret: true,
      tokenCount: 2,
    }),
    { queue: "default", nested: { url: "https://x" }, hasSecret: true, tokenCount: 2 },
  );
});

/** Every invite record and token-index key in the store. */
async function storedInvites(t: TestApp) {
  return {
    records: await Array.fromAsync(t.kv.list<InviteRecord>({ prefix: keys.adminInvites() })),
    tokens: await Array.fromAsync(t.kv.list({ prefix: ["admin", "inviteToken"] })),
  };
}

Deno.test("users: removing an admin deletes the invites they created, and only those", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client: alice } = await adminClient(t, { username: "alice" });
  const bob = await accept(t, (await invite(alice)).token);
  const bobs = await invite(bob.c);
  const alices = await invite(alice);
  await invite(bob.c);
  assertEquals((await alice.req("GET", "/api/admin/invites")).json.invites.length, 3);

  const [rec] = (await storedInvites(t)).records.filter((e) => e.value.id === bobs.invite.id);
  const gone = await alice.req("DELETE", `/api/admin/users/${bob.json.user.id}`);
  assertEquals(gone.status, 200);
  const left = await storedInvites(t);
  assertEquals(left.records.map((e) => e.value.id), [alices.invite.id]);
  assertEquals(left.tokens.length, 1, "token index entries went with the records");
  assertEquals((await alice.req("GET", "/api/admin/invites")).json.invites, [alices.invite]);
  const late = await accept(t, bobs.token, { username: "mallory" }, "5.5.5.5");
  assertEquals([late.status, late.json.error.code], [401, "unauthorized"], "bob's invite died");
  assertEquals((await accept(t, alices.token, { username: "carol" }, "5.5.5.6")).status, 200);
  const entry = (await alice.req("GET", "/api/admin/audit")).json.entries
    .find((e: { action: string }) => e.action === "user.remove");
  assertEquals(entry.detail.invitesDeleted, 2);
  assertEquals([rec.value.createdBy, rec.value.createdById], ["bob", bob.json.user.id]);
  t.close();
});

Deno.test("users: removing an admin with more invites than one KV op holds deletes them all", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client: alice } = await adminClient(t, { username: "alice" });
  const bob = await accept(t, (await invite(alice)).token);
  // 2 mutations each: 600 invites are 1200 deletes, more than one atomic op may carry.
  const creator = { id: bob.json.user.id, username: "bob" };
  for (let i = 0; i < 600; i++) await createInvite(t.services, creator);
  const gone = await alice.req("DELETE", `/api/admin/users/${bob.json.user.id}`);
  assertEquals(gone.status, 200);
  const left = await storedInvites(t);
  assertEquals([left.records.length, left.tokens.length], [0, 0]);
  const entry = (await alice.req("GET", "/api/admin/audit")).json.entries
    .find((e: { action: string }) => e.action === "user.remove");
  assertEquals(entry.detail.invitesDeleted, 600);
  t.close();
});

Deno.test("invites: an invite whose creator is gone cannot be accepted (a removal that raced)", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const bob = await accept(t, (await invite(client)).token);
  const bobs = await invite(bob.c);
  // As if bob's removal committed and its invite cleanup has not run yet: his account is gone,
  // the invite is still stored.
  await t.kv.atomic().delete(keys.adminUser(bob.json.user.id)).delete(keys.adminUsername("bob"))
    .commit();
  assertEquals((await storedInvites(t)).records.length, 1);
  const r = await accept(t, bobs.token, { username: "mallory" }, "8.8.8.8");
  assertEquals([r.status, r.json.error?.code], [401, "unauthorized"]);
  assertEquals((await Array.fromAsync(t.kv.list({ prefix: keys.adminUsers() }))).length, 1);
  assertEquals((await accept(t, (await invite(client)).token, {}, "8.8.8.9")).status, 200);
  t.close();
});

Deno.test("invites: tokens are keyed by TOKEN_SECRET, so a rotation invalidates pending invites", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const a = await invite(client);
  const b = await invite(client);
  const rotated = await makeApp(
    { CLIENT_IP_HEADER: "x-ip", TOKEN_SECRET: "another-secret-another-secret-0123456" },
    { kv: t.kv, clock: t.clock },
  );
  const refused = await accept(rotated, a.token);
  assertEquals([refused.status, refused.json.error?.code], [401, "unauthorized"]);
  const same = await makeApp({ CLIENT_IP_HEADER: "x-ip" }, { kv: t.kv, clock: t.clock });
  assertEquals((await accept(same, b.token, {}, "2.2.2.2")).status, 200, "same secret: fine");
  const [idx] = (await storedInvites(t)).tokens.filter((e) => e.value === a.invite.id);
  const plain = createHash("sha256").update(`tollgate-invite\n${a.token}`).digest("base64url");
  assert(idx.key[idx.key.length - 1] !== plain, "not a plain SHA-256 of the token");
  t.close();
});

Deno.test("challenge gate: invite accept calls s.challenge.verify and is refused when it fails", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const { token } = await invite(client);
  const calls: [string | undefined, string][] = [];
  t.services.challenge = {
    configured: () => Promise.resolve(true),
    verify: (r, ip) => {
      calls.push([r, ip]);
      return Promise.resolve(r === "good");
    },
  };
  const none = await accept(t, token, {}, "6.6.6.6");
  assertEquals([none.status, none.json.error.code], [401, "unauthorized"]);
  const bad = await accept(t, token, { challengeResponse: "bad" }, "6.6.6.6");
  assertEquals(bad.status, 401);
  assertEquals(bad.c.cookies.size, 0);
  assertEquals((await Array.fromAsync(t.kv.list({ prefix: keys.adminUsers() }))).length, 1);
  assertEquals((await client.req("GET", "/api/admin/invites")).json.invites.length, 1, "unused");
  const ok = await accept(t, token, { challengeResponse: "good" }, "6.6.6.6");
  assertEquals(ok.status, 200);
  assertEquals(calls, [[undefined, "6.6.6.6"], ["bad", "6.6.6.6"], ["good", "6.6.6.6"]]);
  t.close();
});

Deno.test("invites: accepting with another admin's cookie in the browser ends that session", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const { token } = await invite(client);
  const old = client.cookies.get("tg_admin")!;
  // The admin opens their own invite link in the same browser to try it out.
  const res = await client.req("POST", "/api/admin/invites/accept", {
    token,
    username: "bob",
    password: "bobs password 1",
    acceptedTosVersion: TOS_VERSION,
  }, { "x-ip": "1.1.1.1" });
  assertEquals(res.status, 200);
  assert(client.cookies.get("tg_admin") !== old, "a new cookie");
  const stale = new AdminClient(t.app);
  stale.cookies.set("tg_admin", old);
  assertEquals((await stale.req("GET", "/api/admin/users")).status, 401, "old session deleted");
  assertEquals((await Array.fromAsync(t.kv.list({ prefix: keys.adminSessions() }))).length, 1);
  t.close();
});
