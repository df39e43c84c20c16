/**
 * Test wiring for the bot challenge: an app whose Cloudflare API base and siteverify URL point at
 * a fake Turnstile on loopback, a signed-in admin, a planted pending edge record (what the edge
 * setup steps leave behind) and a helper that takes the challenge live through the real routes.
 */
import type { PendingChallenge } from "../../lib/challenge/records.ts";
import type { Config } from "../../lib/config.ts";
import { sealToken } from "../../lib/edge/store.ts";
import type { PendingEdge } from "../../lib/edge/state.ts";
import { keys } from "../../lib/store/keys.ts";
import { type AdminClient, adminClient } from "../admin_helpers.ts";
import { makeApp, type TestApp } from "../helpers.ts";
import { type FakeTurnstile, fakeTurnstile } from "./turnstile.ts";
import { type FakeServer, serveFakes } from "./serve.ts";

/** The edge hostname of the planted pending edge record. */
export const EDGE_HOST = "queue.example.com";
/** The challenge steps of the setup wizard. */
export const PROVISION = "/api/admin/setup/challenge/provision";
export const VERIFY = "/api/admin/setup/challenge/verify";
/** The admin's address header in these tests (CLIENT_IP_HEADER is `x-ip`). */
export const IP = { "x-ip": "203.0.113.9" };

/** The pending challenge record, or null. */
export async function pendingChallenge(kv: Deno.Kv): Promise<PendingChallenge | null> {
  return (await kv.get<PendingChallenge>(keys.setupPendingChallenge())).value;
}

/** Config pointing both provider URLs at `url` (a `serveFakes` server). */
export function providerConfig(url: string): Partial<Config> {
  return {
    CLOUDFLARE_API_BASE: `${url}/client/v4`,
    TURNSTILE_SITEVERIFY_URL: `${url}/turnstile/v0/siteverify`,
    PROVIDER_TIMEOUT_MS: 200,
    CLIENT_IP_HEADER: "x-ip",
  };
}

/** An app over a fake Turnstile, with a claimed, signed-in admin. */
export interface ChallengeEnv {
  t: TestApp;
  fake: FakeTurnstile;
  server: FakeServer;
  admin: AdminClient;
  phrase: string;
  close(): Promise<void>;
}

/** Builds a `ChallengeEnv` (config overrides win over the provider URLs). */
export async function challengeEnv(
  overrides: Partial<Config> = {},
  opts: { kv?: Deno.Kv } = {},
): Promise<ChallengeEnv> {
  const fake = fakeTurnstile();
  const server = serveFakes(fake.handler);
  const t = await makeApp({ ...providerConfig(server.url), ...overrides }, opts);
  const { client, phrase } = await adminClient(t);
  return {
    t,
    fake,
    server,
    admin: client,
    phrase,
    async close() {
      t.close();
      await server.close();
    },
  };
}

/** Plants a complete pending edge record (token sealed as the edge steps seal it). */
export async function plantPendingEdge(
  t: TestApp,
  over: Partial<PendingEdge> = {},
  token = "tok-ok",
): Promise<PendingEdge> {
  const rec: PendingEdge = {
    sealedToken: await sealToken(t.config.TOKEN_SECRET, token),
    tokenVerifiedAt: t.clock.now(),
    zoneId: "zone-1",
    zoneName: "example.com",
    hostname: EDGE_HOST,
    accountId: "acc-1",
    zoneVerifiedAt: t.clock.now(),
    fixedAt: t.clock.now(),
    ssl: "strict",
    domains: [],
    ...over,
  };
  await t.kv.set(keys.setupPendingEdge(), rec);
  return rec;
}

/** Provisions, verifies and finishes setup through the routes; answers the live widget. */
export async function goLive(env: ChallengeEnv) {
  const { admin, fake } = env;
  const p = await admin.req("POST", PROVISION, {});
  if (p.status !== 200) throw new Error(`provision: ${p.status} ${p.text}`);
  const v = await admin.req(
    "POST",
    VERIFY,
    { response: fake.solve(p.json.siteKey, EDGE_HOST) },
    IP,
  );
  if (v.status !== 200) throw new Error(`verify: ${v.status} ${v.text}`);
  const f = await admin.req("POST", "/api/admin/setup");
  if (f.status !== 200) throw new Error(`setup: ${f.status} ${f.text}`);
  const widget = fake.widgets.get(p.json.siteKey)!;
  return { siteKey: widget.sitekey, secret: widget.secret };
}
