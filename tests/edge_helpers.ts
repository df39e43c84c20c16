/** Shared set-up of the edge tests: an app wired to a fake Cloudflare on loopback, signed in. */
import { liveEdgeFrom, type PendingEdge } from "../lib/edge/state.ts";
import { keys } from "../lib/store/keys.ts";
import type { Config } from "../lib/config.ts";
import { type AdminClient, adminClient } from "./admin_helpers.ts";
import { assertEquals } from "./assert.ts";
import { type FakeCloudflare, fakeCloudflare } from "./fakes/cloudflare.ts";
import { serveFakes } from "./fakes/serve.ts";
import { makeApp } from "./helpers.ts";

/** The operator's API token in these tests (40 characters, like Cloudflare's). */
export const TOKEN = "Zk3v9QqLx2Tn8WmB4cYp7HdR1sUe6GaJ0fKoNiVt";
/** A second valid token. */
export const TOKEN2 = "Pq8wE2rT5yU1iO9pA3sD6fG4hJ7kL0zXcVbNm1Qa";
/** Every live control once linked, with a valid body (for "each answers ..." checks). */
export const LIVE_CONTROLS: [string, string, unknown][] = [
  ["POST", "/api/admin/edge/check", {}],
  ["POST", "/api/admin/edge/fix-proxy", {}],
  ["PUT", "/api/admin/edge/ip-geolocation", { enabled: true }],
  ["PUT", "/api/admin/edge/ssl", {}],
  ["GET", "/api/admin/edge/domains", undefined],
  ["PUT", "/api/admin/edge/domains", { domain: "www.example.com" }],
  ["DELETE", "/api/admin/edge/domains?domain=www.example.com", undefined],
  ["PUT", "/api/admin/edge", { hostname: "queue.example.com" }],
];

/** The origin address of the hostname's pre-existing A record. */
export const ORIGIN_IP = "203.0.113.7";

/** Adds a DNS record to the fake's zone example.com (unproxied unless `proxied`). */
export function addDns(
  cf: FakeCloudflare,
  type: string,
  name: string,
  content: string,
  proxied = false,
) {
  return cf.addRecord("example.com", { type, name, content, proxied });
}

/** An app on a fake Cloudflare with zone example.com and an unproxied A record for queue.example.com. */
export async function edgeApp(
  overrides: Partial<Config> = {},
  opts: Parameters<typeof makeApp>[1] = {},
) {
  const cf = fakeCloudflare({ timeoutDelayMs: 3000 });
  const srv = serveFakes(cf.handler);
  const t = await makeApp({
    CLOUDFLARE_API_BASE: `${srv.url}/client/v4`,
    PROVIDER_TIMEOUT_MS: 200,
    ...overrides,
  }, opts);
  const { client } = await adminClient(t);
  cf.addToken(TOKEN);
  const zone = cf.addZone("example.com");
  addDns(cf, "A", "queue.example.com", ORIGIN_IP);
  return {
    t,
    cf,
    srv,
    client,
    zone,
    async close() {
      await srv.close();
      t.close();
    },
  };
}

/** The edge test app. */
export type EdgeApp = Awaited<ReturnType<typeof edgeApp>>;

/** Every KV entry as text (values and keys), for "nothing changed" and "secret nowhere" checks. */
export async function kvText(kv: Deno.Kv): Promise<string> {
  const all = await Array.fromAsync(kv.list({ prefix: [] }));
  return JSON.stringify(
    all.map((e) => [e.key, e.value]),
    (_k, v) => typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? [...v] : v,
  );
}

/** The store minus the audit log (failed calls may not be audited, but reads add nothing). */
export async function kvWithoutAudit(kv: Deno.Kv): Promise<string> {
  const all = await Array.fromAsync(kv.list({ prefix: [] }));
  return JSON.stringify(all.filter((e) => e.key[0] !== "audit").map((e) => [e.key, e.value]));
}

/** Runs the setup's edge steps (token, zone, fix, strict SSL) and checks each answered 200. */
export async function runSetup(client: AdminClient, token = TOKEN) {
  const steps: [string, string, unknown][] = [
    ["POST", "/api/admin/setup/edge/token-verify", { token }],
    ["POST", "/api/admin/setup/edge/verify", {
      zone: "example.com",
      hostname: "queue.example.com",
    }],
    ["POST", "/api/admin/setup/edge/fix", {}],
    ["PUT", "/api/admin/setup/edge/ssl", { mode: "strict" }],
  ];
  for (const [m, p, b] of steps) {
    const r = await client.req(m, p, b);
    assertEquals(r.status, 200, `${m} ${p}: ${r.text}`);
  }
}

/** Promotes the complete pending record to the live link, as `POST /api/admin/setup` does. */
export async function promote(e: EdgeApp) {
  const p = (await e.t.kv.get<PendingEdge>(keys.setupPendingEdge())).value!;
  await e.t.kv.set(keys.edge(), liveEdgeFrom(p, e.t.clock.now()));
  await e.t.kv.delete(keys.setupPendingEdge());
}

/** Set up and live: the wizard's edge steps ran and the link was promoted. */
export async function linkedApp(overrides: Partial<Config> = {}) {
  const e = await edgeApp(overrides);
  await runSetup(e.client);
  await promote(e);
  return e;
}
