import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { invalidateChallengeGate } from "../../lib/challenge/gate.ts";
import { finishSetup, recordSetupStep, setupProgress } from "../../lib/challenge/setup.ts";
import { adminSecurity, errors, errs, jsonBody, jsonOk, QueueName } from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { validationHook } from "../../http/validation.ts";

const Missing = z.array(z.string()).openapi({
  description: "the steps `POST /api/admin/setup` still needs, in words",
});

/** `GET /api/admin/setup`: the wizard resumes from it. */
export const SetupProgressView = z.object({
  complete: z.boolean().openapi({ description: "edge link and challenge are live" }),
  live: z.object({
    edge: z.boolean().openapi({ description: "a Cloudflare link, or setup without one, is live" }),
    challenge: z.boolean().openapi({ description: "Turnstile or the built-in challenge is live" }),
    edgeNone: z.boolean().openapi({ description: "setup finished without an edge network" }),
    builtin: z.boolean().openapi({ description: "the built-in challenge guards sign-in" }),
  }),
  edge: z.object({
    none: z.boolean().openapi({ description: '"no edge network" was chosen' }),
    token: z.boolean(),
    zone: z.boolean(),
    fix: z.boolean(),
    ssl: z.boolean(),
    domains: z.array(z.string()).openapi({ description: "attached during setup" }),
    zoneName: z.string().nullable(),
    hostname: z.string().nullable(),
  }).openapi({ description: "the pending edge steps (cleared once live)" }),
  challenge: z.object({
    builtin: z.boolean().openapi({ description: "the built-in challenge was chosen and solved" }),
    provisioned: z.boolean(),
    verified: z.boolean(),
    siteKey: z.string().nullable().openapi({ description: "the pending widget's" }),
    domains: z.array(z.string()),
  }).openapi({ description: "the pending challenge steps (cleared once live)" }),
  steps: z.object({
    queue: z.boolean().openapi({ description: "a queue was created or picked" }),
    branding: z.boolean().openapi({ description: "the branding was saved" }),
    queueName: z.string().nullable().openapi({ description: "the queue picked" }),
  }).openapi({ description: "the wizard's own steps (`POST /api/admin/setup/step`)" }),
  missing: Missing,
}).openapi("SetupProgress");

const progressRoute = createRoute({
  method: "get",
  path: "/api/admin/setup",
  summary: "Setup progress: which wizard steps are done (the wizard resumes from it)",
  security: adminSecurity,
  responses: {
    200: jsonOk(SetupProgressView, "progress; never a secret"),
    ...errs(401, 403),
  },
});

const stepRoute = createRoute({
  method: "post",
  path: "/api/admin/setup/step",
  summary: "Record a wizard step as done (queue picked, branding saved) so a reload resumes",
  description: "Only the wizard's bookkeeping: the queue and branding themselves are saved by " +
    'their own calls. `queue` names the queue picked (with `step: "queue"`).',
  security: adminSecurity,
  request: {
    body: jsonBody(
      z.object({
        step: z.enum(["queue", "branding"]),
        queue: QueueName.optional(),
      }).strict(),
    ),
  },
  responses: {
    200: jsonOk(SetupProgressView, "the progress after the step"),
    ...errs(400, 401, 403),
  },
});

const finishRoute = createRoute({
  method: "post",
  path: "/api/admin/setup",
  summary: "Finish setup: the pending edge link and bot challenge go live together",
  description: "Needs the edge step (every Cloudflare step, or `setup/edge/none`) and the " +
    "challenge step (a verified Turnstile widget, or `setup/challenge/builtin`); otherwise 409 `conflict` with " +
    "`details.missing`. Both records go live in one atomic write (a concurrent change is 409 " +
    "and changes nothing). Calling it again once done answers 200 with `alreadyComplete: true`.",
  security: adminSecurity,
  responses: {
    200: jsonOk(
      z.object({
        complete: z.literal(true),
        alreadyComplete: z.boolean(),
        hostname: z.string().nullable().openapi({ description: "null without an edge network" }),
        siteKey: z.string().nullable().openapi({
          description: "the live widget's public site key; null with the built-in challenge",
        }),
        edge: z.enum(["cloudflare", "none"]),
        challenge: z.enum(["turnstile", "builtin"]),
      }).openapi("SetupComplete"),
      "setup is complete; login, invite accept and recovery now need the challenge",
    ),
    ...errs(401, 403),
    409: {
      description: "a step is missing (`details.missing`) or setup changed (`conflict`)",
      content: errors[409].content,
    },
  },
});

/** Setup progress and the final setup step. */
export function setupRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/setup", adminSession(s));
  app.use("/api/admin/setup/step", adminSession(s));

  app.openapi(progressRoute, async (c) => c.json(await setupProgress(s.kv), 200));

  app.openapi(stepRoute, async (c) => {
    const { step, queue } = c.req.valid("json");
    await recordSetupStep(s.kv, s.clock.now(), step, queue);
    await audit(s, c, "setup.step", { step, ...(queue ? { queue } : {}) });
    return c.json(await setupProgress(s.kv), 200);
  });

  app.openapi(finishRoute, async (c) => {
    const out = await finishSetup(s);
    // This instance's gate closes at once; others re-read within a second (verify reads fresh).
    invalidateChallengeGate(s.challenge);
    if (!out.alreadyComplete) {
      await audit(s, c, "setup.complete", { hostname: out.hostname, siteKey: out.siteKey });
    }
    return c.json(out, 200);
  });
  return app;
}
