/**
 * The edge controls once the link is live (`/api/admin/edge*`): save zone, hostname and
 * token, check, fix the proxy, IP geolocation, strict TLS and custom domains. The token is read
 * from the link with `TOKEN_SECRET`; when that fails (secret rotated) every call answers 409 and
 * asks for the token again. The link record is written only after Cloudflare accepted.
 */
import { BadRequestError, ConflictError } from "../errors.ts";
import { keys } from "../store/keys.ts";
import { checkEdge } from "./check.ts";
import { type CloudflareClient, cloudflareFor, normalizeName } from "./cloudflare.ts";
import {
  attachDomain,
  checkDomain,
  detachDomain,
  domainStatus,
  ensureSetting,
  MAX_DOMAINS,
  proxyHostname,
  requireInZone,
} from "./dns.ts";
import { edgeStep } from "./failure.ts";
import type { ProviderDeps } from "./provider.ts";
import type { EdgeLink } from "./state.ts";
import {
  linkView,
  notLinked,
  patchLink,
  readLink,
  sealToken,
  tokenUnreadable,
  unsealToken,
  withReason,
} from "./store.ts";

/** The live link and a client for its token; 409 when there is none or the token is unreadable. */
async function linkClient(d: ProviderDeps): Promise<[EdgeLink, CloudflareClient]> {
  const link = await readLink(d.kv);
  if (!link) throw notLinked();
  const token = await unsealToken(d.config.TOKEN_SECRET, link.sealedToken);
  if (token === null) throw tokenUnreadable("live");
  return [link, cloudflareFor(d, token)];
}

/** Applies `patch` to the link if it still is in the zone the call worked on. */
function patchSameZone(d: ProviderDeps, zoneId: string, patch: (l: EdgeLink) => EdgeLink) {
  return patchLink(d.kv, (cur) => {
    if (!cur) return null;
    if (cur.zoneId !== zoneId) {
      throw withReason(
        new ConflictError("conflict", "the edge link changed meanwhile; repeat the call"),
        "edge_changed",
      );
    }
    return patch(cur);
  });
}

/** The link as the admin app sees it (no token; whether it can still be read). */
export async function edgeState(d: ProviderDeps) {
  const link = await readLink(d.kv);
  const readable = link
    ? (await unsealToken(d.config.TOKEN_SECRET, link.sealedToken)) !== null
    : false;
  return linkView(link, readable);
}

/**
 * Saves zone, hostname and/or token after checking them with Cloudflare (token active, zone
 * visible to it, hostname in the zone). Without a link all three are needed and create it. A new
 * zone or hostname stops tracking the old custom domains (their records stay in Cloudflare).
 */
export async function saveEdge(
  d: ProviderDeps,
  input: { zone?: string; hostname?: string; token?: string },
) {
  const link = await readLink(d.kv);
  if (!link && !(input.zone && input.hostname && input.token)) {
    throw withReason(
      new ConflictError(
        "conflict",
        "no Cloudflare zone is linked yet: send zone, hostname and token together",
      ),
      "edge_not_linked",
    );
  }
  const zoneName = normalizeName(input.zone ?? link!.zoneName);
  const hostname = normalizeName(input.hostname ?? link!.hostname);
  requireInZone(hostname, zoneName, "hostname");
  let token = input.token ?? null;
  if (token === null) {
    token = await unsealToken(d.config.TOKEN_SECRET, link!.sealedToken);
    if (token === null) throw tokenUnreadable("live");
  }
  const cf = cloudflareFor(d, token);
  if (input.token) await edgeStep("verify the API token", () => cf.verifyToken());
  const zone = await edgeStep(`find the zone ${zoneName}`, () => cf.findZone(zoneName));
  const sealed = input.token ? await sealToken(d.config.TOKEN_SECRET, input.token) : null;
  const now = d.clock.now();
  let untracked: string[] = [];
  const next = await patchLink(d.kv, (cur) => {
    if (!cur && !sealed) return null;
    const samePlace = !!cur && cur.zoneId === zone.id && cur.hostname === hostname;
    untracked = cur && !samePlace ? cur.domains : [];
    return {
      sealedToken: sealed ?? cur!.sealedToken,
      zoneId: zone.id,
      zoneName: zone.name,
      accountId: zone.accountId,
      hostname,
      // Set by Tollgate only; a new zone's mode is unknown until set (the check reads it).
      ssl: cur && cur.zoneId === zone.id ? cur.ssl : "skipped",
      domains: samePlace ? cur!.domains : [],
      linkedAt: cur?.linkedAt ?? now,
    };
  });
  return {
    ...linkView(next, true),
    zoneStatus: zone.status,
    tokenReplaced: !!sealed,
    untrackedDomains: untracked,
  };
}

