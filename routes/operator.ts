import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { Services } from "./services.ts";
import { buildExposition, negotiateFormat } from "../lib/metrics/exposition.ts";
import type { QueueMetrics } from "../lib/queue/engine.ts";
import { roomMetricsOf } from "../lib/room/metrics.ts";
import { CONTENT_TYPES } from "../lib/metrics/registry.ts";
import { sessionMetrics, withSessionMetrics } from "../lib/session/stats.ts";
import { safeEqualString } from "../lib/tokens.ts";
import { audit } from "./admin/session.ts";
import { bearerOf, bearerRequired } from "./bearer.ts";
import { errors, jsonBody, jsonOk, Metrics, ModeSchema, QueueName } from "./schemas.ts";
import { validationHook } from "../http/validation.ts";
import { closedObject } from "./closed_object.ts";

/** Operator credential: `Authorization: Bearer <TOKEN_SECRET>` or `X-Service-Operator`. */
export function operatorAuth(s: Services): MiddlewareHandler {
  return async (c, next) => {
    const bearer = bearerOf(c);
    const header = c.req.header("x-service-operator");
    // Either credential may carry the secret; both are compared in constant time.
    const ok = [bearer, header].some((g) =>
      g !== undefined && safeEqualString(g, s.config.TOKEN_SECRET)
    );
    if (!ok && !(await s.isAdminSession(c))) {
      throw bearerRequired("operator credential required (Bearer TOKEN_SECRET)");
    }
    await next();
  };
}

/**
 * The metrics credential: `Authorization: Bearer <METRICS_TOKEN>` when that is set (read-only,
 * so a scraper never holds TOKEN_SECRET), or any operator credential.
 */
export function metricsAuth(s: Services): MiddlewareHandler {
  const operator = operatorAuth(s);
  return async (c, next) => {
    const token = s.config.METRICS_TOKEN;
    const bearer = bearerOf(c);
    if (token && bearer !== undefined && safeEqualString(bearer, token)) return await next();
    await operator(c, next);
  };
}

const security: Record<string, string[]>[] = [{ operatorBearer: [] }, { operatorHeader: [] }];
// Fresh objects, not `security`'s: shared ones become YAML aliases in openapi.yaml.
const metricsSecurity: Record<string, string[]>[] = [
  { operatorBearer: [] },
  { operatorHeader: [] },
  { metricsBearer: [] },
];
const authErrors = { 400: errors[400], 401: errors[401], 403: errors[403], 404: errors[404] };

const admitRoute = createRoute({
  method: "post",
  path: "/admit",
  summary: "Force-admit up to count waiters (ignores the rate, respects capacity, pause, schedule)",
  security,
  request: {
    body: jsonBody(
      closedObject({ queue: QueueName, count: z.number().int().min(1).max(1_000_000) }),
    ),
  },
  responses: {
    200: jsonOk(z.object({ queue: z.string(), admitted: z.number().int() }), "admitted count"),
    ...authErrors,
  },
});

const modeRoute = createRoute({
  method: "post",
  path: "/mode",
  summary: "Switch admission mode at run time",
  security,
  request: { body: jsonBody(closedObject({ queue: QueueName, mode: ModeSchema })) },
  responses: {
    200: jsonOk(z.object({ queue: z.string(), mode: ModeSchema }), "new mode"),
    ...authErrors,
  },
});

const pauseRoute = createRoute({
  method: "post",
  path: "/pause",
  summary: "Silent pause or resume",
  security,
  request: { body: jsonBody(closedObject({ queue: QueueName, paused: z.boolean() })) },
  responses: {
    200: jsonOk(z.object({ queue: z.string(), paused: z.boolean() }), "new pause state"),
    ...authErrors,
  },
});

const metricsRoute = createRoute({
  method: "get",
  path: "/metrics",
  summary: "Operator metrics of one queue, or of all (JSON, or Prometheus text for scrapers)",
  description: "JSON by default. The Prometheus text format answers `?format=prometheus` or an " +
    "`Accept` naming `text/plain;version=0.0.4`; OpenMetrics answers `?format=openmetrics` or an " +
    "`Accept` naming `application/openmetrics-text` (`*/*` stays JSON). The text formats list " +
    "at most 500 queues (by name; `tollgate_queues_omitted` counts the rest, `?queue=` reaches " +
    "any). Besides the operator credentials, `Authorization: Bearer <METRICS_TOKEN>` is " +
    "accepted here and nowhere else.",
  security: metricsSecurity,
  request: {
    query: z.object({
      queue: QueueName.optional(),
      format: z.enum(["json", "prometheus", "openmetrics"]).optional().openapi({
        description: "overrides the Accept header",
      }),
    }),
  },
  responses: {
    200: {
      description: "metrics",
      content: {
        "application/json": {
          schema: z.union([Metrics, z.object({ queues: z.array(Metrics) })]),
        },
        [CONTENT_TYPES.prometheus]: { schema: z.string() },
        [CONTENT_TYPES.openmetrics]: { schema: z.string() },
      },
    },
    ...authErrors,
  },
});

/** The operator API */
export function operatorRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  const auth = operatorAuth(s);
  for (const p of ["/admit", "/mode", "/pause"]) app.use(p, auth);
  app.use("/metrics", metricsAuth(s));
  app.openAPIRegistry.registerComponent("securitySchemes", "metricsBearer", {
    type: "http",
    scheme: "bearer",
    description: "METRICS_TOKEN (read-only, GET /metrics only)",
  });

  app.openapi(admitRoute, async (c) => {
    const { queue, count } = c.req.valid("json");
    const admitted = await s.engine.admit(queue, count);
    await audit(s, c, "operator.admit", { queue, count, admitted });
    return c.json({ queue, admitted }, 200);
  });
  app.openapi(modeRoute, async (c) => {
    const { queue, mode } = c.req.valid("json");
    const out = await s.engine.setMode(queue, mode);
    await audit(s, c, "operator.mode", { queue, mode });
    return c.json({ queue, mode: out.mode }, 200);
  });
  app.openapi(pauseRoute, async (c) => {
    const { queue, paused } = c.req.valid("json");
    const out = await s.engine.setPaused(queue, paused);
    await audit(s, c, "operator.pause", { queue, paused });
    return c.json({ queue, paused: out.paused }, 200);
  });
  app.openapi(metricsRoute, async (c) => {
    const { queue, format } = c.req.valid("query");
    const fmt = negotiateFormat(format, c.req.header("accept"));
    const room = roomMetricsOf(
      s.rooms,
      s.kv,
      () => s.clock.now(),
      s.config.ACCESS_TOKEN_TTL_SECONDS,
      () => s.access.hits.idle(),
    );
    if (fmt !== "json") {
      const text = await buildExposition(s.engine, fmt, queue, {
        room,
        storeDown: () => s.storeFailure.downSince !== null,
        sessions: (q) => sessionMetrics(s.kv, q),
      });
      return c.text(text, 200, { "Content-Type": CONTENT_TYPES[fmt], Vary: "Accept" });
    }
    c.header("Vary", "Accept");
    const withRoom = async (m: QueueMetrics) => ({
      ...(await withSessionMetrics(s.kv, m)),
      room: await room(m.queue),
    });
    if (queue) return c.json(await withRoom(await s.engine.metrics(queue)), 200);
    return c.json({ queues: await Promise.all((await s.engine.allMetrics()).map(withRoom)) }, 200);
  });
  return app;
}
