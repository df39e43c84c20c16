import type { LiveChallenge, PendingChallenge } from "../lib/challenge/records.ts";
import { CHALLENGE_SECRET_PURPOSE } from "../lib/challenge/records.ts";
import { seal, unseal } from "../lib/seal.ts";
import { keys } from "../lib/store/keys.ts";
import { AdminClient } from "./admin_helpers.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { finishSetup } from "../lib/challenge/setup.ts";
import { challengeEnv, EDGE_HOST, goLive, plantPendingEdge } from "./fakes/turnstile_setup.ts";

const PROVISION = "/api/admin/setup/challenge/provision";
const VERIFY = "/api/admin/setup/challenge/verify";
const IP = { "x-ip": "203.0.113.9" };

const pending = async (kv: Deno.Kv) =>
  (await kv.get<PendingChallenge>(keys.setupPendingChallenge())).value;

Deno.test("provision: creates a managed widget for the edge hostname and keeps the secret sealed", async () => {
  const env = await challengeEnv({ PUBLIC_URL: "https://admin.example.com" });
  await plantPendingEdge(env.t, { domains: ["shop.example.com"] });
  const r = await env.admin.req("POST", PROVISION, { domains: ["WWW.example.com"] }, {
    origin: "https://admin.example.com",
  });
  assertEquals(r.status, 200);
  const widget = env.fake.widgets.get(r.json.siteKey)!;
  assertEquals(widget.domains, [
    EDGE_HOST,
    "shop.example.com",
    "admin.example.com",
    "www.example.com",
  ]);
  assertEquals([widget.accountId, widget.mode], ["acc-1", "managed"]);
  assertEquals(env.fake.log[0].authorization, "Bearer tok-ok");
  assertEquals(r.json, {
    siteKey: widget.sitekey,
    hostname: EDGE_HOST,
    domains: widget.domains,
    reused: false,
  });
  assert(!r.text.includes(widget.secret), "the secret is never returned");
  const p = (await pending(env.t.kv))!;
  assertEquals([p.siteKey, p.hostname, p.accountId, p.verifiedAt], [
    widget.sitekey,
    EDGE_HOST,
    "acc-1",
    undefined,
  ]);
  assert(p.sealedSecret !== widget.secret && !p.sealedSecret.includes(widget.secret));
  assertEquals(
    await unseal(env.t.config.TOKEN_SECRET, p.sealedSecret, CHALLENGE_SECRET_PURPOSE),
    widget.secret,
  );
  const audit = (await env.admin.req("GET", "/api/admin/audit")).json.entries;
  assertEquals(audit[0].action, "setup.challenge.provision");
  assertEquals(audit[0].detail.siteKey, widget.sitekey);
  assertEquals(audit[0].actor, "admin");
  await env.close();
});

Deno.test("provision: needs the edge steps first (409 in words), a session and this Origin", async () => {
  const env = await challengeEnv();
  const none = await env.admin.req("POST", PROVISION, {});
  assertEquals([none.status, none.json.error.code], [409, "conflict"]);
  assert(none.json.error.message.includes("finish the edge steps first"), none.json.error.message);
  await plantPendingEdge(env.t, { accountId: undefined, zoneId: undefined, hostname: undefined });
  const noZone = await env.admin.req("POST", PROVISION, {});
  assertEquals(noZone.status, 409);
  assert(noZone.json.error.message.includes("edge verify"), noZone.json.error.message);
  await plantPendingEdge(env.t, { domains: ["shop.example.com"] });
  const anon = await new AdminClient(env.t.app).req("POST", PROVISION, {});
  assertEquals(anon.status, 401);
  const foreign = await env.admin.req("POST", PROVISION, {}, { origin: "https://evil.example" });
  assertEquals(foreign.status, 403);
  const bad = await env.admin.req("POST", PROVISION, { domains: ["not a host"] });
  assertEquals([bad.status, bad.json.error.code], [400, "bad_request"]);
  assertEquals(bad.json.error.details.fields[0].path, "domains.0");
  const many = Array.from({ length: 9 }, (_, i) => `h${i}.example.com`);
  const tooMany = await env.admin.req("POST", PROVISION, { domains: many });
  assertEquals(tooMany.status, 400, "at most 10 hostnames, counting the edge's own");
  assert(tooMany.json.error.message.includes("at most 10"), tooMany.json.error.message);
  assertEquals(env.fake.log.length, 0, "no provider call for any of these");
  assertEquals(await pending(env.t.kv), null);
  await env.close();
});

