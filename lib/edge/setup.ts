/**
 * The edge steps of the setup wizard (`setup/edge/*`). Each step works from the pending
 * record, calls Cloudflare, and only when every call succeeded writes the pending record. The
 * final `POST /api/admin/setup` (not here) promotes a complete record to the live link.
 *
 * Order: token-verify -> verify (zone, hostname) -> fix (proxied DNS, IP geolocation) -> ssl
 * (strict or skip); attach-domain is optional once the zone is known. A new token starts over; a
 * new zone or hostname drops the steps that were done for the old one.
 */
import { BadRequestError, ConflictError } from "../errors.ts";
import { type CloudflareClient, cloudflareFor, normalizeName } from "./cloudflare.ts";
import {
  attachDomain,
  checkDomain,
  ensureSetting,
  MAX_DOMAINS,
  proxyHostname,
  recordView,
  requireInZone,
  routableRecords,
} from "./dns.ts";
import { edgeStep } from "./failure.ts";
import type { ProviderDeps } from "./provider.ts";
import type { PendingEdge } from "./state.ts";
import {
  patchPending,
  pendingView,
  putPending,
  readPending,
  sameToken,
  sealToken,
  tokenUnreadable,
  unsealToken,
  withReason,
} from "./store.ts";

type Zoned = PendingEdge & { zoneId: string; zoneName: string; hostname: string };

/** The pending record and a client for its token; 409 when a step before is missing. */
async function pendingClient(d: ProviderDeps, needZone: true): Promise<[Zoned, CloudflareClient]>;
async function pendingClient(
  d: ProviderDeps,
  needZone: false,
): Promise<[PendingEdge, CloudflareClient]>;
async function pendingClient(
  d: ProviderDeps,
  needZone: boolean,
): Promise<[PendingEdge, CloudflareClient]> {
  const p = await readPending(d.kv);
  if (!p) throw stepMissing("verify the Cloudflare API token first (setup/edge/token-verify)");
  if (needZone && (!p.zoneId || !p.zoneName || !p.hostname)) {
    throw stepMissing("verify the zone and hostname first (setup/edge/verify)");
  }
  const token = await unsealToken(d.config.TOKEN_SECRET, p.sealedToken);
  if (token === null) throw tokenUnreadable("setup");
  return [p, cloudflareFor(d, token)];
}

function stepMissing(message: string): ConflictError {
  return withReason(new ConflictError("conflict", message), "step_missing");
}

async function viewOf(d: ProviderDeps, p: PendingEdge | null) {
  const readable = p ? (await unsealToken(d.config.TOKEN_SECRET, p.sealedToken)) !== null : false;
  return pendingView(p, readable);
}

/** The wizard's view of the pending edge setup. */
export async function pendingState(d: ProviderDeps) {
  return await viewOf(d, await readPending(d.kv));
}

/**
 * `token-verify`: checks the token with Cloudflare and keeps it sealed as pending. The same token
 * again keeps the later steps; a different one replaces the record (later steps start over).
 */
export async function verifyTokenStep(d: ProviderDeps, token: string) {
  const st = await edgeStep("verify the API token", () => cloudflareFor(d, token).verifyToken());
  const now = d.clock.now();
  const cur = await readPending(d.kv);
  let next: PendingEdge;
  let kept = false;
  if (cur && await sameToken(d.config.TOKEN_SECRET, cur.sealedToken, token)) {
    next = await patchPending(d.kv, cur, (p) => ({ ...p, tokenVerifiedAt: now }));
    kept = true;
  } else {
    next = { sealedToken: await sealToken(d.config.TOKEN_SECRET, token), tokenVerifiedAt: now };
    await putPending(d.kv, next);
  }
  return {
    ...(await viewOf(d, next)),
    token: { status: st.status, expiresOn: st.expiresOn ?? null },
    keptLaterSteps: kept,
  };
}

/** `verify`: finds the zone by name and checks the hostname lies in it; reports its records. */
export async function verifyZoneStep(d: ProviderDeps, zone: string, hostname: string) {
  const zoneName = normalizeName(zone), host = normalizeName(hostname);
  requireInZone(host, zoneName, "hostname");
  const [p, cf] = await pendingClient(d, false);
  const z = await edgeStep(`find the zone ${zoneName}`, () => cf.findZone(zoneName));
  const records = await routableRecords(cf, z.id, host);
  const now = d.clock.now();
  const next = await patchPending(d.kv, { sealedToken: p.sealedToken }, (cur) => {
    const sameZone = cur.zoneId === z.id;
    const samePlace = sameZone && cur.hostname === host;
    return {
      ...cur,
      zoneId: z.id,
      zoneName: z.name,
      accountId: z.accountId,
      hostname: host,
      zoneVerifiedAt: now,
      fixedAt: samePlace ? cur.fixedAt : undefined,
      ssl: sameZone ? cur.ssl : undefined,
      domains: samePlace ? cur.domains : undefined,
    };
  });
  return {
    ...(await viewOf(d, next)),
    zoneStatus: z.status,
    records: records.map(recordView),
  };
}

/** `fix`: proxies the hostname's records (or creates one for `target`) and turns IP geolocation on. */
export async function fixStep(d: ProviderDeps, target?: string) {
  const [p, cf] = await pendingClient(d, true);
  const dns = await proxyHostname(cf, p.zoneId, p.hostname, target);
  const geo = await ensureSetting(cf, p.zoneId, "ip_geolocation", "on");
  const now = d.clock.now();
  const next = await patchPending(d.kv, p, (cur) => ({ ...cur, fixedAt: now }));
  return { ...(await viewOf(d, next)), dns, ipGeolocation: geo };
}

/** `ssl`: sets Full (strict) encryption, or records that the operator skipped it. */
export async function sslStep(d: ProviderDeps, choice: { mode: "strict" } | { skip: true }) {
  if ("skip" in choice) {
    const p = await readPending(d.kv);
    if (!p) throw stepMissing("verify the Cloudflare API token first (setup/edge/token-verify)");
    const next = await patchPending(d.kv, p, (cur) => ({ ...cur, ssl: "skipped" }));
    return { ...(await viewOf(d, next)), sslMode: null, changed: false };
  }
  const [p, cf] = await pendingClient(d, true);
  const out = await ensureSetting(cf, p.zoneId, "ssl", "strict");
  const next = await patchPending(d.kv, p, (cur) => ({ ...cur, ssl: "strict" }));
  return { ...(await viewOf(d, next)), sslMode: out.value, changed: out.changed };
}

/** `attach-domain`: a proxied CNAME `domain -> hostname` in the zone (created when absent). */
export async function attachDomainStep(d: ProviderDeps, domain: string) {
  const [p, cf] = await pendingClient(d, true);
  const name = checkDomain(domain, p.zoneName, p.hostname);
  const have = p.domains ?? [];
  if (!have.includes(name) && have.length >= MAX_DOMAINS) {
    const message = `at most ${MAX_DOMAINS} custom domains; detach one first`;
    throw new BadRequestError(message, { fields: [{ path: "domain", message }] });
  }
  const out = await attachDomain(cf, p.zoneId, name, p.hostname);
  const next = await patchPending(d.kv, p, (cur) => ({
    ...cur,
    domains: [...new Set([...(cur.domains ?? []), name])],
  }));
  return { ...(await viewOf(d, next)), attached: out };
}
