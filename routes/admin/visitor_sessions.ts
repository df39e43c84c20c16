/**
 * A queue's visitor session settings (lib/session/settings.ts): `fixed` (the default, the token's
 * lifetime) or `sliding` (idle time after the last request, optional hard cap), with the session
 * figures beside them. Their own path, so the queue settings record and its routes stay as they are.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { validationHook } from "../../http/validation.ts";
import {
  IDLE_MAX_SECONDS,
  IDLE_MIN_SECONDS,
  MAX_MAX_SECONDS,
  MAX_MIN_SECONDS,
  readSessionSettings,
  renewalIntervalMs,
  SESSION_MODES,
  writeSessionSettings,
} from "../../lib/session/settings.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import { closedObject } from "../closed_object.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { OptQueue, pickQueue } from "./settings.ts";

const Idle = z.number().int().min(IDLE_MIN_SECONDS).max(IDLE_MAX_SECONDS);
const Max = z.number().int().min(MAX_MIN_SECONDS).max(MAX_MAX_SECONDS);

const SessionsView = z.object({
  queue: z.string(),
  sessionMode: z.enum(SESSION_MODES).openapi({
    description: "`fixed`: the slot is held until the access token expires or the visitor " +
      "leaves; `sliding`: until sessionIdleSeconds after the visitor's last request",
  }),
  sessionIdleSeconds: Idle.openapi({ description: "sliding: idle time that ends a session" }),
  sessionMaxSeconds: Max.nullable().openapi({
    description: "sliding: hard cap after admission; null = none",
  }),
  renewalIntervalSeconds: z.number().openapi({
    description: "sliding: a session is written at most once per this interval per visitor",
  }),
}).openapi("QueueSessions");

const getRoute = createRoute({
  method: "get",
  path: "/api/admin/sessions",
  summary: "Read a queue's visitor session settings (fixed or sliding)",
  security: adminSecurity,
  request: { query: z.object({ queue: OptQueue }) },
  responses: { 200: jsonOk(SessionsView, "the settings"), ...errs(400, 401, 403, 404) },
});
const putRoute = createRoute({
  method: "put",
  path: "/api/admin/sessions",
  summary: "Set a queue's visitor session settings (fields left out keep their value)",
  security: adminSecurity,
  request: {
    body: jsonBody(closedObject({
      queue: OptQueue,
      sessionMode: z.enum(SESSION_MODES).optional(),
      sessionIdleSeconds: Idle.optional(),
      sessionMaxSeconds: Max.nullable().optional(),
    })),
  },
  responses: { 200: jsonOk(SessionsView, "the new settings"), ...errs(400, 401, 403, 404) },
});

/** `GET`/`PUT /api/admin/sessions` behind the admin session. */
export function visitorSessionRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/sessions", adminSession(s));
  const view = async (q: string) => {
    const v = await readSessionSettings(s.kv, q);
    return {
      queue: q,
      ...v,
      renewalIntervalSeconds:
        renewalIntervalMs(v.sessionIdleSeconds, s.config.ACCESS_TOKEN_TTL_SECONDS) / 1000,
    };
  };
  app.openapi(getRoute, async (c) => {
    const q = await pickQueue(s, c.req.valid("query").queue);
    await s.engine.settings(q); // 404 unknown_queue
    return c.json(await view(q), 200);
  });
  app.openapi(putRoute, async (c) => {
    const { queue, ...change } = c.req.valid("json");
    const q = await pickQueue(s, queue);
    await s.engine.settings(q);
    const next = { ...await readSessionSettings(s.kv, q) };
    if (change.sessionMode !== undefined) next.sessionMode = change.sessionMode;
    if (change.sessionIdleSeconds !== undefined) {
      next.sessionIdleSeconds = change.sessionIdleSeconds;
    }
    if (change.sessionMaxSeconds !== undefined) next.sessionMaxSeconds = change.sessionMaxSeconds;
    await writeSessionSettings(s.kv, q, next);
    s.sessions.invalidate(q);
    await audit(s, c, "queue.sessions", { queue: q, ...next });
    return c.json(await view(q), 200);
  });
  return app;
}
