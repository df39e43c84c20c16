import { OpenAPIHono } from "@hono/zod-openapi";
import type { Services } from "../../app.ts";

/** Queue settings, branding, state, metrics, pass and reset under /api/admin. */
export function settingsRoutes(s: Services) {
  return new OpenAPIHono({ defaultHook: s.validationHook });
}