Deno.test("provision: every provider failure answers clearly and writes nothing", async () => {
  const env = await challengeEnv();
  const cases: [string, () => Promise<unknown>, number, string, string][] = [
    ["bad token", () => plantPendingEdge(env.t, {}, "tok-revoked"), 400, "edge_error", "bad_token"],
    [
      "no permission",
      () => plantPendingEdge(env.t, {}, "tok-noperm"),
      400,
      "edge_error",
      "forbidden",
    ],
    [
      "no account",
      () => plantPendingEdge(env.t, { accountId: "acc-gone" }),
      400,
      "edge_error",
      "not_found",
    ],
    [
      "rate limited",
      async () => {
        await plantPendingEdge(env.t);
        env.fake.fail("widgets", "rate_limited");
      },
      429,
      "edge_error",
      "rate_limited",
    ],
    [
      "timeout",
      async () => {
        await plantPendingEdge(env.t);
        env.fake.fail("widgets", "hang");
      },
      504,
      "edge_error",
      "timeout",
    ],
  ];
  for (const [name, arrange, status, code, kind] of cases) {
    await arrange();
    const r = await env.admin.req("POST", PROVISION, {});
    assertEquals(
      [r.status, r.json.error.code, r.json.error.details.kind],
      [status, code, kind],
      name,
    );
    assert(r.json.error.message.length > 20, `${name}: a message in words`);
    if (status === 429) assertEquals(r.headers.get("retry-after"), "42");
    assertEquals(await pending(env.t.kv), null, `${name}: nothing written`);
    assertEquals(env.fake.widgets.size, 0, `${name}: no widget left behind`);
  }
  await env.close();
});

Deno.test("provision: repeating keeps a matching widget; renew or new hostnames replace it and delete the old", async () => {
  const env = await challengeEnv();
  await plantPendingEdge(env.t);
  const first = (await env.admin.req("POST", PROVISION, {})).json;
  const v = await env.admin.req("POST", VERIFY, {
    response: env.fake.solve(first.siteKey, EDGE_HOST),
  }, IP);
  assertEquals(v.status, 200);
  const again = (await env.admin.req("POST", PROVISION, {})).json;
  assertEquals([again.siteKey, again.reused], [first.siteKey, true]);
  assertEquals(env.fake.widgets.size, 1);
  assert((await pending(env.t.kv))!.verifiedAt, "a kept widget stays verified");
  const renewed = (await env.admin.req("POST", PROVISION, { renew: true })).json;
  assert(renewed.siteKey !== first.siteKey && !renewed.reused);
  assertEquals([...env.fake.widgets.keys()], [renewed.siteKey], "the old widget was deleted");
  assertEquals((await pending(env.t.kv))!.verifiedAt, undefined, "a new widget must be verified");
  const wider = (await env.admin.req("POST", PROVISION, { domains: ["www.example.com"] })).json;
  assert(wider.siteKey !== renewed.siteKey);
  assertEquals([...env.fake.widgets.keys()], [wider.siteKey]);
  await env.close();
});

