import { limitAddress } from "../lib/admin/rate_limit.ts";
import { createSession } from "../lib/admin/sessions.ts";
import { TOS_SUMMARY, TOS_VERSION } from "../lib/admin/tos.ts";
import { WORDLIST } from "../lib/admin/wordlist.ts";
import { keys } from "../lib/store/keys.ts";
import { VERSION } from "../lib/version.ts";
import { assert, assertEquals } from "./assert.ts";
import { AdminClient, adminClient, loginAs, TEST_PASSWORD } from "./admin_helpers.ts";
import { makeApp, type TestApp } from "./helpers.ts";

const claimBody = { username: "admin", password: TEST_PASSWORD, acceptedTosVersion: TOS_VERSION };
const bearer = (t: TestApp) => ({ authorization: `Bearer ${t.config.TOKEN_SECRET}` });

Deno.test("bootstrap: public flags before and after the claim", async () => {
  const t = await makeApp();
  const anon = new AdminClient(t.app);
  const before = await anon.req("GET", "/api/admin/bootstrap");
  assertEquals(before.status, 200);
  assertEquals(before.json, {
    claimed: false,
    setupComplete: false,
    signedIn: false,
    needsTos: false,
    challengeRequired: false,
    challengeKind: null,
    version: VERSION,
    tosVersion: TOS_VERSION,
    tosSummary: TOS_SUMMARY,
    acceptedTosVersion: null,
    me: null,
  });
  const { client } = await adminClient(t);
  const after = (await client.req("GET", "/api/admin/bootstrap")).json;
  assertEquals([after.claimed, after.signedIn, after.needsTos], [true, true, false]);
  assertEquals(after.acceptedTosVersion, TOS_VERSION);
  assertEquals(after.me.username, "admin");
  assertEquals((await anon.req("GET", "/api/admin/bootstrap")).json.claimed, true);
  // setupComplete needs both the edge link and the bot challenge to be live.
  await t.kv.set(keys.edge(), { zone: "z" });
  assertEquals((await anon.req("GET", "/api/admin/bootstrap")).json.setupComplete, false);
  await t.kv.set(keys.challenge(), { siteKey: "k" });
  assertEquals((await anon.req("GET", "/api/admin/bootstrap")).json.setupComplete, true);
  t.close();
});

Deno.test("claim: creates the first admin, a Strict session cookie and a 12-word phrase", async () => {
  const t = await makeApp();
  const c = new AdminClient(t.app);
  const res = await c.req("POST", "/api/admin/claim", claimBody, bearer(t));
  assertEquals(res.status, 200);
  assertEquals(Object.keys(res.json.user).sort(), [
    "acceptedTosVersion",
    "createdAt",
    "id",
    "username",
  ]);
  assertEquals(res.json.user.username, "admin");
  const words = res.json.recoveryPhrase.split(" ");
  assertEquals(words.length, 12);
  assert(words.every((w: string) => WORDLIST.includes(w)), "every word is from the list");
  const cookie = res.headers.getSetCookie().find((h) => h.startsWith("tg_admin="))!;
  assert(/HttpOnly/.test(cookie) && /Path=\//.test(cookie) && /SameSite=Strict/.test(cookie));
  assert(!/Secure/.test(cookie), "no Secure over plain http");
  assertEquals((await c.req("GET", "/api/admin/users")).status, 200);

  const t2 = await makeApp();
  const r2 = await t2.app.request("https://localhost/api/admin/claim", {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(t2) },
    body: JSON.stringify(claimBody),
  });
  assertEquals(r2.status, 200);
  assert(/;\s*Secure/.test(r2.headers.getSetCookie()[0]), "Secure over https");
  t.close();
  t2.close();
});

