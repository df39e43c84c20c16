/**
 * Setup without an edge network and with the built-in challenge: each choice is its own setup
 * step, `POST /api/admin/setup` then finishes, and Cloudflare can still be linked afterwards. And
 * the way back in when Turnstile cannot be reached: the bearer-only switch to the built-in one.
 */
import { PowHasher } from "../lib/challenge/pow_hash.ts";
import { keys } from "../lib/store/keys.ts";
import { AdminClient, adminClient, TEST_PASSWORD } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { fakeCloudflare } from "./fakes/cloudflare.ts";
import { serveFakes } from "./fakes/serve.ts";
import { makeApp } from "./helpers.ts";
import {
  type ChallengeEnv,
  challengeEnv,
  goLive,
  plantPendingEdge,
  providerConfig,
} from "./fakes/turnstile_setup.ts";

const NONE = "/api/admin/setup/edge/none";
const BUILTIN = "/api/admin/setup/challenge/builtin";
const USE_BUILTIN = "/api/admin/challenge/use-builtin";
const CF_TOKEN = "Zk3v9QqLx2Tn8WmB4cYp7HdR1sUe6GaJ0fKoNiVt";

/** A sign-in from its own address (the login limit is per address). */
const login = (env: ChallengeEnv, challengeResponse?: string, ip = "198.51.100.40") =>
  new AdminClient(env.t.app).req("POST", "/api/admin/login", {
    username: "admin",
    password: TEST_PASSWORD,
    challengeResponse,
  }, { "x-ip": ip });

/** A solution of a fresh sign-in or setup puzzle fetched from `ip`, solved as a browser would. */
async function solve(
  env: ChallengeEnv,
  purpose: "setup" | "signin",
  ip = "198.51.100.40",
): Promise<string> {
  const r = await env.admin.req(
    "GET",
    `/api/admin/challenge/puzzle?purpose=${purpose}`,
    undefined,
    {
      "x-ip": ip,
    },
  );
  assertEquals([r.status, r.json.kind], [200, "pow"], r.text);
  const n = new PowHasher(r.json.seed).search(r.json.threshold, 0, 1e9);
  return JSON.stringify({ challenge: r.json.challenge, nonce: String(n) });
}

Deno.test("setup: no edge network and the built-in challenge are steps; setup then finishes", async () => {
  const env = await challengeEnv();
  try {
    const { admin } = env;
    const before = await admin.req("POST", "/api/admin/setup");
    assertEquals(before.status, 409);
    const none = await admin.req("POST", NONE);
    assertEquals([none.status, none.json.edge.none], [200, true], none.text);
    assertEquals(none.json.missing, ["challenge widget", "challenge verification"]);
    // A wrong (empty) solution records nothing.
    const bad = await admin.req("POST", BUILTIN, { solution: " " });
    assertEquals([bad.status, bad.json.error.code], [400, "bad_request"]);
    assertEquals((await admin.req("GET", "/api/admin/setup")).json.challenge.builtin, false);
    const IP = { "x-ip": "198.51.100.40" };
    // A solution for another address, or for sign-in instead of setup, records nothing.
    const elsewhere = await admin.req("POST", BUILTIN, {
      solution: await solve(env, "setup", "198.51.100.99"),
    }, IP);
    assertEquals(elsewhere.status, 400);
    const wrongPurpose = await admin.req("POST", BUILTIN, {
      solution: await solve(env, "signin"),
    }, IP);
    assertEquals(wrongPurpose.status, 400);
    const solution = await solve(env, "setup");
    const ch = await admin.req("POST", BUILTIN, { solution }, IP);
    assertEquals([ch.status, ch.json.challenge.builtin, ch.json.missing], [200, true, []]);
    const replay = await admin.req("POST", BUILTIN, { solution }, IP);
    assertEquals(replay.status, 400, "a solution counts once");

    const done = await admin.req("POST", "/api/admin/setup");
    assertEquals(done.status, 200, done.text);
    assertEquals(
      [done.json.edge, done.json.challenge, done.json.hostname, done.json.siteKey],
      ["none", "builtin", null, null],
    );
    const boot = await admin.req("GET", "/api/admin/bootstrap");
    assertEquals([boot.json.setupComplete, boot.json.challengeRequired], [true, true]);
    const p = (await admin.req("GET", "/api/admin/setup")).json;
    assertEquals([p.complete, p.live, p.missing], [
      true,
      { edge: true, challenge: true, edgeNone: true, builtin: true },
      [],
    ]);
    const again = await admin.req("POST", "/api/admin/setup");
    assertEquals([again.status, again.json.alreadyComplete, again.json.edge], [200, true, "none"]);

    // Sign-in now needs a built-in solution.
    assertEquals((await login(env)).status, 401, "no solution: refused");
    const signin = await solve(env, "signin");
    assertEquals((await login(env, signin)).status, 200);
    assertEquals((await login(env, signin)).status, 401, "a sign-in solution counts once");
    const other = await solve(env, "signin", "198.51.100.41");
    assertEquals((await login(env, other)).status, 401, "solved for another address");
  } finally {
    await env.close();
  }
});

