/**
 * Protecting the origin: the IP allowlist, the country block and the origin
 * health throttle, as one piece of the services.
 */
import { keys } from "../store/keys.ts";
import { ClientJoinLimiter } from "./client_limit.ts";
import { type HealthDeps, HealthMonitor } from "./health.ts";
import type { HealthSnapshot } from "./health_config.ts";
import { HitCounter, readHits } from "./hits.ts";
import { type GeoBlockRecord, geoExpiresAt, readGeoBlock, RulesCache } from "./rules.ts";

/** The access pieces of one instance. */
export interface Access {
  /** Allowlist and country block as the join path reads them. */
  rules: RulesCache;
  /** Country-block hit counters. */
  hits: HitCounter;
  health: HealthMonitor;
  /** Per-client limits on new places (in this instance's memory). */
  clientLimit: ClientJoinLimiter;
}

/** Builds the access pieces; app.ts wires them in as `services.access`. */
export function createAccess(deps: HealthDeps): Access {
  return {
    rules: new RulesCache(deps.kv, deps.clock),
    hits: new HitCounter(deps.kv),
    health: new HealthMonitor(deps),
    clientLimit: new ClientJoinLimiter(),
  };
}

/** The country block as the admin reads it: the record, its end, whether it blocks now, hits. */
export interface GeoBlockView {
  enabled: boolean;
  /** Enabled and not expired. */
  active: boolean;
  countries: string[];
  countriesText: string;
  ttlHours: number | null;
  enabledAt: number | null;
  expiresAt: number | null;
  /** Refused joins per country since the block was enabled. */
  hits: Record<string, number>;
}

/** The admin view of the country block (waits for hits still being written by this instance). */
export async function geoBlockView(
  kv: Deno.Kv,
  access: Access,
  now: number,
  rec?: GeoBlockRecord,
): Promise<GeoBlockView> {
  const r = rec ?? await readGeoBlock(kv);
  const expiresAt = geoExpiresAt(r);
  await access.hits.idle();
  return {
    enabled: r.enabled,
    active: expiresAt !== null && now < expiresAt,
    countries: r.countries,
    countriesText: r.countries.join("\n"),
    ttlHours: r.ttlHours,
    enabledAt: r.enabledAt,
    expiresAt,
    hits: r.enabledAt === null ? {} : await readHits(kv, keys.geoHitsPrefix(r.enabledAt)),
  };
}

/** What the admin metrics add: the country block with its hits, and the health snapshot. */
export async function accessMetrics(
  kv: Deno.Kv,
  access: Access,
  now: number,
): Promise<{ geoBlock: GeoBlockView; health: HealthSnapshot }> {
  const [geoBlock, health] = await Promise.all([
    geoBlockView(kv, access, now),
    access.health.snapshot(),
  ]);
  return { geoBlock, health };
}
