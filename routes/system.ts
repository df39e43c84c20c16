import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "./services.ts";
import { VERSION } from "../lib/version.ts";
import { jsonOk } from "./schemas.ts";
import { validationHook } from "../http/validation.ts";

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  summary: "Liveness check",
  responses: {
    200: jsonOk(z.object({ status: z.literal("ok"), version: z.string() }), "service is up"),
  },
});

/** `/health` and `/openapi.json`. */
export function systemRoutes(_s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.openapi(healthRoute, (c) => c.json({ status: "ok" as const, version: VERSION }, 200));
  return app;
}
