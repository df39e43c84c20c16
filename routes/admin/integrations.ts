// PLACEHOLDER: replaced by the webhooks/updates/traffic work.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Services } from "../../app.ts";

/** Webhooks, update check and traffic under /api/admin. */
export function integrationRoutes(s: Services) {
  return new OpenAPIHono({ defaultHook: s.validationHook });
}