/** Reads everything from Cloudflare and sums it up (writes nothing). */
export async function checkLive(d: ProviderDeps) {
  const [link, cf] = await linkClient(d);
  return await checkEdge(cf, link);
}

/** Proxies the hostname's records (or creates one for `target`) and turns IP geolocation on. */
export async function fixProxyLive(d: ProviderDeps, target?: string) {
  const [link, cf] = await linkClient(d);
  const dns = await proxyHostname(cf, link.zoneId, link.hostname, target);
  const ipGeolocation = await ensureSetting(cf, link.zoneId, "ip_geolocation", "on");
  return { dns, ipGeolocation };
}

/**
 * Turns IP geolocation on or off. Off also clears the country block: without the
 * country header it could only block nobody or, worse, be trusted while blind.
 */
export async function setIpGeolocationLive(d: ProviderDeps, enabled: boolean) {
  const [link, cf] = await linkClient(d);
  const out = await ensureSetting(cf, link.zoneId, "ip_geolocation", enabled ? "on" : "off");
  let cleared = false;
  if (!enabled) {
    cleared = (await d.kv.get(keys.geoBlock())).value !== null;
    await d.kv.delete(keys.geoBlock());
  }
  return { enabled, changed: out.changed, countryBlockCleared: cleared };
}

/** Sets Full (strict) encryption and records it on the link. */
export async function setSslLive(d: ProviderDeps) {
  const [link, cf] = await linkClient(d);
  const out = await ensureSetting(cf, link.zoneId, "ssl", "strict");
  const next = await patchSameZone(d, link.zoneId, (cur) => ({ ...cur, ssl: "strict" }));
  return { sslMode: out.value, changed: out.changed, edge: linkView(next, true) };
}

/** The tracked custom domains with their state in Cloudflare. */
export async function listDomainsLive(d: ProviderDeps) {
  const [link, cf] = await linkClient(d);
  const domains = [];
  for (const name of link.domains) {
    domains.push(await domainStatus(cf, link.zoneId, name, link.hostname));
  }
  return { hostname: link.hostname, zoneName: link.zoneName, domains };
}

/** Attaches a custom domain (idempotent) and tracks it. */
export async function attachDomainLive(d: ProviderDeps, domain: string) {
  const [link, cf] = await linkClient(d);
  const name = checkDomain(domain, link.zoneName, link.hostname);
  if (!link.domains.includes(name) && link.domains.length >= MAX_DOMAINS) {
    const message = `at most ${MAX_DOMAINS} custom domains; detach one first`;
    throw new BadRequestError(message, { fields: [{ path: "domain", message }] });
  }
  const out = await attachDomain(cf, link.zoneId, name, link.hostname);
  const next = await patchSameZone(d, link.zoneId, (cur) => ({
    ...cur,
    domains: [...new Set([...cur.domains, name])],
  }));
  return { attached: out, domains: next.domains };
}

/** Detaches a custom domain: deletes its CNAME to the hostname and stops tracking it. */
export async function detachDomainLive(d: ProviderDeps, domain: string) {
  const [link, cf] = await linkClient(d);
  const name = normalizeName(domain);
  requireInZone(name, link.zoneName, "domain");
  const out = await edgeStep(
    `detach ${name}`,
    () => detachDomain(cf, link.zoneId, name, link.hostname),
  );
  const tracked = link.domains.includes(name);
  const next = await patchSameZone(d, link.zoneId, (cur) => ({
    ...cur,
    domains: cur.domains.filter((x) => x !== name),
  }));
  return { detached: tracked || out.deleted, ...out, domains: next.domains };
}
