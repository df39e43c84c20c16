import {
  hashPassword,
  OWASP_PBKDF2_ITERATIONS,
  passwordSettings,
  verifyPassword,
} from "../lib/admin/passwords.ts";
import { normalizePhrase } from "../lib/admin/recovery.ts";
import { WORDLIST } from "../lib/admin/wordlist.ts";
import { TOS_VERSION } from "../lib/admin/tos.ts";
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { AdminClient, adminClient, loginAs, TEST_PASSWORD } from "./admin_helpers.ts";
import { makeApp, type TestApp } from "./helpers.ts";

const NEW = "a brand new password";

const tryLogin = (t: TestApp, password: string, username = "admin") =>
  new AdminClient(t.app).req("POST", "/api/admin/login", { username, password }, {
    "x-ip": crypto.randomUUID(), // a fresh IP each time: these tests are not about the limiter
  });

function recover(t: TestApp, body: Record<string, unknown>, ip = "1.1.1.1") {
  const c = new AdminClient(t.app);
  return c.req("POST", "/api/admin/password/recover", {
    username: "admin",
    newPassword: NEW,
    ...body,
  }, {
    "x-ip": ip,
  }).then((r) => ({ ...r, c }));
}

Deno.test("passwords: PBKDF2-SHA256, OWASP count by default, stored count and salt used to verify", async () => {
  assertEquals(OWASP_PBKDF2_ITERATIONS, 600_000);
  const saved = passwordSettings.iterations;
  try {
    passwordSettings.iterations = 1_000;
    const h = await hashPassword("hunter2hunter2");
    assert(/^pbkdf2-sha256\$1000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/.test(h), h);
    assert(h !== await hashPassword("hunter2hunter2"), "fresh salt each time");
    passwordSettings.iterations = 2_000;
    assert(await verifyPassword("hunter2hunter2", h), "old count still verifies");
    assert(!(await verifyPassword("hunter2hunter3", h)));
    assert(!(await verifyPassword("hunter2hunter2", h.replace("$1000$", "$1001$"))));
    assert(!(await verifyPassword("x", "garbage")));
  } finally {
    passwordSettings.iterations = saved;
  }
});

Deno.test("login: an unknown username costs about as much time as a wrong password", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  await adminClient(t); // hashed at the fast test count
  const saved = passwordSettings.iterations;
  try {
    passwordSettings.iterations = 100_000;
    // Re-hash the admin's password at the slower count so both paths do comparable work.
    const id = (await t.kv.get<string>(keys.adminUsername("admin"))).value!;
    const u = (await t.kv.get<Record<string, unknown>>(keys.adminUser(id))).value!;
    await t.kv.set(keys.adminUser(id), { ...u, passwordHash: await hashPassword(TEST_PASSWORD) });
    await tryLogin(t, "warm up the dummy hash", "nobody");
    const time = async (username: string) => {
      const runs = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        assertEquals((await tryLogin(t, "wrong password!", username)).status, 401);
        runs.push(performance.now() - t0);
      }
      return runs.sort((a, b) => a - b)[1];
    };
    const known = await time("admin"), unknown = await time("nobody");
    const ratio = unknown / known;
    assert(
      ratio > 0.33 && ratio < 3,
      `unknown ${unknown.toFixed(1)} ms vs known ${known.toFixed(1)} ms`,
    );
  } finally {
    passwordSettings.iterations = saved;
  }
  t.close();
});

