// PLACEHOLDER: replaced by the accounts work.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Services } from "../../app.ts";

/** Accounts, sessions, team and invites under /api/admin. */
export function accountRoutes(s: Services) {
  return new OpenAPIHono({ defaultHook: s.validationHook });
}