Deno.test("setup: the later choice of a step replaces the other one", async () => {
  const env = await challengeEnv();
  try {
    const { admin, t } = env;
    await plantPendingEdge(t);
    await admin.req("POST", NONE);
    assertEquals(await t.kv.get(keys.setupPendingEdge()).then((e) => e.value), null);
    await plantPendingEdge(t);
    await admin.req("POST", BUILTIN, { solution: await solve(env, "setup") }, {
      "x-ip": "198.51.100.40",
    });
    const p = (await admin.req("GET", "/api/admin/setup")).json;
    assertEquals([p.challenge.builtin, p.challenge.provisioned], [true, false]);
    // Provisioning Turnstile replaces the built-in choice.
    const prov = await admin.req("POST", "/api/admin/setup/challenge/provision", {});
    assertEquals(prov.status, 200, prov.text);
    const q = (await admin.req("GET", "/api/admin/setup")).json;
    assertEquals([q.challenge.builtin, q.challenge.provisioned], [false, true]);
  } finally {
    await env.close();
  }
});

Deno.test("Turnstile unreachable: sign-in says so and names the bearer switch, which lets it in", async () => {
  const env = await challengeEnv();
  try {
    await plantPendingEdge(env.t);
    const { siteKey } = await goLive(env);
    env.fake.fail("siteverify", "unavailable", 100);
    const r = await login(env, "some-turnstile-token");
    assertEquals([r.status, r.json.error.code], [503, "challenge_unavailable"]);
    assert(r.json.error.message.includes("could not be reached"), r.json.error.message);
    assert(r.json.error.message.includes(USE_BUILTIN), r.json.error.message);
    assert(siteKey);

    // Only the bearer TOKEN_SECRET may switch; a session is not enough.
    const denied = await env.admin.req("POST", USE_BUILTIN);
    assertEquals(denied.status, 401);
    const bearer = { authorization: `Bearer ${env.t.config.TOKEN_SECRET}` };
    const sw = await new AdminClient(env.t.app).req("POST", USE_BUILTIN, undefined, bearer);
    assertEquals([sw.status, sw.json], [200, { challenge: "builtin", switched: true }], sw.text);
    const again = await new AdminClient(env.t.app).req("POST", USE_BUILTIN, undefined, bearer);
    assertEquals(again.json.switched, false);
    assertEquals(await env.t.kv.get(keys.challenge()).then((e) => e.value), null);

    const boot = await new AdminClient(env.t.app).req("GET", "/api/admin/bootstrap");
    assertEquals(
      [boot.json.challengeRequired, boot.json.challengeKind, boot.json.challengeSiteKey],
      [true, "builtin", undefined],
    );
    assertEquals((await login(env, undefined, "198.51.100.41")).status, 401);
    const ok = await login(env, await solve(env, "signin", "198.51.100.42"), "198.51.100.42");
    assertEquals(ok.status, 200, ok.text);
    // Setup stays complete: the edge link is live and so is a challenge.
    assertEquals(boot.json.setupComplete, true);
  } finally {
    await env.close();
  }
});

Deno.test('setup: the Cloudflare token step replaces a "no edge network" choice', async () => {
  const cf = fakeCloudflare();
  cf.addToken(CF_TOKEN);
  const server = serveFakes(cf.handler);
  const t = await makeApp(providerConfig(server.url));
  try {
    const { client } = await adminClient(t);
    await client.req("POST", NONE);
    assert(await t.kv.get(keys.setupPendingEdgeNone()).then((e) => e.value));
    const tok = await client.req("POST", "/api/admin/setup/edge/token-verify", { token: CF_TOKEN });
    assertEquals(tok.status, 200, tok.text);
    assertEquals(await t.kv.get(keys.setupPendingEdgeNone()).then((e) => e.value), null);
    const p = (await client.req("GET", "/api/admin/setup")).json;
    assertEquals([p.edge.none, p.edge.token], [false, true]);
  } finally {
    t.close();
    await server.close();
  }
});