Deno.test("claim: bearer required before anything, input validated, ToS checked, no state change", async () => {
  const t = await makeApp();
  const c = new AdminClient(t.app);
  const claim = (body: unknown, h: Record<string, string> = bearer(t)) =>
    c.req("POST", "/api/admin/claim", body, h);
  assertEquals((await claim(claimBody, {})).status, 401);
  assertEquals((await claim(claimBody, { authorization: "Bearer wrong" })).status, 401);
  assertEquals(
    (await claim(claimBody, { "x-service-operator": t.config.TOKEN_SECRET })).status,
    401,
  );
  assertEquals((await claim({ nonsense: 1 }, {})).status, 401, "auth before validation");
  for (
    const bad of [
      { ...claimBody, password: "short" },
      { ...claimBody, username: "a" },
      { ...claimBody, username: "bad name!" },
      { username: "admin", password: TEST_PASSWORD },
      "{not json",
    ]
  ) {
    const r = await claim(bad);
    assertEquals(r.status, 400, JSON.stringify(bad));
    assertEquals(r.json.error.code, "bad_request");
  }
  const tos = await claim({ ...claimBody, acceptedTosVersion: "1999-01-01" });
  assertEquals([tos.status, tos.json.error.code], [403, "forbidden"]);
  assertEquals(tos.json.error.details.tosVersion, TOS_VERSION);
  assertEquals((await t.kv.get(keys.adminClaimed())).value, null);
  assertEquals(c.cookies.size, 0);
  assertEquals((await claim(claimBody)).status, 200);
  t.close();
});

Deno.test("claim: only once, also when two race", async () => {
  const t = await makeApp();
  const c = new AdminClient(t.app);
  const [a, b] = await Promise.all([
    c.req("POST", "/api/admin/claim", claimBody, bearer(t)),
    c.req("POST", "/api/admin/claim", { ...claimBody, username: "other" }, bearer(t)),
  ]);
  assertEquals([a.status, b.status].sort(), [200, 409]);
  const again = await c.req(
    "POST",
    "/api/admin/claim",
    { ...claimBody, username: "third" },
    bearer(t),
  );
  assertEquals([again.status, again.json.error.code], [409, "conflict"]);
  const users = [];
  for await (const e of t.kv.list({ prefix: keys.adminUsers() })) users.push(e);
  assertEquals(users.length, 1);
  t.close();
});

Deno.test("login: right credentials open a session; wrong ones are 401 alike", async () => {
  const t = await makeApp();
  await adminClient(t);
  const c = await loginAs(t, "ADMIN", TEST_PASSWORD); // usernames are case-insensitive
  assertEquals((await c.req("GET", "/api/admin/users")).status, 200);
  const anon = new AdminClient(t.app);
  const wrong = await anon.req("POST", "/api/admin/login", {
    username: "admin",
    password: "x".repeat(12),
  });
  const nobody = await anon.req("POST", "/api/admin/login", {
    username: "ghost",
    password: "x".repeat(12),
  });
  assertEquals([wrong.status, nobody.status], [401, 401]);
  assertEquals(wrong.json.error, nobody.json.error);
  assertEquals(anon.cookies.size, 0);
  for (const bad of [{ username: "admin" }, { username: "", password: "p" }, { password: "p" }]) {
    assertEquals((await anon.req("POST", "/api/admin/login", bad)).status, 400);
  }
  t.close();
});

Deno.test("login: failures on an account never make its correct password a 429 (0.4.1: 429 after 5)", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  await adminClient(t);
  const c = new AdminClient(t.app);
  const login = (password: string, ip = "1.2.3.4", username = "admin") =>
    c.req("POST", "/api/admin/login", { username, password }, { "x-ip": ip });
  for (let i = 0; i < 12; i++) assertEquals((await login("wrong password!")).status, 401, `${i}`);
  // Never a 429: the account's sign-in steps up to the built-in check (no set-up needed for it).
  for (const ip of ["1.2.3.4", "5.6.7.8"]) {
    const r = await login(TEST_PASSWORD, ip);
    assertEquals([r.status, r.json.error.details.reason], [401, "account_failures"], ip);
  }
  t.close();
});

