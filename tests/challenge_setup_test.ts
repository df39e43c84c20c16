import { CHALLENGE_SECRET_PURPOSE, type LiveChallenge } from "../lib/challenge/records.ts";
import { finishSetup } from "../lib/challenge/setup.ts";
import { unseal } from "../lib/seal.ts";
import { keys } from "../lib/store/keys.ts";
import { AdminClient } from "./admin_helpers.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import {
  challengeEnv,
  EDGE_HOST,
  goLive,
  IP,
  pendingChallenge,
  plantPendingEdge,
  PROVISION,
  VERIFY,
} from "./fakes/turnstile_setup.ts";

// The end of the setup wizard (POST /api/admin/setup) and its progress (GET /api/admin/setup).

Deno.test("setup: refused while incomplete, listing what is missing in words", async () => {
  const env = await challengeEnv();
  const empty = await env.admin.req("POST", "/api/admin/setup");
  assertEquals([empty.status, empty.json.error.code], [409, "conflict"]);
  assertEquals(empty.json.error.details.missing, [
    "edge token",
    "edge zone",
    "edge fix",
    "edge ssl",
    "challenge widget",
    "challenge verification",
  ]);
  await plantPendingEdge(env.t, { ssl: undefined });
  const { siteKey } = (await env.admin.req("POST", PROVISION, {})).json;
  const r = await env.admin.req("POST", "/api/admin/setup");
  assertEquals(r.json.error.details.missing, ["edge ssl", "challenge verification"]);
  assert(r.json.error.message.includes("edge ssl, challenge verification"), r.json.error.message);
  await env.admin.req("POST", VERIFY, { response: env.fake.solve(siteKey, EDGE_HOST) }, IP);
  // The zone was verified again for another hostname: the widget no longer fits.
  await plantPendingEdge(env.t, { hostname: "other.example.org" });
  const moved = await env.admin.req("POST", "/api/admin/setup");
  assertEquals(moved.json.error.details.missing, [
    "challenge widget for other.example.org (provision it again)",
  ]);
  assertEquals((await env.t.kv.get(keys.edge())).value, null);
  assertEquals((await env.t.kv.get(keys.challenge())).value, null);
  await env.close();
});

Deno.test("setup: both parts go live in one step, pending cleared; a repeat is 200 alreadyComplete", async () => {
  const env = await challengeEnv();
  const edge = await plantPendingEdge(env.t, { domains: ["shop.example.com"] });
  const anon = new AdminClient(env.t.app);
  assertEquals((await anon.req("GET", "/api/admin/bootstrap")).json.setupComplete, false);
  const { siteKey, secret } = await goLive(env);
  const live = (await env.t.kv.get<LiveChallenge>(keys.challenge())).value!;
  assertEquals([live.siteKey, live.hostname, live.liveAt], [siteKey, EDGE_HOST, env.t.clock.now()]);
  assertEquals(live.domains, [EDGE_HOST, "shop.example.com"]);
  assertEquals(
    await unseal(env.t.config.TOKEN_SECRET, live.sealedSecret, CHALLENGE_SECRET_PURPOSE),
    secret,
  );
  const link = (await env.t.kv.get<Record<string, unknown>>(keys.edge())).value!;
  assertEquals([link.zoneId, link.hostname, link.sealedToken], [
    "zone-1",
    EDGE_HOST,
    edge.sealedToken,
  ]);
  assertEquals(await pendingChallenge(env.t.kv), null);
  assertEquals((await env.t.kv.get(keys.setupPendingEdge())).value, null);
  const boot = (await anon.req("GET", "/api/admin/bootstrap")).json;
  assertEquals([boot.setupComplete, boot.challengeRequired, boot.challengeSiteKey], [
    true,
    true,
    siteKey,
  ]);
  const again = await env.admin.req("POST", "/api/admin/setup");
  assertEquals([again.status, again.json.alreadyComplete, again.json.siteKey], [
    200,
    true,
    siteKey,
  ]);
  const audit = (await env.admin.req("GET", "/api/admin/audit")).json.entries;
  assertEquals(audit.filter((e: { action: string }) => e.action === "setup.complete").length, 1);
  await env.close();
});

Deno.test("setup: a change between the read and the write (another tab) fails cleanly, nothing live", async () => {
  const env = await challengeEnv();
  await plantPendingEdge(env.t);
  const { siteKey } = (await env.admin.req("POST", PROVISION, {})).json;
  await env.admin.req("POST", VERIFY, { response: env.fake.solve(siteKey, EDGE_HOST) }, IP);
  const kv = env.t.kv;
  // A KV whose reads are followed at once by another writer re-provisioning the challenge.
  const racing = new Proxy(kv, {
    get(target, prop) {
      if (prop === "getMany") {
        return async (...args: Parameters<Deno.Kv["getMany"]>) => {
          const out = await target.getMany(...args);
          const p = (await pendingChallenge(target))!;
          await target.set(keys.setupPendingChallenge(), { ...p, siteKey: "0xother" });
          return out;
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  await assertRejects(() => finishSetup({ ...env.t.services, kv: racing }), "setup changed");
  assertEquals((await kv.get(keys.edge())).value, null);
  assertEquals((await kv.get(keys.challenge())).value, null);
  assertEquals(
    (await pendingChallenge(kv))!.siteKey,
    "0xother",
    "the other writer's change stands",
  );
  // Run again over a quiet store, it promotes what is pending now.
  assertEquals((await finishSetup(env.t.services)).siteKey, "0xother");
  await env.close();
});

Deno.test("GET /api/admin/setup: the wizard's progress step by step, never a secret", async () => {
  const env = await challengeEnv();
  const get = async () => (await env.admin.req("GET", "/api/admin/setup")).json;
  const start = await get();
  assertEquals([start.complete, start.edge.token, start.challenge.provisioned], [
    false,
    false,
    false,
  ]);
  assertEquals(start.missing.length, 6);
  await plantPendingEdge(env.t, { fixedAt: undefined, ssl: undefined });
  const mid = await get();
  assertEquals([mid.edge.token, mid.edge.zone, mid.edge.fix, mid.edge.ssl], [
    true,
    true,
    false,
    false,
  ]);
  assertEquals(mid.edge.hostname, EDGE_HOST);
  await plantPendingEdge(env.t);
  const { siteKey } = (await env.admin.req("POST", PROVISION, {})).json;
  const prov = await get();
  assertEquals([prov.challenge.provisioned, prov.challenge.verified, prov.challenge.siteKey], [
    true,
    false,
    siteKey,
  ]);
  assertEquals(prov.missing, ["challenge verification"]);
  const secret = env.fake.widgets.get(siteKey)!.secret;
  await env.admin.req("POST", VERIFY, { response: env.fake.solve(siteKey, EDGE_HOST) }, IP);
  assertEquals((await get()).missing, []);
  await env.admin.req("POST", "/api/admin/setup");
  const done = await env.admin.req("GET", "/api/admin/setup");
  assertEquals([done.json.complete, done.json.live, done.json.missing], [
    true,
    { edge: true, challenge: true, edgeNone: false, builtin: false },
    [],
  ]);
  assert(!done.text.includes(secret) && !done.text.includes("tok-ok"), "no secret, no token");
  assertEquals((await new AdminClient(env.t.app).req("GET", "/api/admin/setup")).status, 401);
  await env.close();
});
