/**
 * The DNS and zone-setting work of the edge steps: proxy the service's hostname, switch IP
 * geolocation and strict TLS, and attach or detach custom domains. A custom domain is a proxied
 * CNAME `domain -> hostname` in the same zone; Tollgate creates it when absent, never overwrites a
 * record that points elsewhere, and only ever deletes the CNAME it would have created.
 * Every function reads first and writes only what differs, so repeating a step changes nothing.
 */
import { BadRequestError, ConflictError } from "../errors.ts";
import { type CfDnsRecord, type CloudflareClient, normalizeName } from "./cloudflare.ts";
import { edgeStep } from "./failure.ts";
import { withReason } from "./store.ts";

/** Most custom domains one service tracks. */
export const MAX_DOMAINS = 20;

const ROUTABLE = new Set(["A", "AAAA", "CNAME"]);

/** A record as responses show it. */
export interface RecordView {
  type: string;
  name: string;
  content: string;
  proxied: boolean;
}

/** A record as responses show it (no ids). */
export const recordView = (r: CfDnsRecord): RecordView => ({
  type: r.type,
  name: r.name,
  content: r.content,
  proxied: r.proxied,
});

/** True when `name` is the zone's apex or a name under it. */
export function inZone(name: string, zone: string): boolean {
  const n = normalizeName(name), z = normalizeName(zone);
  return n === z || n.endsWith(`.${z}`);
}

/** 400 `bad_request` unless `name` (field `field`) lies in `zone`. */
export function requireInZone(name: string, zone: string, field: string): void {
  if (inZone(name, zone)) return;
  const message = `${field} "${name}" is not inside the zone "${zone}"`;
  throw new BadRequestError(message, { fields: [{ path: field, message }] });
}

/** The DNS record type a fix `target` makes: A for IPv4, AAAA for IPv6, else CNAME. */
export function targetType(target: string): "A" | "AAAA" | "CNAME" {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(target)) return "A";
  return target.includes(":") ? "AAAA" : "CNAME";
}

/** The A/AAAA/CNAME records of `name` in the zone. */
export async function routableRecords(
  cf: CloudflareClient,
  zoneId: string,
  name: string,
): Promise<CfDnsRecord[]> {
  const all = await edgeStep(
    `list the DNS records of ${name}`,
    () => cf.listDnsRecords(zoneId, { name }),
  );
  return all.filter((r) => ROUTABLE.has(r.type));
}

/**
 * Proxies every A/AAAA/CNAME record of `hostname`. Without one it creates a proxied record for
 * `target` when given, else answers 409 in words (Tollgate never guesses the origin's address).
 */
export async function proxyHostname(
  cf: CloudflareClient,
  zoneId: string,
  hostname: string,
  target?: string,
): Promise<{ records: RecordView[]; changed: RecordView[]; created: RecordView | null }> {
  const records = await routableRecords(cf, zoneId, hostname);
  if (records.length === 0) {
    if (!target) {
      throw withReason(
        new ConflictError(
          "conflict",
          `there is no A, AAAA or CNAME record for ${hostname} in Cloudflare, so there is nothing ` +
            `to proxy; add one pointing at this Tollgate server in the Cloudflare dashboard, or ` +
            `send {"target": "<server IP or hostname>"} to have Tollgate create it`,
        ),
        "no_dns_record",
        { hostname },
      );
    }
    const made = await edgeStep(
      `create the DNS record of ${hostname}`,
      () =>
        cf.createDnsRecord(zoneId, {
          type: targetType(target),
          name: hostname,
          content: target,
          proxied: true,
        }),
    );
    return { records: [recordView(made)], changed: [], created: recordView(made) };
  }
  const changed: RecordView[] = [];
  const out: RecordView[] = [];
  for (const r of records) {
    if (r.proxied) {
      out.push(recordView(r));
      continue;
    }
    const now = await edgeStep(
      `proxy the ${r.type} record of ${hostname}`,
      () => cf.setProxied(zoneId, r.id, true),
    );
    changed.push(recordView(now));
    out.push(recordView(now));
  }
  return { records: out, changed, created: null };
}

