/** The per-client limit on new places of each queue, and what it refused in the last hour. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { MAX_JOINS_PER_CLIENT_PER_MINUTE } from "../../lib/access/client_limit.ts";
import { refusalsLastHour } from "../../lib/access/refusals.ts";
import { validationHook } from "../../http/validation.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import { closedObject } from "../closed_object.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { OptQueue, pickQueue } from "./settings.ts";

const PerMinute = z.number().int().min(0).max(MAX_JOINS_PER_CLIENT_PER_MINUTE);

const JoinLimitsView = z.object({
  queue: z.string(),
  joinsPerClientPerMinute: PerMinute.openapi({
    description: "new places one client (an IPv4 address or an IPv6 /64) may take per minute, " +
      "and at once; 0 = no limit. Resuming with a valid ticket never counts.",
  }),
  default: z.boolean().openapi({ description: "true when it follows JOINS_PER_CLIENT_PER_MINUTE" }),
  refusedLastHour: z.record(z.string(), z.number().int()).openapi({
    description: "refused joins in the last hour by cause (`client_limit`, ...)",
  }),
}).openapi("JoinLimits");

const getRoute = createRoute({
  method: "get",
  path: "/api/admin/join-limits",
  summary: "Read a queue's per-client limit on new places and its refusals in the last hour",
  security: adminSecurity,
  request: { query: z.object({ queue: OptQueue }) },
  responses: { 200: jsonOk(JoinLimitsView, "the limit"), ...errs(400, 401, 403, 404) },
});
const putRoute = createRoute({
  method: "put",
  path: "/api/admin/join-limits",
  summary: "Set a queue's per-client limit on new places (null: back to the default)",
  security: adminSecurity,
  request: {
    body: jsonBody(
      closedObject({ queue: OptQueue, joinsPerClientPerMinute: PerMinute.nullable() }),
    ),
  },
  responses: { 200: jsonOk(JoinLimitsView, "the new limit"), ...errs(400, 401, 403, 404) },
});

/** `GET`/`PUT /api/admin/join-limits` behind the admin session. */
export function joinLimitRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/join-limits", adminSession(s));
  const view = async (q: string) => {
    const set = (await s.engine.settings(q)).joinsPerClientPerMinute;
    return {
      queue: q,
      joinsPerClientPerMinute: set ?? s.config.JOINS_PER_CLIENT_PER_MINUTE,
      default: set === null,
      refusedLastHour: await refusalsLastHour(s.kv, s.access.hits, q, s.clock.now()),
    };
  };
  app.openapi(getRoute, async (c) => {
    return c.json(await view(await pickQueue(s, c.req.valid("query").queue)), 200);
  });
  app.openapi(putRoute, async (c) => {
    const b = c.req.valid("json");
    const q = await pickQueue(s, b.queue);
    await s.engine.updateSettings(q, (set) => {
      set.joinsPerClientPerMinute = b.joinsPerClientPerMinute;
    });
    await audit(s, c, "queue.join-limits", {
      queue: q,
      joinsPerClientPerMinute: b.joinsPerClientPerMinute,
    });
    return c.json(await view(q), 200);
  });
  return app;
}
