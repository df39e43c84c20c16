import { TOS_VERSION } from "../lib/admin/tos.ts";
import { keys } from "../lib/store/keys.ts";
import { AdminClient, TEST_PASSWORD } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import {
  type ChallengeEnv,
  challengeEnv,
  EDGE_HOST,
  goLive,
  plantPendingEdge,
  providerConfig,
} from "./fakes/turnstile_setup.ts";
import { makeApp } from "./helpers.ts";

const NEW_PASSWORD = "another long passphrase";

/** The three public calls behind the gate, each from its own address (their limits are per IP). */
function gated(env: ChallengeEnv) {
  const call = (path: string, body: Record<string, unknown>, ip: string) =>
    new AdminClient(env.t.app).req("POST", path, body, { "x-ip": ip });
  return {
    login: (challengeResponse?: string, ip = "198.51.100.1") =>
      call(
        "/api/admin/login",
        { username: "admin", password: TEST_PASSWORD, challengeResponse },
        ip,
      ),
    accept: async (name: string, challengeResponse?: string, ip = "198.51.100.2") => {
      const inv = await env.admin.req("POST", "/api/admin/invites");
      return call("/api/admin/invites/accept", {
        token: inv.json.token,
        username: name,
        password: TEST_PASSWORD,
        acceptedTosVersion: TOS_VERSION,
        challengeResponse,
      }, ip);
    },
    recover: (phrase: string, challengeResponse?: string, ip = "198.51.100.3") =>
      call("/api/admin/password/recover", {
        username: "admin",
        recoveryPhrase: phrase,
        newPassword: NEW_PASSWORD,
        challengeResponse,
      }, ip),
  };
}

const refusal = (r: { status: number; json: { error: { code: string; details: unknown } } }) => [
  r.status,
  r.json.error.code,
  r.json.error.details,
];

Deno.test("gate: login, invite accept and recovery pass without a response until setup, then need one", async () => {
  const env = await challengeEnv();
  const g = gated(env);
  assertEquals((await g.login()).status, 200, "no challenge configured: open");
  assertEquals((await g.accept("bob")).status, 200);
  const rec = await g.recover(env.phrase);
  assertEquals(rec.status, 200);
  const phrase: string = rec.json.recoveryPhrase;
  // The admin's session from before the challenge existed (recovery ended the claim one).
  const before = await new AdminClient(env.t.app).req("POST", "/api/admin/login", {
    username: "admin",
    password: NEW_PASSWORD,
  }, { "x-ip": "198.51.100.9" });
  assertEquals(before.status, 200);
  const early = new AdminClient(env.t.app);
  early.cookies = new Map([["tg_admin", before.headers.getSetCookie()[0].split(";")[0].slice(9)]]);
  env.admin = early;

  await plantPendingEdge(env.t);
  const { siteKey, secret } = await goLive(env);
  const calls = env.fake.verifies().length;
  const pw = { username: "admin", password: NEW_PASSWORD };
  const login = (challengeResponse?: string, ip = "198.51.100.1") =>
    new AdminClient(env.t.app).req("POST", "/api/admin/login", { ...pw, challengeResponse }, {
      "x-ip": ip,
    });
  assertEquals(refusal(await login()), [401, "unauthorized", {
    challenge: "required",
    kind: "turnstile",
  }]);
  assertEquals(refusal(await login("  ")), [401, "unauthorized", {
    challenge: "required",
    kind: "turnstile",
  }]);
  assertEquals(env.fake.verifies().length, calls, "no provider call without a response");
  assertEquals(refusal(await login("forged")), [401, "unauthorized", {
    challenge: "failed",
    kind: "turnstile",
  }]);
  const token = env.fake.solve(siteKey, EDGE_HOST);
  const ok = await login(token);
  assertEquals(ok.status, 200);
  const call = env.fake.verifies().at(-1)!;
  assertEquals([call.body?.secret, call.body?.remoteip], [secret, "198.51.100.1"]);
  assertEquals(refusal(await login(token)), [401, "unauthorized", {
    challenge: "failed",
    kind: "turnstile",
  }]);
  const elsewhere = await login(env.fake.solve(siteKey, "evil.example.net"));
  assertEquals(elsewhere.status, 401, "solved on a hostname that is not the widget's");

  assertEquals(refusal(await g.accept("carol")), [401, "unauthorized", {
    challenge: "required",
    kind: "turnstile",
  }]);
  assertEquals((await g.accept("carol", env.fake.solve(siteKey, EDGE_HOST))).status, 200);

  // the session issued before the challenge was configured stays valid.
  const state = await early.req("GET", "/api/admin/state");
  assertEquals(state.status, 200);
  assertEquals(state.json.challenge, { configured: true, siteKey });
  const boot = (await new AdminClient(env.t.app).req("GET", "/api/admin/bootstrap")).json;
  assertEquals([boot.challengeRequired, boot.challengeSiteKey], [true, siteKey]);

  // Recovery last: it ends the admin's other sessions, as it should.
  assertEquals(refusal(await g.recover(phrase)), [401, "unauthorized", {
    challenge: "required",
    kind: "turnstile",
  }]);
  assertEquals((await g.recover(phrase, env.fake.solve(siteKey, EDGE_HOST))).status, 200);
  await env.close();
});

