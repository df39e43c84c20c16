import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { Services } from "../services.ts";
import { accessRoutes } from "./access.ts";
import { accountRoutes } from "./accounts.ts";
import { brandingRoutes } from "./branding.ts";
import { edgeRoutes } from "./edge.ts";
import { guardRoutes } from "./guards.ts";
import { crawlerRoutes } from "./crawlers.ts";
import { integrationRoutes } from "./integrations.ts";
import { mailRoutes } from "./mail.ts";
import { joinLimitRoutes } from "./join_limits.ts";
import { returnGraceRoutes } from "./return_grace.ts";
import { originRoutes } from "./origin.ts";
import { queueRoutes } from "./queues.ts";
import { prequeueRoutes } from "./prequeue.ts";
import { pathRuleRoutes } from "./path_rules.ts";
import { roomRoutes } from "./room.ts";
import { priorityRoutes } from "./priority.ts";
import { settingsRoutes } from "./settings.ts";
import { visitorSessionRoutes } from "./visitor_sessions.ts";
import { setupRoutes } from "./setup.ts";
import { setupChallengeRoutes } from "./setup_challenge.ts";
import { setupChoiceRoutes } from "./setup_choices.ts";
import { type AdminEnv, adminSession } from "./session.ts";
import { stateRoutes } from "./state.ts";
import { validationHook } from "../../http/validation.ts";

/**
 * The admin paths that answer without a session, each with its reason. Every other path under
 * `/api/admin` requires a valid admin session before any route runs (a new route is protected
 * unless it is listed here); `tests/admin_routes_walk_test.ts` walks every route of the contract.
 */
export const NO_SESSION_ROUTES: readonly { method: string; path: string; why: string }[] = [
  { method: "GET", path: "/api/admin/bootstrap", why: "what the sign-in page needs to show" },
  { method: "POST", path: "/api/admin/login", why: "signing in (rate-limited, bot-checked)" },
  { method: "POST", path: "/api/admin/invites/accept", why: "accepting an invite (token in body)" },
  { method: "POST", path: "/api/admin/password/recover", why: "recovery phrase (rate-limited)" },
  { method: "POST", path: "/api/admin/claim", why: "bearer-only: TOKEN_SECRET claims the service" },
  { method: "POST", path: "/api/admin/reset", why: "bearer-only: TOKEN_SECRET factory reset" },
  { method: "GET", path: "/api/admin/challenge/puzzle", why: "the built-in check of sign-in" },
  {
    method: "POST",
    path: "/api/admin/challenge/use-builtin",
    why: "bearer-only: TOKEN_SECRET switches sign-in to the built-in check",
  },
];

/** Paths a session whose admin has not accepted the current terms may still use. */
const STALE_TOS_PATHS = new Set(["/api/admin/tos/accept", "/api/admin/logout"]);

/** The session gate of every admin path, with the listed exceptions. */
function defaultSession(s: Services): MiddlewareHandler<AdminEnv> {
  const open = new Set(NO_SESSION_ROUTES.map((r) => `${r.method} ${r.path}`));
  const strict = adminSession(s);
  const stale = adminSession(s, { allowStaleTos: true });
  return (c, next) => {
    const path = c.req.path.replace(/\/+$/, "") || "/";
    if (open.has(`${c.req.method === "HEAD" ? "GET" : c.req.method} ${path}`)) return next();
    return STALE_TOS_PATHS.has(path) ? stale(c, next) : strict(c, next);
  };
}

/** The administrative API: every path under `/api/admin`, behind the session gate by default. */
export function adminRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.use("/api/admin/*", defaultSession(s));
  app.route("/", accountRoutes(s));
  app.route("/", settingsRoutes(s));
  app.route("/", queueRoutes(s));
  app.route("/", prequeueRoutes(s));
  app.route("/", guardRoutes(s));
  app.route("/", crawlerRoutes(s));
  app.route("/", joinLimitRoutes(s));
  app.route("/", returnGraceRoutes(s));
  app.route("/", visitorSessionRoutes(s));
  app.route("/", roomRoutes(s));
  app.route("/", pathRuleRoutes(s));
  app.route("/", priorityRoutes(s));
  app.route("/", stateRoutes(s));
  app.route("/", brandingRoutes(s));
  app.route("/", integrationRoutes(s));
  app.route("/", mailRoutes(s));
  app.route("/", edgeRoutes(s));
  app.route("/", accessRoutes(s));
  app.route("/", originRoutes(s));
  app.route("/", setupChallengeRoutes(s));
  app.route("/", setupChoiceRoutes(s));
  app.route("/", setupRoutes(s));
  return app;
}
