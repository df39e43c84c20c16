import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { MAX_RESPONSE_LENGTH } from "../../lib/challenge/turnstile.ts";
import {
  HOSTNAME_RE,
  MAX_WIDGET_DOMAINS,
  provisionChallenge,
  verifyPendingChallenge,
} from "../../lib/challenge/provision.ts";
import { clientIpOf } from "../../http/hono.ts";
import { edgeStep } from "../../lib/edge/failure.ts";
import { adminSecurity, errors, errs, jsonBody, jsonOk } from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { edgeErrors } from "./setup_edge.ts";
import { validationHook } from "../../http/validation.ts";

const Hostname = z.string().trim().toLowerCase().regex(HOSTNAME_RE, {
  message: "must be a hostname such as www.example.com",
}).openapi({ example: "www.example.com" });

/** The answers of a step that calls Cloudflare, as the edge steps document them. */
const providerErrs = {
  400: edgeErrors[400],
  409: {
    description: "an earlier setup step is missing, a secret is unreadable or refused, or the " +
      "pending setup changed (`conflict`)",
    content: errors[409].content,
  },
  429: edgeErrors[429],
  502: edgeErrors[502],
  504: edgeErrors[504],
};

const provisionRoute = createRoute({
  method: "post",
  path: "/api/admin/setup/challenge/provision",
  summary: "Create the bot-challenge widget for the edge hostname; its secret is kept sealed",
  description: "Needs the pending edge token, zone and account (edge steps). The widget lists " +
    "the edge hostname, attached domains, PUBLIC_URL's host and `domains`. Repeatable: a " +
    "matching pending widget is kept (`reused`); `renew: true` or other hostnames make a new " +
    "one and delete the old. A token or permission Cloudflare refuses is 400 `edge_error`.",
  security: adminSecurity,
  request: {
    body: jsonBody(z.object({
      domains: z.array(Hostname).max(MAX_WIDGET_DOMAINS - 1).optional().openapi({
        description: "extra hostnames the sign-in page is served on",
      }),
      renew: z.boolean().optional().openapi({ description: "always create a new widget" }),
    })),
  },
  responses: {
    200: jsonOk(
      z.object({
        siteKey: z.string(),
        hostname: z.string(),
        domains: z.array(z.string()),
        reused: z.boolean(),
        warning: z.string().optional(),
      }).openapi("ChallengeProvisioned"),
      "the pending widget's public site key (never the secret)",
    ),
    ...errs(401, 403),
    ...providerErrs,
  },
});

const verifyRoute = createRoute({
  method: "post",
  path: "/api/admin/setup/challenge/verify",
  summary: "Verify one real challenge solved with the pending widget",
  description: "siteverify with the pending secret, the caller's IP and the widget's hostnames; " +
    "a refused, reused or expired response, or one solved on another hostname, is 400.",
  security: adminSecurity,
  request: {
    body: jsonBody(z.object({
      response: z.string().min(1).max(MAX_RESPONSE_LENGTH).openapi({
        description: "the Turnstile widget's response token",
      }),
    })),
  },
  responses: {
    200: jsonOk(
      z.object({
        verified: z.literal(true),
        siteKey: z.string(),
        hostname: z.string(),
        verifiedAt: z.number().int().openapi({ description: "unix ms" }),
      }).openapi("ChallengeVerified"),
      "verified",
    ),
    ...errs(401, 403),
    ...providerErrs,
  },
});

/** The bot-challenge steps of the setup wizard. */
export function setupChallengeRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/setup/challenge/*", adminSession(s));
  // Provider failures are `edge_error`s, as in the edge steps (Retry-After passed through).

  app.openapi(provisionRoute, async (c) => {
    const out = await edgeStep(
      "create the Turnstile widget",
      () => provisionChallenge(s, c.req.valid("json")),
    );
    await audit(s, c, "setup.challenge.provision", {
      siteKey: out.siteKey,
      domains: out.domains,
      reused: out.reused,
    });
    return c.json(out, 200);
  });

  app.openapi(verifyRoute, async (c) => {
    const { response } = c.req.valid("json");
    const out = await edgeStep(
      "check the challenge with Turnstile",
      () => verifyPendingChallenge(s, response, clientIpOf(c, s.config)),
    );
    await audit(s, c, "setup.challenge.verify", { siteKey: out.siteKey, hostname: out.hostname });
    return c.json({ verified: true as const, ...out }, 200);
  });
  return app;
}
