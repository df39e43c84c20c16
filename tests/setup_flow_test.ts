/**
 * The whole setup wizard end to end, against both fakes on one loopback server: the edge steps
 * (token, zone, proxied DNS and IP geolocation, strict SSL) on the fake Cloudflare zones API, the
 * challenge steps on the fake Turnstile, then `POST /api/admin/setup`, after which sign-in needs
 * the challenge.
 */
import { TOS_VERSION } from "../lib/admin/tos.ts";
import type { LiveChallenge } from "../lib/challenge/records.ts";
import type { EdgeLink } from "../lib/edge/state.ts";
import { keys } from "../lib/store/keys.ts";
import { AdminClient, adminClient, TEST_PASSWORD } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { fakeCloudflare } from "./fakes/cloudflare.ts";
import { serveFakes } from "./fakes/serve.ts";
import { fakeTurnstile } from "./fakes/turnstile.ts";
import { providerConfig } from "./fakes/turnstile_setup.ts";
import { makeApp } from "./helpers.ts";

const TOKEN = "Zk3v9QqLx2Tn8WmB4cYp7HdR1sUe6GaJ0fKoNiVt";
const HOST = "queue.example.com";

Deno.test("setup flow: edge steps, challenge provision and verify, finish; then sign-in needs the challenge", async () => {
  const cf = fakeCloudflare();
  cf.addToken(TOKEN);
  const zone = cf.addZone("example.com");
  cf.addRecord("example.com", { type: "A", name: HOST, content: "203.0.113.7", proxied: false });
  const ts = fakeTurnstile({
    tokens: { [TOKEN]: { accounts: [zone.accountId], turnstile: true } },
    accounts: [zone.accountId],
  });
  // Turnstile first: the zones fake answers everything under /client/v4.
  const server = serveFakes(ts.handler, cf.handler);
  const t = await makeApp(providerConfig(server.url));
  try {
    const { client } = await adminClient(t);
    const ip = { "x-ip": "203.0.113.20" };
    const steps: [string, string, unknown][] = [
      ["POST", "/api/admin/setup/edge/token-verify", { token: TOKEN }],
      ["POST", "/api/admin/setup/edge/verify", { zone: "example.com", hostname: HOST }],
      ["POST", "/api/admin/setup/edge/fix", {}],
      ["PUT", "/api/admin/setup/edge/ssl", { mode: "strict" }],
    ];
    for (const [m, p, b] of steps) {
      const r = await client.req(m, p, b);
      assertEquals(r.status, 200, `${m} ${p}: ${r.text}`);
    }
    const early = await client.req("POST", "/api/admin/setup");
    assertEquals(early.json.error.details.missing, ["challenge widget", "challenge verification"]);

    const prov = await client.req("POST", "/api/admin/setup/challenge/provision", {});
    assertEquals(prov.status, 200, prov.text);
    const widget = ts.widgets.get(prov.json.siteKey)!;
    assertEquals([widget.accountId, widget.domains], [zone.accountId, [HOST]]);
    assertEquals(ts.log[0].authorization, `Bearer ${TOKEN}`, "the token of the edge steps");
    const ver = await client.req("POST", "/api/admin/setup/challenge/verify", {
      response: ts.solve(widget.sitekey, HOST),
    }, ip);
    assertEquals(ver.status, 200, ver.text);
    const progress = (await client.req("GET", "/api/admin/setup")).json;
    assertEquals([progress.edge.ssl, progress.challenge.verified, progress.missing], [
      true,
      true,
      [],
    ]);

    const done = await client.req("POST", "/api/admin/setup");
    assertEquals([done.status, done.json.alreadyComplete, done.json.hostname], [200, false, HOST]);
    const link = (await t.kv.get<EdgeLink>(keys.edge())).value!;
    assertEquals([link.zoneId, link.accountId, link.hostname, link.ssl], [
      zone.id,
      zone.accountId,
      HOST,
      "strict",
    ]);
    const live = (await t.kv.get<LiveChallenge>(keys.challenge())).value!;
    assertEquals(live.siteKey, widget.sitekey);
    assertEquals((await t.kv.get(keys.setupPendingEdge())).value, null);
    assert(cf.zone("example.com").settings.ssl === "strict", "the zone really was changed");

    const anon = new AdminClient(t.app);
    const boot = (await anon.req("GET", "/api/admin/bootstrap")).json;
    assertEquals([boot.setupComplete, boot.challengeRequired, boot.challengeSiteKey], [
      true,
      true,
      widget.sitekey,
    ]);
    const body = { username: "admin", password: TEST_PASSWORD };
    assertEquals((await anon.req("POST", "/api/admin/login", body, ip)).status, 401);
    const ok = await anon.req("POST", "/api/admin/login", {
      ...body,
      challengeResponse: ts.solve(widget.sitekey, HOST),
    }, ip);
    assertEquals(ok.status, 200, ok.text);
    assertEquals(TOS_VERSION, ok.json.user.acceptedTosVersion);
  } finally {
    t.close();
    await server.close();
  }
});