/** Sets a zone setting to `value` unless it already has it. */
export async function ensureSetting(
  cf: CloudflareClient,
  zoneId: string,
  setting: "ssl" | "ip_geolocation",
  value: string,
): Promise<{ value: string; changed: boolean }> {
  const label = setting === "ssl" ? "the SSL/TLS encryption mode" : "IP geolocation";
  const cur = await edgeStep(`read ${label}`, () => cf.getSetting(zoneId, setting));
  if (cur === value) return { value, changed: false };
  const now = await edgeStep(
    `set ${label} to "${value}"`,
    () => cf.setSetting(zoneId, setting, value),
  );
  return { value: now, changed: true };
}

/** Checks a custom-domain request against the link: in the zone, not the hostname itself. */
export function checkDomain(domain: string, zone: string, hostname: string): string {
  const d = normalizeName(domain);
  requireInZone(d, zone, "domain");
  if (d === normalizeName(hostname)) {
    const message = `"${d}" is the service's own hostname, not an extra domain`;
    throw new BadRequestError(message, { fields: [{ path: "domain", message }] });
  }
  return d;
}

const pointsAt = (r: CfDnsRecord, hostname: string) =>
  r.type === "CNAME" && normalizeName(r.content) === normalizeName(hostname);

/** The A/AAAA/CNAME records of `domain`: its CNAMEs to `hostname` (`own`) and the rest. */
async function domainRecords(
  cf: CloudflareClient,
  zoneId: string,
  domain: string,
  hostname: string,
): Promise<{ own: CfDnsRecord[]; others: CfDnsRecord[] }> {
  const records = await routableRecords(cf, zoneId, domain);
  return {
    own: records.filter((r) => pointsAt(r, hostname)),
    others: records.filter((r) => !pointsAt(r, hostname)),
  };
}

/**
 * Attaches `domain`: its proxied CNAME to `hostname` exists afterwards (created, or proxied if it
 * was not). A record of the name that points elsewhere is left alone: 409 `conflict`.
 */
export async function attachDomain(
  cf: CloudflareClient,
  zoneId: string,
  domain: string,
  hostname: string,
): Promise<{ domain: string; created: boolean; changed: boolean; record: RecordView }> {
  const { own: [own], others } = await domainRecords(cf, zoneId, domain, hostname);
  if (own) {
    if (own.proxied) return { domain, created: false, changed: false, record: recordView(own) };
    const now = await edgeStep(
      `proxy the CNAME record of ${domain}`,
      () => cf.setProxied(zoneId, own.id, true),
    );
    return { domain, created: false, changed: true, record: recordView(now) };
  }
  if (others.length) {
    const r = others[0];
    throw withReason(
      new ConflictError(
        "conflict",
        `${domain} already has a ${r.type} record pointing at ${r.content}; Tollgate will not ` +
          `overwrite it: remove it in the Cloudflare dashboard first, or choose another domain`,
      ),
      "domain_in_use",
      { domain, records: others.map(recordView) },
    );
  }
  const made = await edgeStep(
    `create the CNAME record of ${domain}`,
    () =>
      cf.createDnsRecord(zoneId, { type: "CNAME", name: domain, content: hostname, proxied: true }),
  );
  return { domain, created: true, changed: true, record: recordView(made) };
}

/** Detaches `domain`: deletes its CNAME to `hostname` if present; other records stay. */
export async function detachDomain(
  cf: CloudflareClient,
  zoneId: string,
  domain: string,
  hostname: string,
): Promise<{ domain: string; deleted: boolean; leftAlone: RecordView[] }> {
  const { own, others } = await domainRecords(cf, zoneId, domain, hostname);
  for (const r of own) {
    await edgeStep(`delete the CNAME record of ${domain}`, () => cf.deleteDnsRecord(zoneId, r.id));
  }
  return { domain, deleted: own.length > 0, leftAlone: others.map(recordView) };
}

/** How a tracked domain looks in Cloudflare right now, in words. */
export async function domainStatus(
  cf: CloudflareClient,
  zoneId: string,
  domain: string,
  hostname: string,
): Promise<{ domain: string; state: string; ok: boolean; message: string }> {
  const { own: [own], others: [other] } = await domainRecords(cf, zoneId, domain, hostname);
  const [state, message] = own?.proxied
    ? ["ok", `${domain} is a proxied CNAME to ${hostname}`]
    : own
    ? ["not_proxied", `${domain} points at ${hostname} but is not proxied; attach it again to fix`]
    : other
    ? ["points_elsewhere", `${domain} has a ${other.type} record pointing at ${other.content}`]
    : ["missing", `${domain} has no DNS record; attach it again to recreate its CNAME`];
  return { domain, state, ok: state === "ok", message };
}
