/**
 * The IP allowlist (bypass) and the country block: their stored records, the admin writes, and
 * the per-instance cache the join path reads (one KV read a second at most; the allowlist is
 * parsed again only when its record changed).
 */
import type { Clock } from "../clock.ts";
import { BadRequestError } from "../errors.ts";
import { deleteListed } from "../store/delete.ts";
import { keys } from "../store/keys.ts";
import { parseCountries } from "./countries.ts";
import { IpAllowlist, parseAllowlist } from "./ip.ts";
import { badLinesError } from "./lines.ts";

/** The allowlist as stored: the text as the admin saved it (comments kept) and its entry count. */
export interface BypassRecord {
  allowlistText: string;
  entries: number;
  updatedAt: number | null;
}

/**
 * The whole country-block config, at `keys.geoBlock()` alone: the edge controls clear the block
 * by deleting that key. Blocking from `enabledAt` for `ttlHours`.
 */
export interface GeoBlockRecord {
  enabled: boolean;
  countries: string[];
  ttlHours: number | null;
  enabledAt: number | null;
  updatedAt: number | null;
}

const NO_BYPASS: BypassRecord = { allowlistText: "", entries: 0, updatedAt: null };
const NO_GEO: GeoBlockRecord = {
  enabled: false,
  countries: [],
  ttlHours: null,
  enabledAt: null,
  updatedAt: null,
};

/** The largest allowlist text accepted (a KV value holds 64 KiB). */
export const MAX_ALLOWLIST_CHARS = 32_000;

/** When the block ends (unix ms), or null when it is not enabled. */
export function geoExpiresAt(r: GeoBlockRecord): number | null {
  return r.enabled && r.enabledAt !== null && r.ttlHours !== null
    ? r.enabledAt + Math.round(r.ttlHours * 3_600_000)
    : null;
}

/** Reads the allowlist record (an empty one when never saved). */
export async function readBypass(kv: Deno.Kv): Promise<BypassRecord> {
  return (await kv.get<BypassRecord>(keys.bypass())).value ?? { ...NO_BYPASS };
}

/** Reads the country block (disabled when never saved or cleared by the edge controls). */
export async function readGeoBlock(kv: Deno.Kv): Promise<GeoBlockRecord> {
  return (await kv.get<GeoBlockRecord>(keys.geoBlock())).value ?? { ...NO_GEO };
}

/** Validates and saves the allowlist; every bad line is a 400 and nothing is saved. */
export async function saveBypass(
  kv: Deno.Kv,
  clock: Clock,
  allowlistText: string,
): Promise<BypassRecord> {
  const { list, errors } = parseAllowlist(allowlistText);
  if (errors.length > 0) throw badLinesError("allowlistText", errors);
  const rec: BypassRecord = { allowlistText, entries: list.size, updatedAt: clock.now() };
  await kv.set(keys.bypass(), rec);
  return rec;
}

/** The admin's country-block write. */
export interface GeoBlockInput {
  enabled: boolean;
  /** Omitted keeps the stored list. */
  countriesText?: string;
  /** Required when enabling; omitted while disabling keeps the stored value. */
  ttlHours?: number;
}

/**
 * Validates and saves the country block. Enabling needs a TTL and at least one country and
 * (re)starts the TTL now; the hit counts start from zero with each enabling save.
 */
export async function saveGeoBlock(
  kv: Deno.Kv,
  clock: Clock,
  input: GeoBlockInput,
): Promise<GeoBlockRecord> {
  const cur = await readGeoBlock(kv);
  let countries = cur.countries;
  if (input.countriesText !== undefined) {
    const parsed = parseCountries(input.countriesText);
    if (parsed.errors.length > 0) throw badLinesError("countriesText", parsed.errors);
    countries = parsed.countries;
  }
  if (input.enabled && input.ttlHours === undefined) {
    throw new BadRequestError("ttlHours: required when enabling the country block", {
      fields: [{ path: "ttlHours", message: "required when enabled is true (1 to 720)" }],
    });
  }
  if (input.enabled && countries.length === 0) {
    throw new BadRequestError("countriesText: list at least one country to block", {
      fields: [{ path: "countriesText", message: "at least one country code when enabled" }],
    });
  }
  const now = clock.now();
  const rec: GeoBlockRecord = {
    enabled: input.enabled,
    countries,
    ttlHours: input.ttlHours ?? cur.ttlHours,
    enabledAt: input.enabled ? now : null,
    updatedAt: now,
  };
  await kv.set(keys.geoBlock(), rec);
  await deleteListed(kv, { prefix: keys.geoHitsPrefix() }, {
    keep: (k) => rec.enabledAt !== null && k[2] === rec.enabledAt,
  });
  return rec;
}

/** What the join path needs to decide, as one instance last read it. */
export interface AccessRules {
  allow: IpAllowlist;
  /** The active block (null when off or expired at load; `expiresAt` is checked per join). */
  geo: { countries: ReadonlySet<string>; since: number; expiresAt: number } | null;
}

/** How long an instance trusts its copy of the rules (the admin's instance drops it at once). */
export const RULES_TTL_MS = 1000;

/** The per-instance cache of the access rules. */
export class RulesCache {
  #value: AccessRules = { allow: new IpAllowlist(), geo: null };
  #at: number | null = null;
  #bypassStamp: string | null = null;
  #loading: Promise<AccessRules> | null = null;
  /** Bumped by `invalidate`, so a read already in flight does not count as fresh. */
  #generation = 0;

  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** The current rules: from memory when read less than a second ago. */
  current(): Promise<AccessRules> {
    const now = this.clock.now();
    if (this.#at !== null && now >= this.#at && now - this.#at < RULES_TTL_MS) {
      return Promise.resolve(this.#value);
    }
    if (this.#loading) return this.#loading;
    const p = this.#load(now).finally(() => {
      if (this.#loading === p) this.#loading = null;
    });
    return this.#loading = p;
  }

  /** Forgets the copy: the next join reads the store (after a local admin write). */
  invalidate(): void {
    this.#at = null;
    this.#loading = null;
    this.#generation++;
  }

  async #load(now: number): Promise<AccessRules> {
    const generation = this.#generation;
    const [bypass, geo] = await this.kv.getMany<[BypassRecord, GeoBlockRecord]>([
      keys.bypass(),
      keys.geoBlock(),
    ]);
    // Parse only when the allowlist changed since the last read.
    const same = bypass.versionstamp === this.#bypassStamp;
    const allow = same ? this.#value.allow : parseAllowlist(bypass.value?.allowlistText ?? "").list;
    const g = geo.value;
    const expiresAt = g ? geoExpiresAt(g) : null;
    const value: AccessRules = {
      allow,
      geo: g && expiresAt !== null && expiresAt > now && g.enabledAt !== null
        ? { countries: new Set(g.countries), since: g.enabledAt, expiresAt }
        : null,
    };
    // A read begun before an `invalidate` answers its own caller but is not kept: a newer read
    // may already have replaced it.
    if (generation === this.#generation) {
      this.#value = value;
      this.#bypassStamp = bypass.versionstamp;
      this.#at = now;
    }
    return value;
  }
}
