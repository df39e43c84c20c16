/**
 * The Cloudflare API v4 client of the edge link: token check, zones, DNS records and the two zone
 * settings Tollgate manages (`ssl`, `ip_geolocation`). Every call goes through `cfRequest`, so
 * failures arrive as `ProviderError`s with the token scrubbed from anything they carry.
 *
 * @example
 * const cf = cloudflareFor(services, token);
 * const zone = await cf.findZone("example.com");
 * await cf.setSetting(zone.id, "ip_geolocation", "on");
 */
import type { Config } from "../config.ts";
import { cfRequest, cfRequestAll, ProviderError, type ProviderOptions } from "./provider.ts";

/** A zone as Tollgate uses it. */
export interface CfZone {
  id: string;
  name: string;
  /** `active` once the zone's nameservers point at Cloudflare (`pending` before). */
  status: string;
  accountId: string;
}

/** A DNS record as Tollgate uses it. */
export interface CfDnsRecord {
  id: string;
  type: string;
  name: string;
  content: string;
  proxied: boolean;
  proxiable: boolean;
}

/** The zone settings Tollgate reads and writes. */
export type CfSettingId = "ssl" | "ip_geolocation";

/** What `verifyToken` learns. */
export interface CfTokenStatus {
  id: string;
  status: string;
  expiresOn?: string;
}

interface RawZone {
  id: string;
  name: string;
  status?: string;
  account?: { id?: string };
}

interface RawRecord {
  id: string;
  type: string;
  name: string;
  content: string;
  proxied?: boolean;
  proxiable?: boolean;
}

/** Lower case, no trailing dot: how names are compared. */
export function normalizeName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, "");
}

function zoneOf(z: RawZone): CfZone {
  return {
    id: String(z.id),
    name: normalizeName(String(z.name)),
    status: String(z.status ?? "unknown"),
    accountId: String(z.account?.id ?? ""),
  };
}

function recordOf(r: RawRecord): CfDnsRecord {
  return {
    id: String(r.id),
    type: String(r.type),
    name: normalizeName(String(r.name)),
    content: String(r.content),
    proxied: r.proxied === true,
    proxiable: r.proxiable !== false,
  };
}

const id = (s: string) => encodeURIComponent(s);

/** One token's view of the Cloudflare API. */
export class CloudflareClient {
  constructor(private readonly opts: ProviderOptions, private readonly token: string) {}

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return cfRequest<T>(this.opts, this.token, method, path, body);
  }

  private list<T>(path: string, perPage?: number): Promise<T[]> {
    return cfRequestAll<T>(this.opts, this.token, path, perPage);
  }

  /** `GET /user/tokens/verify`; a token that is not `active` is a `bad_token` failure. */
  async verifyToken(): Promise<CfTokenStatus> {
    const r = await this.call<{ id: string; status: string; expires_on?: string }>(
      "GET",
      "/user/tokens/verify",
    );
    if (r?.status !== "active") {
      throw new ProviderError(
        "cloudflare",
        "bad_token",
        `the API token is ${r?.status ?? "not active"}; create a new token and paste it again`,
        200,
      );
    }
    return { id: String(r.id), status: r.status, expiresOn: r.expires_on };
  }

  /** `GET /zones?name=…`: the zone of that exact name, or a `not_found` failure. */
  async findZone(name: string): Promise<CfZone> {
    const want = normalizeName(name);
    const found = (await this.list<RawZone>(`/zones?name=${id(want)}`)).map(zoneOf)
      .find((z) => z.name === want);
    if (!found) {
      throw new ProviderError(
        "cloudflare",
        "not_found",
        `zone "${want}" was not found, or the API token cannot see it; check the zone name ` +
          `and that the token's zone resources include it`,
        404,
      );
    }
    return found;
  }

  /** `GET /zones/{id}`. */
  async getZone(zoneId: string): Promise<CfZone> {
    return zoneOf(await this.call<RawZone>("GET", `/zones/${id(zoneId)}`));
  }

  /** `GET /zones/{id}/dns_records?name=…[&type=…]` (all pages), exact name matches only. */
  async listDnsRecords(
    zoneId: string,
    filter: { name: string; type?: string },
  ): Promise<CfDnsRecord[]> {
    const name = normalizeName(filter.name);
    const q = `name=${id(name)}${filter.type ? `&type=${id(filter.type)}` : ""}`;
    const all = await this.list<RawRecord>(`/zones/${id(zoneId)}/dns_records?${q}`, 100);
    // Filter here too: an older API treated `name` loosely, and a wrong record must never be edited.
    return all.map(recordOf).filter((r) =>
      r.name === name && (!filter.type || r.type === filter.type)
    );
  }

  /** `POST /zones/{id}/dns_records` (TTL 1 = automatic). */
  async createDnsRecord(
    zoneId: string,
    rec: { type: "A" | "AAAA" | "CNAME"; name: string; content: string; proxied: boolean },
  ): Promise<CfDnsRecord> {
    return recordOf(
      await this.call<RawRecord>("POST", `/zones/${id(zoneId)}/dns_records`, { ...rec, ttl: 1 }),
    );
  }

  /** `PATCH /zones/{id}/dns_records/{rid}` with `{proxied}`. */
  async setProxied(zoneId: string, recordId: string, proxied: boolean): Promise<CfDnsRecord> {
    return recordOf(
      await this.call<RawRecord>("PATCH", `/zones/${id(zoneId)}/dns_records/${id(recordId)}`, {
        proxied,
      }),
    );
  }

  /** `DELETE /zones/{id}/dns_records/{rid}`. */
  async deleteDnsRecord(zoneId: string, recordId: string): Promise<void> {
    await this.call("DELETE", `/zones/${id(zoneId)}/dns_records/${id(recordId)}`);
  }

  /** `GET /zones/{id}/settings/{setting}`: the setting's value. */
  async getSetting(zoneId: string, setting: CfSettingId): Promise<string> {
    const r = await this.call<{ value: unknown }>(
      "GET",
      `/zones/${id(zoneId)}/settings/${setting}`,
    );
    return String(r?.value);
  }

  /** `PATCH /zones/{id}/settings/{setting}` with `{value}`: the value Cloudflare now holds. */
  async setSetting(zoneId: string, setting: CfSettingId, value: string): Promise<string> {
    const r = await this.call<{ value: unknown }>(
      "PATCH",
      `/zones/${id(zoneId)}/settings/${setting}`,
      { value },
    );
    return String(r?.value);
  }
}

/** How the service reaches Cloudflare: its configured base URL and timeout, and `services.fetch`. */
export function cloudflareOptions(s: { config: Config; fetch: typeof fetch }): ProviderOptions {
  return {
    baseUrl: s.config.CLOUDFLARE_API_BASE,
    timeoutMs: s.config.PROVIDER_TIMEOUT_MS,
    // Read at call time, so a test that swaps `services.fetch` after start is honoured.
    fetch: (input, init) => s.fetch(input, init),
  };
}

/** A client for `token` with the service's provider options. */
export function cloudflareFor(
  s: { config: Config; fetch: typeof fetch },
  token: string,
): CloudflareClient {
  return new CloudflareClient(cloudflareOptions(s), token);
}
