import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { TRAFFIC_BUCKET_MS } from "../../lib/traffic.ts";
import { readTraffic, trafficCsv } from "../../lib/traffic.ts";
import { checkUpdates } from "../../lib/updates.ts";
import { isHttpsUrl } from "../../lib/destination.ts";
import { outboundGuard } from "../../lib/outbound/guard.ts";
import { closedObject } from "../closed_object.ts";
import {
  readWebhookSettings,
  saveWebhookSettings,
  WEBHOOK_EVENTS,
} from "../../lib/webhooks_settings.ts";
import { adminSecurity, errs, jsonBody, jsonOk, QueueName } from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { pickQueue } from "./settings.ts";
import { validationHook } from "../../http/validation.ts";

const WebhookUrl = z.string().max(2048).refine((u) => u === "" || isHttpsUrl(u), {
  message: "must be an https:// URL without user:password (or empty while disabled)",
});

const WebhookSettingsView = z.object({
  enabled: z.boolean(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  depthThreshold: z.number().int(),
  hasSecret: z.boolean().openapi({ description: "a signing secret is stored (never returned)" }),
  secretUnreadable: z.boolean().optional().openapi({
    description: "a secret is stored but TOKEN_SECRET was rotated since; set it again",
  }),
}).openapi("WebhookSettings");

const WebhookSettingsInput = closedObject({
  enabled: z.boolean(),
  url: WebhookUrl,
  events: z.array(z.enum(WEBHOOK_EVENTS)).max(3),
  secret: z.string().min(1).max(512).nullable().optional().openapi({
    description: "a string sets the signing secret, null clears it, omitted keeps it",
  }),
  depthThreshold: z.number().int().min(1).max(50_000_000).optional().openapi({
    description: "waiting count that fires `depth`; omitted keeps the stored value (100 at first)",
  }),
}).openapi("WebhookSettingsInput");

const getWebhooksRoute = createRoute({
  method: "get",
  path: "/api/admin/webhooks",
  summary: "Webhook settings (never the secret; `hasSecret` says whether one is set)",
  security: adminSecurity,
  responses: { 200: jsonOk(WebhookSettingsView, "the settings"), ...errs(400, 401, 403, 404) },
});

const putWebhooksRoute = createRoute({
  method: "put",
  path: "/api/admin/webhooks",
  summary: "Save webhook settings (https URL, events, optional signing secret, depth threshold)",
  security: adminSecurity,
  request: { body: jsonBody(WebhookSettingsInput) },
  responses: {
    200: jsonOk(WebhookSettingsView, "the saved settings"),
    ...errs(400, 401, 403, 404),
  },
});

const testWebhookRoute = createRoute({
  method: "post",
  path: "/api/admin/webhooks/test",
  summary: "Send a test `pause` event (detail.test = true) to the configured URL and report",
  security: adminSecurity,
  request: {
    body: {
      required: false,
      content: {
        "application/json": { schema: closedObject({ queue: QueueName.optional() }) },
      },
    },
  },
  responses: {
    200: jsonOk(
      z.object({
        delivered: z.boolean(),
        status: z.number().int().optional(),
        error: z.string().optional(),
      }).openapi("WebhookTestResult"),
      "the outcome of the delivery (a failed delivery is still a 200)",
    ),
    ...errs(400, 401, 403, 404),
  },
});

const updatesRoute = createRoute({
  method: "get",
  path: "/api/admin/updates",
  summary: "Latest release versus the running version (cached ~6 h; never deploys)",
  security: adminSecurity,
  request: {
    query: z.object({
      refresh: z.enum(["0", "1", "true", "false"]).optional().openapi({
        description: "1 forces a fresh lookup",
      }),
    }),
  },
  responses: {
    200: jsonOk(
      z.object({
        running: z.string(),
        latest: z.string().nullable(),
        updateAvailable: z.boolean(),
        url: z.string().regex(/^https:\/\//).optional().openapi({
          description: "release page; only https links are ever given",
        }),
        publishedAt: z.string().optional(),
        checkedAt: z.number().int(),
        error: z.string().optional().openapi({ description: "why the last lookup failed" }),
      }).openapi("UpdateCheck"),
      "the comparison",
    ),
    ...errs(400, 401, 403, 404),
  },
});

