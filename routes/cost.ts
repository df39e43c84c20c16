import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Services } from "../app.ts";
import {
  COST_LIMITS,
  type CostInputs,
  defaultPollIntervalSeconds,
  estimateCost,
  inputProblems,
  POLLING_MODES,
  withDefaults,
} from "../lib/cost.ts";
import { renderCostPage } from "./cost_page.tsx";
import { errors, jsonOk } from "./schemas.ts";

/** CSP of the calculator: no scripts at all, the page's own inline style, no foreign framing. */
export const COST_CSP = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "script-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join("; ");

const KNOWN = [
  "visitors",
  "averageWaitSeconds",
  "pollingMode",
  "pollIntervalSeconds",
  "heartbeatIntervalSeconds",
];

/** A whole number in a query string: digits only (no signs, exponents, spaces), within bounds. */
function whole(name: keyof typeof COST_LIMITS, description: string, example: string) {
  const [min, max] = COST_LIMITS[name];
  return z.string()
    .regex(/^[0-9]{1,12}$/, { message: `${name} must be a whole number (digits only)` })
    .transform(Number)
    .pipe(
      z.number().int()
        .min(min, { message: `${name} must be at least ${min}` })
        .max(max, { message: `${name} must be at most ${max}` }),
    )
    .optional()
    .openapi({ description: `${description} (${min} to ${max})`, example });
}

/**
 * The SPEC 4.1 query: every parameter optional; a bad value of a known one is a 400, unknown ones
 * (a `?_=1` cache-buster, tracking tags) are ignored.
 */
export const CostQuery = z.object({
  visitors: whole("visitors", "unique waiting-room visitors; default 5000000", "5000000"),
  averageWaitSeconds: whole(
    "averageWaitSeconds",
    "typical wait before admission, seconds; default 900",
    "900",
  ),
  pollingMode: z.enum(POLLING_MODES, { message: "pollingMode must be adaptive or fixed" })
    .optional().openapi({ description: "adaptive (timeslots, default) or fixed (advanced)" }),
  pollIntervalSeconds: whole(
    "pollIntervalSeconds",
    "check-in period; default adaptive max(5, ceil(visitors/750)), fixed 15; fixed at most 3600, " +
      "adaptive at least the default",
    "15",
  ),
  heartbeatIntervalSeconds: whole(
    "heartbeatIntervalSeconds",
    "default adaptive 0, fixed 30; unused when adaptive; 0 means no heartbeats",
    "30",
  ),
}).superRefine((q, ctx) => {
  // Cross-field rules only once the fields they read parsed.
  const read = q as Record<string, unknown>;
  if (
    ["visitors", "pollIntervalSeconds"].some((k) =>
      read[k] !== undefined && typeof read[k] !== "number"
    )
  ) {
    return;
  }
  for (const p of inputProblems(q as Partial<CostInputs>)) {
    ctx.addIssue({ code: "custom", path: [p.field], message: p.message });
  }
});

const Requests = z.object({
  join: z.number(),
  status: z.number(),
  heartbeat: z.number(),
  total: z.number(),
});
const KvTerm = z.object({
  name: z.string(),
  count: z.number(),
  readsEach: z.number(),
  writesEach: z.number(),
  reads: z.number(),
  writes: z.number(),
  formula: z.string(),
  explanation: z.string(),
});
const ModeEstimate = z.object({
  mode: z.enum(POLLING_MODES),
  chosen: z.boolean().openapi({ description: "true for the pollingMode asked for" }),
  pollIntervalSeconds: z.number(),
  heartbeatIntervalSeconds: z.number(),
  checkInsPerVisitor: z.number(),
  heartbeatsPerVisitor: z.number(),
  requests: Requests,
  kv: z.object({ reads: z.number(), writes: z.number(), terms: z.array(KvTerm) }),
  perSecond: z.object({
    lineCheckIns: z.number(),
    admissions: z.number(),
    heartbeats: z.number(),
    peakStatus: z.number(),
    peakRequests: z.number(),
  }),
  monthlyCost: z.object({
    plan: z.string(),
    baseUsd: z.number(),
    requestsUsd: z.number(),
    kvReadsUsd: z.number(),
    kvWritesUsd: z.number(),
    totalUsd: z.number(),
  }),
}).openapi("CostModeEstimate");
const CostEstimate = z.object({
  inputs: z.object({
    visitors: z.number(),
    averageWaitSeconds: z.number(),
    pollingMode: z.enum(POLLING_MODES),
    pollIntervalSeconds: z.number(),
    heartbeatIntervalSeconds: z.number(),
  }).openapi({ description: "the inputs with defaults filled in" }),
  adaptive: ModeEstimate,
  fixed: ModeEstimate,
  savings: z.object({
    requests: z.number(),
    kvReads: z.number(),
    kvWrites: z.number(),
    peakRequestsPerSecond: z.number(),
    monthlyUsd: z.number(),
    percentOfFixedCost: z.number(),
  }).openapi({ description: "fixed minus adaptive" }),
  formula: z.record(z.string(), z.string()),
  pricing: z.record(z.string(), z.unknown()).openapi({
    description: "the Deno Deploy price table used (an assumption; see `asOf` and `source`)",
  }),
  notes: z.array(z.string()),
}).openapi("CostEstimate");

const estimateRoute = createRoute({
  method: "get",
  path: "/api/cost-estimate",
  summary: "Estimate requests, KV use and Deno Deploy cost: adaptive timeslots vs fixed polling",
  request: { query: CostQuery },
  responses: {
    200: jsonOk(CostEstimate, "both modes side by side, the chosen one marked"),
    400: errors[400],
  },
});

/** The query as the form sends it: one value per key, blank fields meaning "use the default". */
function pageQuery(c: Context): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(c.req.queries())) {
    const kept = v.filter((x) => x !== "");
    if (kept.length > 0) out[k] = kept.length === 1 ? kept[0] : kept;
  }
  return out;
}

/** The cost calculator: `GET /api/cost-estimate` and the `/cost` page (SPEC 4.1). */
export function costRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: s.validationHook });
  app.openapi(estimateRoute, (c) => {
    c.header("Content-Security-Policy", COST_CSP);
    return c.json(estimateCost(withDefaults(c.req.valid("query"))), 200);
  });
  app.get("/cost", (c) => {
    c.header("Content-Security-Policy", COST_CSP);
    const query = pageQuery(c);
    const raw: Record<string, string> = {};
    for (const [k, v] of Object.entries(query)) {
      if (KNOWN.includes(k)) raw[k] = String(v);
      else delete query[k];
    }
    const parsed = CostQuery.safeParse(query);
    const defaults = {
      visitors: 5_000_000,
      averageWaitSeconds: 900,
      adaptivePoll: defaultPollIntervalSeconds(
        "adaptive",
        parsed.success ? withDefaults(parsed.data).visitors : 5_000_000,
      ),
    };
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => ({
        path: i.path.join("."),
        message: i.message,
      }));
      return c.html(renderCostPage({ raw, defaults, problems }), 400);
    }
    const estimate = estimateCost(withDefaults(parsed.data));
    return c.html(renderCostPage({ raw, defaults, estimate }), 200);
  });
  return app;
}
