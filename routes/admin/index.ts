import { OpenAPIHono } from "@hono/zod-openapi";
import type { Services } from "../../app.ts";
import { accountRoutes } from "./accounts.ts";
import { integrationRoutes } from "./integrations.ts";
import { settingsRoutes } from "./settings.ts";
import { stateRoutes } from "./state.ts";

/** The administrative API of SPEC 4.3 (edge, challenge and origin parts come in their issues). */
export function adminRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: s.validationHook });
  app.route("/", accountRoutes(s));
  app.route("/", settingsRoutes(s));
  app.route("/", stateRoutes(s));
  app.route("/", integrationRoutes(s));
  return app;
}