Deno.test("verify: a real response marks the pending challenge verified (siteverify gets secret and IP)", async () => {
  const env = await challengeEnv();
  await plantPendingEdge(env.t);
  const before = await env.admin.req("POST", VERIFY, { response: "x" }, IP);
  assertEquals([before.status, before.json.error.code], [409, "conflict"]);
  assert(before.json.error.message.includes("provision the challenge first"));
  const { siteKey } = (await env.admin.req("POST", PROVISION, {})).json;
  const secret = env.fake.widgets.get(siteKey)!.secret;
  const token = env.fake.solve(siteKey, EDGE_HOST);
  const r = await env.admin.req("POST", VERIFY, { response: token }, IP);
  assertEquals(r.status, 200);
  assertEquals(r.json, {
    verified: true,
    siteKey,
    hostname: EDGE_HOST,
    verifiedAt: env.t.clock.now(),
  });
  const call = env.fake.verifies()[0];
  assertEquals(call.body?.secret, secret);
  assertEquals(call.body?.remoteip, "203.0.113.9");
  assertEquals((await pending(env.t.kv))!.verifiedAt, env.t.clock.now());
  // The same response again: Turnstile's timeout-or-duplicate, a 400 in words.
  const dup = await env.admin.req("POST", VERIFY, { response: token }, IP);
  assertEquals([dup.status, dup.json.error.code], [400, "bad_request"]);
  assertEquals(dup.json.error.details.errorCodes, ["timeout-or-duplicate"]);
  assert(dup.json.error.message.includes("already used"), dup.json.error.message);
  await env.close();
});

Deno.test("verify: a response solved on another hostname is refused and nothing is marked", async () => {
  const env = await challengeEnv();
  await plantPendingEdge(env.t);
  const { siteKey } = (await env.admin.req("POST", PROVISION, {})).json;
  const r = await env.admin.req("POST", VERIFY, {
    response: env.fake.solve(siteKey, "phish.example.net"),
  }, IP);
  assertEquals([r.status, r.json.error.code], [400, "bad_request"]);
  assertEquals(r.json.error.details.hostname, "phish.example.net");
  assertEquals(r.json.error.details.expected, [EDGE_HOST]);
  assertEquals((await pending(env.t.kv))!.verifiedAt, undefined);
  const empty = await env.admin.req("POST", VERIFY, { response: "" }, IP);
  assertEquals(empty.status, 400, "zod: response must not be empty");
  await env.close();
});

Deno.test("verify: a secret Turnstile refuses is 409 (provision again); Turnstile down is 502", async () => {
  const env = await challengeEnv();
  await plantPendingEdge(env.t);
  const { siteKey } = (await env.admin.req("POST", PROVISION, {})).json;
  const p = (await pending(env.t.kv))!;
  await env.t.kv.set(keys.setupPendingChallenge(), {
    ...p,
    sealedSecret: await seal(
      env.t.config.TOKEN_SECRET,
      "0xnot-the-secret",
      CHALLENGE_SECRET_PURPOSE,
    ),
  });
  const token = env.fake.solve(siteKey, EDGE_HOST);
  const wrong = await env.admin.req("POST", VERIFY, { response: token }, IP);
  assertEquals([wrong.status, wrong.json.error.code], [409, "conflict"]);
  assert(wrong.json.error.message.includes("provision again"), wrong.json.error.message);
  await env.t.kv.set(keys.setupPendingChallenge(), p);
  env.fake.fail("siteverify", "unavailable");
  const down = await env.admin.req("POST", VERIFY, { response: token }, IP);
  assertEquals([down.status, down.json.error.code], [502, "edge_error"]);
  assertEquals(down.json.error.details.provider, "turnstile");
  assertEquals((await pending(env.t.kv))!.verifiedAt, undefined);
  assertEquals((await env.admin.req("POST", VERIFY, { response: token }, IP)).status, 200);
  await env.close();
});

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
  assertEquals(await pending(env.t.kv), null);
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
          const p = (await pending(target))!;
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
  assertEquals((await pending(kv))!.siteKey, "0xother", "the other writer's change stands");
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
    { edge: true, challenge: true },
    [],
  ]);
  assert(!done.text.includes(secret) && !done.text.includes("tok-ok"), "no secret, no token");
  assertEquals((await new AdminClient(env.t.app).req("GET", "/api/admin/setup")).status, 401);
  await env.close();
});
