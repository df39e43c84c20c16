/**
 * How long a queue keeps the place of a waiter that stopped checking in (a phone locked in a
 * pocket, a frozen tab): its own card, so the operator sees the rule beside what it kept.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { validationHook } from "../../http/validation.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import { closedObject } from "../closed_object.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { OptQueue, pickQueue } from "./settings.ts";

/** Bounds of `returnGraceSeconds` (seconds). */
export const RETURN_GRACE_MIN = 30, RETURN_GRACE_MAX = 3600;

const Grace = z.number().int().min(RETURN_GRACE_MIN).max(RETURN_GRACE_MAX);

const ReturnGraceView = z.object({
  queue: z.string(),
  returnGraceSeconds: Grace.openapi({
    description: "how long a waiter that stopped checking in keeps its place after its " +
      "liveness deadline (30 to 3600 s); admissions pass over it meanwhile, and it is dropped " +
      "(abandoned) after it",
  }),
  silent: z.number().int().openapi({ description: "waiters silent now, their places kept" }),
  returned: z.number().int().openapi({ description: "silent waiters that came back (ever)" }),
  abandoned: z.number().int().openapi({ description: "waiters dropped after their grace (ever)" }),
}).openapi("ReturnGrace");

const getRoute = createRoute({
  method: "get",
  path: "/api/admin/return-grace",
  summary: "Read how long a queue keeps a silent waiter's place, and what it kept",
  security: adminSecurity,
  request: { query: z.object({ queue: OptQueue }) },
  responses: { 200: jsonOk(ReturnGraceView, "the grace"), ...errs(400, 401, 403, 404) },
});
const putRoute = createRoute({
  method: "put",
  path: "/api/admin/return-grace",
  summary: "Set how long a queue keeps a silent waiter's place",
  security: adminSecurity,
  request: { body: jsonBody(closedObject({ queue: OptQueue, returnGraceSeconds: Grace })) },
  responses: { 200: jsonOk(ReturnGraceView, "the new grace"), ...errs(400, 401, 403, 404) },
});

/** `GET`/`PUT /api/admin/return-grace` behind the admin session. */
export function returnGraceRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/return-grace", adminSession(s));
  const view = async (q: string) => {
    const m = await s.engine.metrics(q);
    const set = await s.engine.settings(q);
    return {
      queue: q,
      returnGraceSeconds: set.returnGraceSeconds,
      silent: m.silent,
      returned: m.returned,
      abandoned: m.abandoned,
    };
  };
  app.openapi(getRoute, async (c) => {
    return c.json(await view(await pickQueue(s, c.req.valid("query").queue)), 200);
  });
  app.openapi(putRoute, async (c) => {
    const b = c.req.valid("json");
    const q = await pickQueue(s, b.queue);
    await s.engine.updateSettings(q, (set) => void (set.returnGraceSeconds = b.returnGraceSeconds));
    await audit(s, c, "queue.return-grace", { queue: q, returnGraceSeconds: b.returnGraceSeconds });
    return c.json(await view(q), 200);
  });
  return app;
}