Deno.test("gate: fails closed with 503 challenge_unavailable when Turnstile is down, slow or refuses the secret", async () => {
  const env = await challengeEnv();
  await plantPendingEdge(env.t);
  const { siteKey } = await goLive(env);
  const g = gated(env);
  for (const failure of ["unavailable", "hang", "rate_limited", "garbage"] as const) {
    env.fake.fail("siteverify", failure);
    const r = await g.login(env.fake.solve(siteKey, EDGE_HOST));
    assertEquals(refusal(r), [503, "challenge_unavailable", { reason: "provider" }], failure);
    for (const words of ["try again", "/api/admin/challenge/use-builtin"]) {
      assert(r.json.error.message.includes(words), r.json.error.message);
    }
    assert(!r.headers.getSetCookie().length, "no session");
    // Turnstile's own wait is passed on; the other failures give no time to wait.
    assertEquals(r.headers.get("retry-after"), failure === "rate_limited" ? "42" : null, failure);
  }
  // The widget was deleted in the dashboard: Turnstile says invalid-input-secret.
  env.fake.widgets.delete(siteKey);
  const gone = await g.login(env.fake.solve(siteKey, EDGE_HOST));
  assertEquals(refusal(gone), [503, "challenge_unavailable", { reason: "secret_rejected" }]);
  assert(
    gone.json.error.message.includes("/api/admin/challenge/use-builtin"),
    gone.json.error.message,
  );
  await env.close();
});

Deno.test("secrets: the widget secret and API token are in no response and only sealed in KV", async () => {
  const env = await challengeEnv();
  const texts: string[] = [];
  const req = env.admin.req.bind(env.admin);
  env.admin.req = async (...a: Parameters<AdminClient["req"]>) => {
    const r = await req(...a);
    texts.push(r.text, JSON.stringify([...r.headers]));
    return r;
  };
  await plantPendingEdge(env.t);
  await env.admin.req("GET", "/api/admin/setup");
  const { siteKey, secret } = await goLive(env);
  for (const p of ["/api/admin/setup", "/api/admin/state", "/api/admin/bootstrap"]) {
    await env.admin.req("GET", p);
  }
  await env.admin.req("POST", "/api/admin/setup/challenge/provision", {});
  await env.admin.req("GET", "/api/admin/audit");
  assert(texts.some((t) => t.includes(siteKey)), "the responses were recorded");
  for (const t of texts) {
    assert(!t.includes(secret), "the widget secret is never returned");
    assert(!t.includes("tok-ok"), "the API token is never returned");
  }
  const all = await Array.fromAsync(env.t.kv.list({ prefix: [] }));
  const dump = JSON.stringify(all, (_k, v) => typeof v === "bigint" ? String(v) : v);
  assert(dump.includes(siteKey), "the scan sees the challenge record");
  assert(!dump.includes(secret), "the secret is stored sealed only");
  assert(!dump.includes("tok-ok"), "the token is stored sealed only");
  await env.close();
});

Deno.test("rotation: a new TOKEN_SECRET leaves the sealed secret unreadable; the gate fails closed until a reset", async () => {
  const env = await challengeEnv();
  await plantPendingEdge(env.t);
  const { siteKey } = await goLive(env);
  const other = "another-token-secret-another-token-secret";
  const t2 = await makeApp({ ...providerConfig(env.server.url), TOKEN_SECRET: other }, {
    kv: env.t.kv,
    clock: env.t.clock,
  });
  const calls = env.fake.verifies().length;
  const c = new AdminClient(t2.app);
  const login = (challengeResponse?: string) =>
    c.req("POST", "/api/admin/login", {
      username: "admin",
      password: TEST_PASSWORD,
      challengeResponse,
    }, {
      "x-ip": "198.51.100.7",
    });
  const r = await login(env.fake.solve(siteKey, EDGE_HOST));
  assertEquals(refusal(r), [503, "challenge_unavailable", { reason: "secret_unreadable" }]);
  for (const words of ["TOKEN_SECRET", "/api/admin/challenge/use-builtin"]) {
    assert(r.json.error.message.includes(words), `"${words}" in: ${r.json.error.message}`);
  }
  assertEquals(env.fake.verifies().length, calls, "an unreadable secret is never sent");
  assertEquals((await login()).status, 401, "no response: still refused, not a pass");
  const reset = await c.req("POST", "/api/admin/reset", undefined, {
    authorization: `Bearer ${other}`,
  });
  assertEquals(reset.status, 200);
  assertEquals((await env.t.kv.get(keys.challenge())).value, null);
  t2.clock.advance(1000);
  assertEquals((await c.req("GET", "/api/admin/bootstrap")).json.challengeRequired, false);
  await env.close();
});

Deno.test("gate: another instance closes at once (verify reads fresh); its configured() follows within a second", async () => {
  const env = await challengeEnv();
  const t2 = await makeApp(providerConfig(env.server.url), { kv: env.t.kv, clock: env.t.clock });
  assertEquals(await t2.services.challenge.configured(), false);
  await plantPendingEdge(env.t);
  await goLive(env);
  assertEquals(await t2.services.challenge.configured(), false, "cached on the other instance");
  assertEquals(await t2.services.challenge.verify(undefined, "1.2.3.4"), false, "closed at once");
  env.t.clock.advance(1000);
  assertEquals(await t2.services.challenge.configured(), true);
  await env.close();
});

Deno.test("contract: login, invite accept and recovery declare the gate's 503 challenge_unavailable", async () => {
  const t = await makeApp();
  const doc = await (await t.app.request("/openapi.json")).json();
  for (
    const p of ["/api/admin/login", "/api/admin/invites/accept", "/api/admin/password/recover"]
  ) {
    const r503 = doc.paths[p].post.responses["503"];
    assert(r503?.description.includes("challenge_unavailable"), `${p}: ${JSON.stringify(r503)}`);
  }
  t.close();
});
