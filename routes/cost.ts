import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Services } from "./services.ts";
import {
  COST_DEFAULTS,
  COST_LIMITS,
  type CostEstimate as CostEstimateT,
  type CostInputs,
  costInputs,
  defaultPollIntervalSeconds,
  estimateCost,
  inputProblems,
  POLLING_MODES,
} from "../lib/cost.ts";
import { COST_CSS, CostPage } from "./cost_page.tsx";
import { htmlPage } from "./pages/html.tsx";
import { errors, jsonOk } from "./schemas.ts";
import { issueFields, validationHook } from "../http/validation.ts";

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
 * The documented query: every parameter optional; a bad value of a known one is a 400, unknown ones
 * (a `?_=1` cache-buster, tracking tags) are ignored.
 */
const CostQuery = z.object({
  visitors: whole(
    "visitors",
    `unique waiting-room visitors; default ${COST_DEFAULTS.visitors}`,
    String(COST_DEFAULTS.visitors),
  ),
  averageWaitSeconds: whole(
    "averageWaitSeconds",
    `typical wait before admission, seconds; default ${COST_DEFAULTS.averageWaitSeconds}`,
    String(COST_DEFAULTS.averageWaitSeconds),
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
  // zod runs this even when a field failed: inputProblems skips fields that are not numbers.
  for (const p of inputProblems(q as Partial<CostInputs>)) {
    ctx.addIssue({ code: "custom", path: [p.field], message: p.message, params: p.params });
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

// Compile-time drift guard, both ways: `deno check` fails when the lib's result or this schema
// gains a field the other lacks. `formula` and `pricing` are open records here, so their exact
// key lists are not compared back; the lib's `as const` literals compare as their base types.
type Widen<T> = T extends string ? string
  : T extends number ? number
  : T extends boolean ? boolean
  : T extends readonly (infer U)[] ? Widen<U>[]
  : { -readonly [K in keyof T]: Widen<T[K]> };
type CostDoc = z.infer<typeof CostEstimate>;
const _libFitsSchema: CostDoc = null as unknown as CostEstimateT;
const _schemaFitsLib: Widen<Omit<CostEstimateT, "formula" | "pricing">> =
  null as unknown as CostDoc;

/** The known query keys, read off the schema. */
const KNOWN = Object.keys(CostQuery.shape);

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

/** The cost calculator: `GET /api/cost-estimate` and the `/cost` page. */
export function costRoutes(_s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.openapi(
    estimateRoute,
    (c) => c.json(estimateCost(costInputs(c.req.valid("query"))), 200),
  );
  app.get("/cost", (c) => {
    const query = pageQuery(c);
    // Only known keys are echoed into the form; unknown ones are dropped by the schema too.
    const raw = Object.fromEntries(
      KNOWN.filter((k) => k in query).map((k) => [k, String(query[k])]),
    );
    const parsed = CostQuery.safeParse(query);
    const inputs = costInputs(parsed.success ? parsed.data : {});
    const defaults = {
      ...COST_DEFAULTS,
      adaptivePoll: defaultPollIntervalSeconds("adaptive", inputs.visitors),
    };
    if (!parsed.success) {
      const problems = issueFields(parsed.error.issues);
      return htmlPage(c, CostPage({ raw, defaults, problems }), 400, { inlineStyle: COST_CSS });
    }
    const page = CostPage({ raw, defaults, estimate: estimateCost(inputs) });
    return htmlPage(c, page, 200, { inlineStyle: COST_CSS });
  });
  return app;
}
