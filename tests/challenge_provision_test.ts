import { CHALLENGE_SECRET_PURPOSE } from "../lib/challenge/records.ts";
import { seal, unseal } from "../lib/seal.ts";
import { keys } from "../lib/store/keys.ts";
import { AdminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import {
  challengeEnv,
  EDGE_HOST,
  IP,
  pendingChallenge,
  plantPendingEdge,
  PROVISION,
  VERIFY,
} from "./fakes/turnstile_setup.ts";

// The bot-challenge steps of the setup wizard: provision the Turnstile widget, verify a challenge.

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
  const p = (await pendingChallenge(env.t.kv))!;
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
  assertEquals(await pendingChallenge(env.t.kv), null);
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
    assertEquals(await pendingChallenge(env.t.kv), null, `${name}: nothing written`);
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
  assert((await pendingChallenge(env.t.kv))!.verifiedAt, "a kept widget stays verified");
  const renewed = (await env.admin.req("POST", PROVISION, { renew: true })).json;
  assert(renewed.siteKey !== first.siteKey && !renewed.reused);
  assertEquals([...env.fake.widgets.keys()], [renewed.siteKey], "the old widget was deleted");
  assertEquals(
    (await pendingChallenge(env.t.kv))!.verifiedAt,
    undefined,
    "a new widget must be verified",
  );
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
  assertEquals((await pendingChallenge(env.t.kv))!.verifiedAt, env.t.clock.now());
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
  assertEquals((await pendingChallenge(env.t.kv))!.verifiedAt, undefined);
  const empty = await env.admin.req("POST", VERIFY, { response: "" }, IP);
  assertEquals(empty.status, 400, "zod: response must not be empty");
  await env.close();
});

Deno.test("verify: a secret Turnstile refuses is 409 (provision again); Turnstile down is 502", async () => {
  const env = await challengeEnv();
  await plantPendingEdge(env.t);
  const { siteKey } = (await env.admin.req("POST", PROVISION, {})).json;
  const p = (await pendingChallenge(env.t.kv))!;
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
  assertEquals((await pendingChallenge(env.t.kv))!.verifiedAt, undefined);
  assertEquals((await env.admin.req("POST", VERIFY, { response: token }, IP)).status, 200);
  await env.close();
});

Deno.test("verify: a widget deleted in the dashboard is 409 saying how to get a new one; that works", async () => {
  const env = await challengeEnv();
  await plantPendingEdge(env.t);
  const { siteKey } = (await env.admin.req("POST", PROVISION, {})).json;
  env.fake.widgets.delete(siteKey);
  const gone = await env.admin.req("POST", VERIFY, {
    response: env.fake.solve(siteKey, EDGE_HOST),
  }, IP);
  assertEquals([gone.status, gone.json.error.code], [409, "conflict"]);
  // A plain provision would keep the dead widget (it still matches); the message must say renew.
  assert(gone.json.error.message.includes('{"renew": true}'), gone.json.error.message);
  const fresh = await env.admin.req("POST", PROVISION, { renew: true });
  assertEquals([fresh.status, fresh.json.reused], [200, false], fresh.text);
  const ok = await env.admin.req("POST", VERIFY, {
    response: env.fake.solve(fresh.json.siteKey, EDGE_HOST),
  }, IP);
  assertEquals(ok.status, 200, ok.text);
  await env.close();
});