Deno.test("password change: rules, current password, other sessions end, this one stays", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const other = await loginAs(t, "admin", TEST_PASSWORD);
  const put = (b: Record<string, unknown>) =>
    client.req("PUT", "/api/admin/password", {
      currentPassword: TEST_PASSWORD,
      newPassword: NEW,
      confirmPassword: NEW,
      ...b,
    });
  for (
    const bad of [
      { confirmPassword: "something else!" },
      { newPassword: "short", confirmPassword: "short" },
      { newPassword: TEST_PASSWORD, confirmPassword: TEST_PASSWORD },
      { currentPassword: undefined },
    ]
  ) {
    const r = await put(bad);
    assertEquals([r.status, r.json.error.code], [400, "bad_request"], JSON.stringify(bad));
  }
  const mismatch = await put({ confirmPassword: "something else!" });
  assertEquals(mismatch.json.error.details.fields[0].path, "confirmPassword");
  const wrong = await put({ currentPassword: "not my password" });
  assertEquals([wrong.status, wrong.json.error.code], [403, "forbidden"]);
  const anon = new AdminClient(t.app);
  assertEquals(
    (await anon.req("PUT", "/api/admin/password", {
      currentPassword: TEST_PASSWORD,
      newPassword: NEW,
      confirmPassword: NEW,
    })).status,
    401,
  );
  assertEquals((await tryLogin(t, TEST_PASSWORD)).status, 200, "nothing changed yet");

  assertEquals((await put({})).status, 200);
  assertEquals((await client.req("GET", "/api/admin/users")).status, 200, "this session stays");
  assertEquals((await other.req("GET", "/api/admin/users")).status, 401, "the other one ended");
  assertEquals((await tryLogin(t, TEST_PASSWORD)).status, 401);
  assertEquals((await tryLogin(t, NEW)).status, 200);
  t.close();
});

Deno.test("password change: wrong current passwords share the login limit", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const put = (current: string) =>
    client.req("PUT", "/api/admin/password", {
      currentPassword: current,
      newPassword: NEW,
      confirmPassword: NEW,
    }, { "x-ip": "6.6.6.6" });
  for (let i = 0; i < 5; i++) assertEquals((await put("guess number " + i)).status, 403);
  assertEquals((await put(TEST_PASSWORD)).status, 429);
  t.close();
});

Deno.test("recovery: resets the password once, returns a new phrase and a session, ends old sessions", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client, phrase } = await adminClient(t);
  // Typed sloppily: case and spacing do not matter.
  const res = await recover(t, {
    recoveryPhrase: `  ${phrase.toUpperCase().replaceAll(" ", "   ")} `,
  });
  assertEquals(res.status, 200);
  assertEquals(res.json.user.username, "admin");
  const fresh: string = res.json.recoveryPhrase;
  assert(fresh !== phrase && fresh.split(" ").every((w) => WORDLIST.includes(w)));
  assertEquals((await res.c.req("GET", "/api/admin/users")).status, 200, "signed in");
  assertEquals((await client.req("GET", "/api/admin/users")).status, 401, "old session ended");
  assertEquals((await tryLogin(t, TEST_PASSWORD)).status, 401);
  assertEquals((await tryLogin(t, NEW)).status, 200);
  const again = await recover(
    t,
    { recoveryPhrase: phrase, newPassword: "yet another password" },
    "2.2.2.2",
  );
  assertEquals(
    [again.status, again.json.error.code],
    [401, "unauthorized"],
    "a used phrase is dead",
  );
  assertEquals(
    (await recover(t, { recoveryPhrase: fresh }, "2.2.2.2")).status,
    200,
    "the new one works",
  );
  t.close();
});

Deno.test("recovery: wrong phrase or name is 401 alike; input validated; 5 per hour per IP", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { phrase } = await adminClient(t);
  const wrongPhrase = await recover(t, { recoveryPhrase: WORDLIST.slice(0, 12).join(" ") });
  const wrongName = await recover(t, { recoveryPhrase: phrase, username: "ghost" });
  assertEquals([wrongPhrase.status, wrongName.status], [401, 401]);
  assertEquals(wrongPhrase.json.error, wrongName.json.error);
  for (
    const bad of [{ recoveryPhrase: phrase, newPassword: "short" }, { recoveryPhrase: "" }, {}]
  ) {
    assertEquals((await recover(t, bad, "9.9.9.9")).status, 400, JSON.stringify(bad));
  }
  await recover(t, { recoveryPhrase: "a b c" });
  await recover(t, { recoveryPhrase: "a b c" });
  await recover(t, { recoveryPhrase: "a b c" }); // five attempts from 1.1.1.1 so far
  const limited = await recover(t, { recoveryPhrase: phrase });
  assertEquals([limited.status, limited.json.error.code], [429, "rate_limited"]);
  assert(Number(limited.headers.get("retry-after")) > 0);
  t.clock.advance(3_600_000);
  assertEquals((await recover(t, { recoveryPhrase: phrase })).status, 200, "the window reset");
  t.close();
});