/** A login from `ip` that records whether the challenge (which runs right before hashing) ran. */
function limiterApp(t: TestApp) {
  let verified = 0;
  t.services.challenge = {
    configured: () => Promise.resolve(false),
    verify: () => {
      verified++;
      return Promise.resolve(true);
    },
  };
  const c = new AdminClient(t.app);
  return {
    verified: () => verified,
    login: (username: string, password: string, ip: string) =>
      c.req("POST", "/api/admin/login", { username, password }, { "x-ip": ip }),
  };
}

Deno.test("login: 20 failures per 15 min per IP across usernames, refused before any hashing", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  await adminClient(t);
  const l = limiterApp(t);
  for (let i = 0; i < 20; i++) {
    assertEquals((await l.login(`user${i}`, "wrong password!", "1.2.3.4")).status, 401, `try ${i}`);
  }
  assertEquals(l.verified(), 20);
  const limited = await l.login("admin", TEST_PASSWORD, "1.2.3.4");
  assertEquals([limited.status, limited.json.error?.code], [429, "rate_limited"]);
  const retry = Number(limited.headers.get("retry-after"));
  assert(retry > 0 && retry <= 900, `Retry-After ${retry}`);
  assertEquals(l.verified(), 20, "refused before the challenge, so before the password check");
  assertEquals((await l.login("admin", TEST_PASSWORD, "5.6.7.8")).status, 200, "another IP");
  t.clock.advance(retry * 1000);
  assertEquals((await l.login("admin", TEST_PASSWORD, "1.2.3.4")).status, 200, "window reset");
  t.close();
});

Deno.test("login: 300 parallel tries from one IP: exactly 20 get a password check, no 500", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  await adminClient(t);
  const l = limiterApp(t);
  const all = await Promise.all(
    Array.from({ length: 300 }, (_, i) => l.login(`u${i}`, "wrong password!", "1.1.1.1")),
  );
  const count = (s: number) => all.filter((r) => r.status === s).length;
  assertEquals([count(401), count(429), l.verified()], [20, 280, 20]);
  const log = await Array.fromAsync(t.kv.list<{ action: string }>({ prefix: keys.auditPrefix() }));
  assertEquals(log.filter((e) => e.value.action === "login.rate_limited").length, 1);
  t.close();
});

Deno.test("login: the per-IP limit counts failures (a success refunds) and IPv6 by /64", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  await adminClient(t);
  const l = limiterApp(t);
  for (let i = 0; i < 19; i++) await l.login(`user${i}`, "wrong password!", "9.9.9.9");
  for (let i = 0; i < 3; i++) {
    assertEquals((await l.login("admin", TEST_PASSWORD, "9.9.9.9")).status, 200, `ok ${i}`);
  }
  assertEquals((await l.login("nobody", "wrong password!", "9.9.9.9")).status, 401, "20th");
  assertEquals((await l.login("admin", TEST_PASSWORD, "9.9.9.9")).status, 429, "21st");

  // One host owns a /64: fresh addresses inside it share one budget.
  for (let i = 0; i < 20; i++) {
    await l.login(`user${i}`, "wrong password!", `2001:db8:0:1::${i.toString(16)}`);
  }
  assertEquals((await l.login("admin", TEST_PASSWORD, "2001:db8:0:1:ffff::1")).status, 429);
  assertEquals((await l.login("admin", TEST_PASSWORD, "2001:db8:0:2::1")).status, 200);
  t.close();
});

Deno.test("limitAddress: IPv4 as is, IPv6 by /64 in one spelling", () => {
  assertEquals(limitAddress("203.0.113.7"), "203.0.113.7");
  assertEquals(limitAddress("unknown"), "unknown");
  assertEquals(limitAddress("::ffff:203.0.113.7"), "203.0.113.7");
  for (
    const a of ["2001:db8::1", "2001:0DB8:0:0:ffff::2", "[2001:db8::]", "2001:db8:0:0:1:2:3:4"]
  ) {
    assertEquals(limitAddress(a), "2001:db8:0:0::/64", a);
  }
  assertEquals(limitAddress("fe80::1%eth0"), "fe80:0:0:0::/64");
  assertEquals(limitAddress("::1"), "0:0:0:0::/64");
});

