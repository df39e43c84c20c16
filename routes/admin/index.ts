import { OpenAPIHono } from "@hono/zod-openapi";
import type { Services } from "../../app.ts";
import { accessRoutes } from "./access.ts";
import { accountRoutes } from "./accounts.ts";
import { brandingRoutes } from "./branding.ts";
import { edgeRoutes } from "./edge.ts";
import { integrationRoutes } from "./integrations.ts";
import { originRoutes } from "./origin.ts";
import { queueRoutes } from "./queues.ts";
import { settingsRoutes } from "./settings.ts";
import { setupRoutes } from "./setup.ts";
import { setupChallengeRoutes } from "./setup_challenge.ts";
import { setupChoiceRoutes } from "./setup_choices.ts";
import { stateRoutes } from "./state.ts";

/** The administrative API of SPEC 4.3 (edge, challenge and origin parts come in their issues). */
export function adminRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: s.validationHook });
  app.route("/", accountRoutes(s));
  app.route("/", settingsRoutes(s));
  app.route("/", queueRoutes(s));
  app.route("/", stateRoutes(s));
  app.route("/", brandingRoutes(s));
  app.route("/", integrationRoutes(s));
  app.route("/", edgeRoutes(s));
  app.route("/", accessRoutes(s));
  app.route("/", originRoutes(s));
  app.route("/", setupChallengeRoutes(s));
  app.route("/", setupChoiceRoutes(s));
  app.route("/", setupRoutes(s));
  return app;
}