Deno.test("recovery: refused when the bot challenge fails", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { phrase } = await adminClient(t);
  t.services.challenge = {
    configured: () => Promise.resolve(true),
    verify: (r) => Promise.resolve(r === "ok"),
  };
  assertEquals((await recover(t, { recoveryPhrase: phrase })).status, 401);
  assertEquals((await recover(t, { recoveryPhrase: phrase, challengeResponse: "ok" })).status, 200);
  t.close();
});

Deno.test("recovery phrase: regenerate needs the password; the old phrase stops working", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client, phrase } = await adminClient(t);
  const wrong = await client.req("POST", "/api/admin/recovery/regenerate", {
    currentPassword: "nope nope nope",
  });
  assertEquals([wrong.status, wrong.json.error.code], [403, "forbidden"]);
  assertEquals((await client.req("POST", "/api/admin/recovery/regenerate", {})).status, 400);
  assertEquals(
    (await new AdminClient(t.app).req("POST", "/api/admin/recovery/regenerate", {
      currentPassword: TEST_PASSWORD,
    })).status,
    401,
  );
  const res = await client.req("POST", "/api/admin/recovery/regenerate", {
    currentPassword: TEST_PASSWORD,
  });
  assertEquals(res.status, 200);
  const fresh: string = res.json.recoveryPhrase;
  assertEquals(fresh.split(" ").length, 12);
  assertEquals((await client.req("GET", "/api/admin/users")).status, 200, "session kept");
  assertEquals((await recover(t, { recoveryPhrase: phrase })).status, 401, "old phrase");
  assertEquals((await recover(t, { recoveryPhrase: fresh })).status, 200, "new phrase");
  t.close();
});

Deno.test("recovery phrase: 2048 distinct words, normalised input", () => {
  assertEquals(new Set(WORDLIST).size, 2048);
  assert(WORDLIST.every((w) => /^[a-z]{3,8}$/.test(w)));
  assertEquals(normalizePhrase("  Abandon\tABILITY,able \n"), "abandon ability able");
});

Deno.test("no response ever carries a password, phrase hash, token hash or session id", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const texts: string[] = [];
  const { client, phrase } = await adminClient(t);
  const log = async (p: Promise<{ text: string }>) => texts.push((await p).text);
  const inv = (await client.req("POST", "/api/admin/invites")).json;
  await log(client.req("GET", "/api/admin/invites"));
  await log(client.req("GET", "/api/admin/users"));
  await log(client.req("GET", "/api/admin/bootstrap"));
  await log(client.req("GET", "/api/admin/audit"));
  await log(
    client.req("PUT", "/api/admin/password", {
      currentPassword: TEST_PASSWORD,
      newPassword: NEW,
      confirmPassword: NEW,
    }),
  );
  await log(client.req("POST", "/api/admin/recovery/regenerate", { currentPassword: NEW }));
  await log(
    new AdminClient(t.app).req("POST", "/api/admin/login", { username: "admin", password: NEW }),
  );
  await log(
    new AdminClient(t.app).req("POST", "/api/admin/invites/accept", {
      token: inv.token,
      username: "bob",
      password: "bobs password 1",
      acceptedTosVersion: "2026-11-01",
    }),
  );
  const stored = await Array.fromAsync(
    t.kv.list<Record<string, unknown>>({ prefix: keys.adminPrefix() }),
  );
  const hashes = stored.flatMap((e) => [
    // Keys of sessions and invite tokens are hashes; other keys end in public ids.
    ...(["session", "inviteToken"].includes(String(e.key[1])) ? [String(e.key[2])] : []),
    ...["passwordHash", "recoveryHash", "tokenHash"].map((f) => e.value?.[f]).filter((v) =>
      typeof v === "string"
    ),
  ]).filter((h) => h.length >= 20) as string[];
  assert(hashes.length >= 6, "found the stored hashes");
  const secrets = [
    TEST_PASSWORD,
    NEW,
    phrase,
    client.cookies.get("tg_admin")!,
    t.config.TOKEN_SECRET,
    ...hashes,
  ];
  for (const text of texts) {
    for (const s of secrets) {
      assert(!text.includes(s), `response leaks ${s.slice(0, 8)}...: ${text.slice(0, 120)}`);
    }
  }
  t.close();
});

