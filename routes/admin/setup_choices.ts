import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { validationHook } from "../../http/validation.ts";
import { builtinChallenger } from "../../lib/challenge/builtin.ts";
import {
  chooseBuiltinChallenge,
  chooseNoEdge,
  switchToBuiltin,
} from "../../lib/challenge/choices.ts";
import { invalidateChallengeGate } from "../../lib/challenge/gate.ts";
import { setupProgress } from "../../lib/challenge/setup.ts";
import { bearerOnly } from "../bearer.ts";
import { clientIpOf } from "../../http/hono.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { SetupProgressView } from "./setup.ts";

const Puzzle = z.object({ kind: z.string() }).catchall(z.unknown()).openapi("BuiltinPuzzle", {
  description: "a built-in challenge puzzle; the admin app solves it and sends the solution",
});

const noEdgeRoute = createRoute({
  method: "post",
  path: "/api/admin/setup/edge/none",
  summary: "Setup without an edge network: recorded as the edge step",
  description: "For a service behind its own proxy (nginx, Caddy) or served directly (Deno " +
    "Deploy). Replaces a pending Cloudflare edge setup. No country block works unless the " +
    "proxy sets the country header. Cloudflare can be linked later on the Edge tab.",
  security: adminSecurity,
  responses: { 200: jsonOk(SetupProgressView, "the progress after the step"), ...errs(401, 403) },
});

const puzzleRoute = createRoute({
  method: "get",
  path: "/api/admin/challenge/puzzle",
  summary: "A built-in challenge puzzle for sign-in, invite accept or recovery (public)",
  request: {
    query: z.object({
      purpose: z.enum(["setup", "signin"]).default("signin").openapi({
        description: "`setup` for the wizard's challenge step",
      }),
    }),
  },
  responses: { 200: jsonOk(Puzzle, "a puzzle"), ...errs(400) },
});

const builtinRoute = createRoute({
  method: "post",
  path: "/api/admin/setup/challenge/builtin",
  summary: "Choose the built-in challenge: one solved puzzle records it as the challenge step",
  description: "Replaces a pending Turnstile widget in the setup. A wrong or missing solution " +
    "is 400 `bad_request` and records nothing.",
  security: adminSecurity,
  request: {
    body: jsonBody(
      z.object({
        solution: z.string().max(4096).openapi({
          description: "the JSON text of `{challenge, nonce}`: the challenge of a puzzle from " +
            "`GET /api/admin/challenge/puzzle?purpose=setup` and a nonce solving it (docs/rooms.md)",
        }),
      }).strict(),
    ),
  },
  responses: {
    200: jsonOk(SetupProgressView, "the progress after the step"),
    ...errs(400, 401, 403),
  },
});

const useBuiltinRoute = createRoute({
  method: "post",
  path: "/api/admin/challenge/use-builtin",
  summary: "Switch sign-in to the built-in challenge (Bearer TOKEN_SECRET only)",
  description: "The way back in when Turnstile cannot be reached: sign-in, invite accept and " +
    "recovery then ask for the built-in challenge. The Turnstile widget stays in the Cloudflare " +
    "account; running the setup's challenge step again brings Turnstile back.",
  security: [{ operatorBearer: [] }],
  responses: {
    200: jsonOk(
      z.object({ challenge: z.literal("builtin"), switched: z.boolean() }),
      "`switched` is false when the built-in challenge already was the live one",
    ),
    ...errs(401),
  },
});

/** The setup choices without a third party, the built-in puzzle, and the bearer switch to it. */
export function setupChoiceRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/setup/edge/none", adminSession(s));
  app.use("/api/admin/setup/challenge/builtin", adminSession(s));
  app.use("/api/admin/challenge/use-builtin", bearerOnly(s));

  app.openapi(noEdgeRoute, async (c) => {
    await chooseNoEdge(s.kv, s.clock.now());
    await audit(s, c, "setup.edge_none");
    return c.json(await setupProgress(s.kv), 200);
  });

  app.openapi(puzzleRoute, async (c) => {
    const { purpose } = c.req.valid("query");
    return c.json(await builtinChallenger(s).puzzle(purpose, clientIpOf(c, s.config)), 200);
  });

  app.openapi(builtinRoute, async (c) => {
    await chooseBuiltinChallenge(s, c.req.valid("json").solution, clientIpOf(c, s.config));
    await audit(s, c, "setup.challenge_builtin");
    return c.json(await setupProgress(s.kv), 200);
  });

  app.openapi(useBuiltinRoute, async (c) => {
    const out = await switchToBuiltin(s.kv, s.clock.now());
    invalidateChallengeGate(s.challenge);
    await audit(s, c, "challenge.use_builtin", out);
    return c.json({ challenge: "builtin" as const, ...out }, 200);
  });
  return app;
}
