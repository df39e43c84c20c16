/**
 * The Access controls of SPEC 4.3 behind the admin session: the IP allowlist (`/api/admin/bypass`),
 * the country block (`/api/admin/geo-block`) and the origin health throttle (`/api/admin/health`),
 * each read with GET and written with PUT (audited; writes need this service's Origin).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../../app.ts";
import {
  HEALTH_BOUNDS,
  type HealthConfig,
  type HealthConfigInput,
  urlHost,
} from "../../lib/access/health_config.ts";
import { MAX_ALLOWLIST_ENTRIES } from "../../lib/access/ip.ts";
import { geoBlockView } from "../../lib/access/mod.ts";
import {
  MAX_ALLOWLIST_CHARS,
  readBypass,
  saveBypass,
  saveGeoBlock,
} from "../../lib/access/rules.ts";
import { adminSecurity, errs, HealthSnapshotView, jsonBody, jsonOk } from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";

const BypassView = z.object({
  allowlistText: z.string().openapi({ description: "as saved, comments and blank lines kept" }),
  entries: z.number().int(),
  updatedAt: z.number().int().nullable(),
}).openapi("BypassSettings");

const BypassInput = z.object({
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

const GeoBlockInput = z.object({
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
    intervalSeconds: z.number().int(),
    timeoutMs: z.number().int(),
    failures: z.number().int(),
    recoveries: z.number().int(),
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

const HealthInput = z.object({
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

const getRoute = <V extends z.ZodType>(path: string, summary: string, view: V) =>
  createRoute({
    method: "get",
    path,
    summary,
    security: adminSecurity,
    responses: { 200: jsonOk(view, "the current settings"), ...errs(400, 401, 403, 404) },
  });
const putRoute = <V extends z.ZodType, B extends z.ZodType>(
  path: string,
  summary: string,
  view: V,
  body: B,
) =>
  createRoute({
    method: "put",
    path,
    summary,
    security: adminSecurity,
    request: { body: jsonBody(body) },
    responses: { 200: jsonOk(view, "the saved settings"), ...errs(400, 401, 403, 404) },
  });

const getBypass = getRoute("/api/admin/bypass", "IP allowlist (bypass)", BypassView);
const putBypass = putRoute(
  "/api/admin/bypass",
  "Save the IP allowlist: allowlisted visitors are admitted at once and take no slot",
  BypassView,
  BypassInput,
);
const getGeo = getRoute("/api/admin/geo-block", "Country block and its hits", GeoBlockView);
const putGeo = putRoute(
  "/api/admin/geo-block",
  "Save the country block (ttlHours required when enabling; join answers 403 geo_blocked)",
  GeoBlockView,
  GeoBlockInput,
);
const getHealth = getRoute("/api/admin/health", "Origin health throttle", HealthView);
const putHealth = putRoute(
  "/api/admin/health",
  "Save the origin health config (emits `health`), or set or clear the operator override",
  HealthView,
  HealthInput,
);

/** The Access tab's API. */
export function accessRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: s.validationHook });
  const session = adminSession(s);
  for (const p of ["/api/admin/bypass", "/api/admin/geo-block", "/api/admin/health"]) {
    app.use(p, session);
  }

  const healthView = async (cfg?: HealthConfig) => {
    const c = cfg ?? (await s.access.health.read()).cfg;
    const { override, rev: _rev, ...config } = c;
    return { config, override, snapshot: await s.access.health.snapshot() };
  };

  app.openapi(getBypass, async (c) => c.json(await readBypass(s.kv), 200));
  app.openapi(putBypass, async (c) => {
    const rec = await saveBypass(s.kv, s.clock, c.req.valid("json").allowlistText);
    s.access.rules.invalidate();
    await audit(s, c, "access.bypass", { entries: rec.entries });
    return c.json(rec, 200);
  });

  app.openapi(getGeo, async (c) => c.json(await geoBlockView(s.kv, s.access, s.clock.now()), 200));
  app.openapi(putGeo, async (c) => {
    const rec = await saveGeoBlock(s.kv, s.clock, c.req.valid("json"));
    s.access.rules.invalidate();
    await audit(s, c, "access.geoBlock", {
      enabled: rec.enabled,
      countries: rec.countries,
      ttlHours: rec.ttlHours,
    });
    return c.json(await geoBlockView(s.kv, s.access, s.clock.now(), rec), 200);
  });

  app.openapi(getHealth, async (c) => c.json(await healthView(), 200));
  app.openapi(putHealth, async (c) => {
    const { override, ...input } = c.req.valid("json");
    if (override !== undefined) {
      const cfg = await s.access.health.setOverride(override);
      await audit(s, c, "health.override", { override });
      return c.json(await healthView(cfg), 200);
    }
    const cfg = await s.access.health.saveConfig(input as HealthConfigInput);
    await audit(s, c, "health.config", {
      enabled: cfg.enabled,
      host: urlHost(cfg.url),
      intervalSeconds: cfg.intervalSeconds,
      timeoutMs: cfg.timeoutMs,
      failures: cfg.failures,
      recoveries: cfg.recoveries,
    });
    return c.json(await healthView(cfg), 200);
  });
  return app;
}