Deno.test("audit: failed logins write nothing; each limit tripping writes one entry (rate_limited, challenge_required)", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const l = limiterApp(t);
  const entries = async () =>
    (await client.req("GET", "/api/admin/audit")).json.entries as {
      action: string;
      actor: string;
      ip: string;
      detail: Record<string, unknown>;
    }[];
  for (let i = 0; i < 4; i++) await l.login("admin", "wrong password!", "4.4.4.4");
  assertEquals((await entries()).map((e) => e.action), ["admin.claim"], "no entry per failure");
  for (let i = 0; i < 4; i++) {
    assertEquals((await l.login("admin", "x".repeat(12), "4.4.4.4")).status, 401);
  }
  let log = await entries();
  assertEquals(log.map((e) => e.action), ["login.challenge_required", "admin.claim"]);
  assertEquals([log[0].actor, log[0].ip], ["anonymous", "4.4.4.4"]);
  assertEquals(log[0].detail, { limit: "account", username: "admin", max: 5 });

  // 5 + 3 tries so far from this IP; 12 more names bring it to 20, the next one trips the IP limit.
  for (let i = 0; i < 12; i++) await l.login(`name${i}`, "wrong password!", "4.4.4.4");
  for (let i = 0; i < 4; i++) await l.login(`more${i}`, "wrong password!", "4.4.4.4");
  log = await entries();
  assertEquals(log.map((e) => e.action), [
    "login.rate_limited",
    "login.challenge_required",
    "admin.claim",
  ]);
  assertEquals(log[0].detail, { limit: "ip", max: 20, windowMinutes: 15 });

  // A new window: one more entry when it trips again; a success is still audited.
  t.clock.advance(15 * 60_000);
  const fresh = await loginAs(t, "admin", TEST_PASSWORD);
  for (let i = 0; i < 7; i++) await l.login("admin", "wrong password!", "4.4.4.4");
  log = (await fresh.req("GET", "/api/admin/audit")).json.entries;
  assertEquals(log.map((e: { action: string }) => e.action).slice(0, 2), [
    "login.challenge_required",
    "session.login",
  ]);
  const count = (a: string) => log.filter((e: { action: string }) => e.action === a).length;
  assertEquals([count("login.rate_limited"), count("login.challenge_required")], [1, 2]);
  t.close();
});

Deno.test("login and claim end the session whose cookie the request carried", async () => {
  const t = await makeApp();
  const sessions = async () =>
    (await Array.fromAsync(t.kv.list({ prefix: keys.adminSessions() }))).length;
  // Claim: a cookie planted beforehand (here a real session of some id) is deleted.
  const planted = await createSession(t.services, "someone");
  const c = new AdminClient(t.app);
  c.cookies.set("tg_admin", planted);
  const claim = await c.req("POST", "/api/admin/claim", claimBody, bearer(t));
  assertEquals(claim.status, 200);
  assert(c.cookies.get("tg_admin") !== planted);
  assertEquals(await sessions(), 1, "the planted session is gone");

  // Login: signing in again from a browser that holds a session replaces it.
  const before = c.cookies.get("tg_admin")!;
  const again = await c.req("POST", "/api/admin/login", {
    username: "admin",
    password: TEST_PASSWORD,
  });
  assertEquals(again.status, 200);
  assert(c.cookies.get("tg_admin") !== before, "a new session id");
  assertEquals(await sessions(), 1, "the old session was deleted, not orphaned");
  const old = new AdminClient(t.app);
  old.cookies.set("tg_admin", before);
  assertEquals((await old.req("GET", "/api/admin/users")).status, 401);
  assertEquals((await c.req("GET", "/api/admin/users")).status, 200);
  // Another browser's session is untouched by this one's login.
  const other = await loginAs(t, "admin", TEST_PASSWORD);
  assertEquals(await sessions(), 2);
  assertEquals((await other.req("GET", "/api/admin/users")).status, 200);
  t.close();
});