Deno.test("password change: this session gets a fresh id (new cookie); the old id is revoked", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client } = await adminClient(t);
  const sessions = () =>
    Array.fromAsync(
      t.kv.list<{ createdAt: number; lastSeenAt: number }>({ prefix: keys.adminSessions() }),
    );
  const [before] = await sessions();
  const oldId = client.cookies.get("tg_admin")!;
  t.clock.advance(5 * 60_000);
  const res = await client.req("PUT", "/api/admin/password", {
    currentPassword: TEST_PASSWORD,
    newPassword: NEW,
    confirmPassword: NEW,
  });
  assertEquals(res.status, 200);
  const set = res.headers.getSetCookie().find((c) => c.startsWith("tg_admin="));
  assert(set && /HttpOnly/i.test(set) && /SameSite=Strict/i.test(set), `Set-Cookie ${set}`);
  const newId = client.cookies.get("tg_admin")!;
  assert(newId !== oldId, "a fresh session id");
  assertEquals((await client.req("GET", "/api/admin/users")).status, 200, "the new id works");
  const stale = new AdminClient(t.app);
  stale.cookies.set("tg_admin", oldId);
  assertEquals((await stale.req("GET", "/api/admin/users")).status, 401, "the old id is dead");
  const after = await sessions();
  assertEquals(after.length, 1, "one session: the renamed one");
  assert(after[0].key.at(-1) !== before.key.at(-1), "stored under a new key");
  // Same session, new name: its 7-day absolute limit still counts from the original sign-in.
  assertEquals(after[0].value.createdAt, before.value.createdAt);
  assertEquals(after[0].value.lastSeenAt, t.clock.now());
  t.close();
});

Deno.test("recovery: ends the session the browser carried and the admin's pending invites", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  const { client, phrase } = await adminClient(t);
  // A second admin, so the first one's invites can be told apart from theirs.
  const inv = (await client.req("POST", "/api/admin/invites")).json;
  const bob = new AdminClient(t.app);
  const acc = await bob.req("POST", "/api/admin/invites/accept", {
    token: inv.token,
    username: "bob",
    password: "bobs password 1",
    acceptedTosVersion: TOS_VERSION,
  }, { "x-ip": "3.3.3.3" });
  assertEquals(acc.status, 200);
  const mine = (await client.req("POST", "/api/admin/invites")).json;
  const bobs = (await bob.req("POST", "/api/admin/invites")).json;
  // Bob's browser recovers admin's account: bob's session there is replaced, and deleted.
  const bobCookie = bob.cookies.get("tg_admin")!;
  const res = await bob.req("POST", "/api/admin/password/recover", {
    username: "admin",
    recoveryPhrase: phrase,
    newPassword: NEW,
  }, { "x-ip": "3.3.3.3" });
  assertEquals(res.status, 200);
  const stale = new AdminClient(t.app);
  stale.cookies.set("tg_admin", bobCookie);
  assertEquals((await stale.req("GET", "/api/admin/users")).status, 401, "bob's old session");
  const left = (await bob.req("GET", "/api/admin/invites")).json.invites;
  assertEquals(left.map((i: { id: string }) => i.id), [bobs.invite.id], "admin's invite is gone");
  assert(mine.invite.id !== bobs.invite.id);
  t.close();
});
