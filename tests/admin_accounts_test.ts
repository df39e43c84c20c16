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

Deno.test("login: 5 tries per 15 min per IP and username, then 429 with Retry-After", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  await adminClient(t);
  const c = new AdminClient(t.app);
  const login = (password: string, ip = "1.2.3.4", username = "admin") =>
    c.req("POST", "/api/admin/login", { username, password }, { "x-ip": ip });
  for (let i = 0; i < 5; i++) assertEquals((await login("wrong password!")).status, 401);
  const limited = await login(TEST_PASSWORD);
  assertEquals([limited.status, limited.json.error.code], [429, "rate_limited"]);
  const retry = Number(limited.headers.get("retry-after"));
  assert(retry > 0 && retry <= 900, `Retry-After ${retry}`);
  assertEquals((await login(TEST_PASSWORD, "5.6.7.8")).status, 200, "another IP is not limited");
  assertEquals((await login("wrong password!", "1.2.3.4", "ghost")).status, 401, "another name");
  t.clock.advance(retry * 1000);
  assertEquals((await login(TEST_PASSWORD)).status, 200, "the window reset");
  // A success forgets the failures: four more wrong tries are still allowed after it.
  for (let i = 0; i < 4; i++) assertEquals((await login("wrong password!")).status, 401);
  assertEquals((await login(TEST_PASSWORD)).status, 200);
  t.close();
});
