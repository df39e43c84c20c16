import { OpenAPIHono } from "@hono/zod-openapi";
import type { Services } from "../app.ts";

/** The visitor pages: /wait, /demo (issue 4 fills this in). */
export function pageRoutes(s: Services) {
  return new OpenAPIHono({ defaultHook: s.validationHook });
}