const trafficRoute = createRoute({
  method: "get",
  path: "/api/admin/traffic",
  summary: "Inflow (joins) and outflow (admissions) in 15 s buckets; format=csv downloads CSV",
  security: adminSecurity,
  request: {
    query: z.object({
      queue: QueueName.optional(),
      format: z.enum(["json", "csv"]).optional(),
      hours: z.string().regex(/^([1-9]|1\d|2[0-4])$/, "hours must be 1 to 24").optional().openapi({
        description: "window in hours, 1 to 24 (default 24)",
      }),
    }),
  },
  responses: {
    200: {
      description: "every bucket of the window, oldest first, empty ones as zeros",
      content: {
        "application/json": {
          schema: z.object({
            queue: z.string(),
            bucketSeconds: z.number().int(),
            buckets: z.array(z.object({
              at: z.number().int(),
              inflow: z.number().int(),
              outflow: z.number().int(),
            })),
          }).openapi("Traffic"),
        },
        "text/csv": { schema: z.string().openapi({ example: "at,iso,inflow,outflow\n" }) },
      },
    },
    ...errs(400, 401, 403, 404),
  },
});

/** Webhooks, update check and traffic under /api/admin. */
export function integrationRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  const session = adminSession(s);
  for (const p of ["/api/admin/webhooks", "/api/admin/webhooks/test", "/api/admin/updates"]) {
    app.use(p, session);
  }
  app.use("/api/admin/traffic", session);

  app.openapi(getWebhooksRoute, async (c) => {
    return c.json(await readWebhookSettings(s.kv, s.config.TOKEN_SECRET), 200);
  });

  app.openapi(putWebhooksRoute, async (c) => {
    const b = c.req.valid("json");
    // The address this request came in on reaches us too.
    const guard = outboundGuard(s.config);
    const view = await saveWebhookSettings(
      s.kv,
      s.config.TOKEN_SECRET,
      b,
      (url) => guard.assertSavable(url, c.req.url),
    );
    await audit(s, c, "webhooks.save", {
      enabled: view.enabled,
      host: view.url ? new URL(view.url).host : "",
      events: view.events,
      depthThreshold: view.depthThreshold,
      // Not named `secret…`: the audit scrubber drops such fields, and this one says no secret.
      signingKeyChange: b.secret === undefined ? "kept" : b.secret === null ? "cleared" : "set",
    });
    return c.json(view, 200);
  });

  app.openapi(testWebhookRoute, async (c) => {
    const q = await pickQueue(s, c.req.valid("json").queue);
    const { paused } = await s.engine.settings(q);
    const result = await s.webhooks.deliverTest(q, { paused, test: true });
    await audit(s, c, "webhooks.test", {
      queue: q,
      delivered: result.delivered,
      status: result.status,
      // Why it failed, as the answer says it (the host, never the path or the secret).
      error: result.error,
    });
    return c.json(result, 200);
  });

  app.openapi(updatesRoute, async (c) => {
    const { refresh } = c.req.valid("query");
    const info = await checkUpdates(s, { refresh: refresh === "1" || refresh === "true" });
    return c.json(info, 200);
  });

  app.openapi(trafficRoute, async (c) => {
    const query = c.req.valid("query");
    const hours = query.hours === undefined ? 24 : Number(query.hours);
    const q = await pickQueue(s, query.queue);
    await s.engine.settings(q); // 404 unknown_queue
    const rows = await readTraffic(s.kv, q, s.clock.now(), hours * 3600_000);
    if (query.format === "csv") {
      c.header("Content-Type", "text/csv; charset=utf-8");
      c.header("Content-Disposition", `attachment; filename="traffic-${q}.csv"`);
      return c.body(trafficCsv(rows), 200);
    }
    return c.json({ queue: q, bucketSeconds: TRAFFIC_BUCKET_MS / 1000, buckets: rows }, 200);
  });

  return app;
}
