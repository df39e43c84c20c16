import { OpenAPIHono } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { authRoutes } from "./accounts_auth.ts";
import { passwordRoutes } from "./accounts_password.ts";
import { teamRoutes } from "./team.ts";
import { validationHook } from "../../http/validation.ts";

/** Accounts, sessions, team and invites under /api/admin. */
export function accountRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.route("/", authRoutes(s));
  app.route("/", passwordRoutes(s));
  app.route("/", teamRoutes(s));
  return app;
}
