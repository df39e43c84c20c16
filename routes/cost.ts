import { OpenAPIHono } from "@hono/zod-openapi";
import type { Services } from "../app.ts";

/** The cost calculator: /cost and GET /api/cost-estimate (placeholder, filled in by its owner). */
export function costRoutes(s: Services) {
  return new OpenAPIHono({ defaultHook: s.validationHook });
}
