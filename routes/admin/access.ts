/**
 * The Access controls behind the admin session: the IP allowlist (`/api/admin/bypass`),
 * the country block (`/api/admin/geo-block`) and the origin health throttle (`/api/admin/health`),
 * each read with GET and written with PUT (audited; writes need this service's Origin).
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import {
  HEALTH_BOUNDS,
  type HealthConfig,
  type HealthConfigInput,
  healthConfigSummary,
} from "../../lib/access/health_config.ts";
import { MAX_ALLOWLIST_ENTRIES } from "../../lib/access/ip.ts";
import { outboundGuard } from "../../lib/outbound/guard.ts";
import { geoBlockView } from "../../lib/access/mod.ts";
import {
  MAX_ALLOWLIST_CHARS,
  readBypass,
  saveBypass,
  saveGeoBlock,
} from "../../lib/access/rules.ts";
import { adminPutRoute, adminRoute, healthProbeFields, HealthSnapshotView } from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { validationHook } from "../../http/validation.ts";
import { closedObject } from "../closed_object.ts";

const BypassView = z.object({
  allowlistText: z.string().openapi({ description: "as saved, comments and blank lines kept" }),
  entries: z.number().int(),
  updatedAt: z.number().int().nullable(),
}).openapi("BypassSettings");

const BypassInput = closedObject({
  allowlistText: z.string().max(MAX_ALLOWLIST_CHARS).openapi({
    description:
      `IPv4/IPv6 addresses and CIDR ranges, one per line (at most ${MAX_ALLOWLIST_ENTRIES}); ` +
      "`#` starts a comment. Each bad line is reported in the 400's `details.lines`.",
    example: "203.0.113.7\n10.0.0.0/8 # office\n2001:db8::/32",
  }),
}).openapi("BypassInput");

/** The country block as the admin app reads it (also inside `GET /api/admin/metrics`). */
export const GeoBlockView = z.object({
  enabled: z.boolean(),
  active: z.boolean().openapi({ description: "enabled and not expired: blocking now" }),
  countries: z.array(z.string()),
  countriesText: z.string(),
  ttlHours: z.number().nullable(),
  enabledAt: z.number().int().nullable(),
  expiresAt: z.number().int().nullable().openapi({ description: "enabledAt + ttlHours (unix ms)" }),
  hits: z.record(z.string(), z.number().int()).openapi({
    description: "refused joins per country since the block was last enabled",
  }),
}).openapi("GeoBlock");

const GeoBlockInput = closedObject({
  enabled: z.boolean(),
  countriesText: z.string().max(4000).optional().openapi({
    description: "ISO 3166-1 alpha-2 codes, one per line, any case, `#` comments; omitted keeps " +
      "the stored list",
    example: "RU\nkp",
  }),
  ttlHours: z.number().min(1).max(720).optional().openapi({
    description: "required when enabling; the block ends ttlHours after this save",
  }),
}).superRefine((b, ctx) => {
  if (b.enabled && b.ttlHours === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["ttlHours"],
      message: "required when enabled is true (1 to 720)",
    });
  }
}).openapi("GeoBlockInput");

const HealthView = z.object({
  config: z.object({
    enabled: z.boolean(),
    url: z.string(),
    ...healthProbeFields,
    updatedAt: z.number().int().nullable(),
  }),
  override: z.enum(["healthy", "unhealthy"]).nullable(),
  snapshot: HealthSnapshotView,
}).openapi("HealthSettings");

/** An absolute http(s) URL without credentials. */
function isProbeUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password;
  } catch {
    return false;
  }
}

const bounded = (k: keyof typeof HEALTH_BOUNDS) =>
  z.number().int().min(HEALTH_BOUNDS[k][0]).max(HEALTH_BOUNDS[k][1]).optional();
const CONFIG_KEYS = [
  "enabled",
  "url",
  "intervalSeconds",
  "timeoutMs",
  "failures",
  "recoveries",
] as const;

const HealthInput = closedObject({
  enabled: z.boolean().optional().openapi({ description: "config form: required" }),
  url: z.string().max(2048).refine((u) => u === "" || isProbeUrl(u), {
    message: "must be an http:// or https:// URL without credentials",
  }).optional(),
  intervalSeconds: bounded("intervalSeconds").openapi({ description: "default 10" }),
  timeoutMs: bounded("timeoutMs").openapi({ description: "default 2000; below the interval" }),
  failures: bounded("failures").openapi({ description: "failed probes in a row that pause" }),
  recoveries: bounded("recoveries").openapi({ description: "good probes in a row that resume" }),
  override: z.enum(["healthy", "unhealthy"]).nullable().optional().openapi({
    description: "override form, alone: force a state, or null to clear the override",
  }),
}).superRefine((b, ctx) => {
  const config = CONFIG_KEYS.filter((k) => b[k] !== undefined);
  if (b.override !== undefined && config.length > 0) {
    ctx.addIssue({
      code: "custom",
      path: [config[0]],
      message: "send either the config or {override} alone, not both",
    });
  } else if (b.override === undefined && b.enabled === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["enabled"],
      message: 'required (or send {override: "healthy" | "unhealthy" | null})',
    });
  }
}).openapi("HealthInput");

/** The GET and PUT of one setting. */
const setting = <V extends z.ZodType, B extends z.ZodType>(
  path: string,
  view: V,
  body: B,
  read: string,
  write: string,
) => ({
  path,
  get: adminRoute("get", path, read, view),
  put: adminPutRoute(path, write, view, body),
});

const bypass = setting(
  "/api/admin/bypass",
  BypassView,
  BypassInput,
  "IP allowlist (bypass)",
  "Save the IP allowlist: allowlisted visitors are admitted at once and take no slot",
);
const geo = setting(
  "/api/admin/geo-block",
  GeoBlockView,
  GeoBlockInput,
  "Country block and its hits",
  "Save the country block (ttlHours required when enabling; join answers 403 geo_blocked)",
);
const health = setting(
  "/api/admin/health",
  HealthView,
  HealthInput,
  "Origin health throttle",
  "Save the origin health config (emits `health`), or set or clear the operator override",
);

/** The Access tab's API. */
export function accessRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  const session = adminSession(s);
  for (const r of [bypass, geo, health]) app.use(r.path, session);

  const healthView = async (cfg?: HealthConfig) => {
    const c = cfg ?? (await s.access.health.read()).cfg;
    const { override, rev: _rev, ...config } = c;
    return { config, override, snapshot: await s.access.health.snapshot() };
  };

  app.openapi(bypass.get, async (c) => c.json(await readBypass(s.kv), 200));
  app.openapi(bypass.put, async (c) => {
    const rec = await saveBypass(s.kv, s.clock, c.req.valid("json").allowlistText);
    s.access.rules.invalidate();
    await audit(s, c, "access.bypass", { entries: rec.entries });
    return c.json(rec, 200);
  });

  app.openapi(geo.get, async (c) => c.json(await geoBlockView(s.kv, s.access, s.clock.now()), 200));
  app.openapi(geo.put, async (c) => {
    const rec = await saveGeoBlock(s.kv, s.clock, c.req.valid("json"));
    s.access.rules.invalidate();
    await audit(s, c, "access.geoBlock", {
      enabled: rec.enabled,
      countries: rec.countries,
      ttlHours: rec.ttlHours,
    });
    return c.json(await geoBlockView(s.kv, s.access, s.clock.now(), rec), 200);
  });

  app.openapi(health.get, async (c) => c.json(await healthView(), 200));
  app.openapi(health.put, async (c) => {
    const { override, ...input } = c.req.valid("json");
    if (override !== undefined) {
      const cfg = await s.access.health.setOverride(override);
      await audit(s, c, "health.override", { override });
      return c.json(await healthView(cfg), 200);
    }
    // The probe is an outbound request like a webhook: the same policy, the service never itself.
    if (input.url) await outboundGuard(s.config).assertSavable(input.url, c.req.url);
    const cfg = await s.access.health.saveConfig(input as HealthConfigInput);
    await audit(s, c, "health.config", healthConfigSummary(cfg));
    return c.json(await healthView(cfg), 200);
  });
  return app;
}
