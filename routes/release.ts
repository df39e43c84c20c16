/**
 * `POST /release`: the site's server ends a visitor's session (after checkout, say) with the
 * visitor's access token as bearer. For forward auth and any integration where the origin's
 * answers do not pass through Tollgate; behind the origin proxy the site can answer with
 * `Tollgate-Command: release` instead (routes/session_answer.ts). See lib/session/release.ts.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "./services.ts";
import { releaseToken } from "../lib/session/release.ts";
import { errors, jsonOk } from "./schemas.ts";
import { bearerOf } from "./bearer.ts";
import { validationHook } from "../http/validation.ts";

const Released = z.object({
  status: z.literal("released"),
  queue: z.string(),
  visitorId: z.string(),
  freed: z.boolean().openapi({
    description: "true when a slot was freed; false when released before, or the token never " +
      "held a slot (an allowlisted visitor, an admin pass)",
  }),
}).openapi("Released");

const releaseRoute = createRoute({
  method: "post",
  path: "/release",
  summary: "End an admitted visitor's session (access token as bearer); releasing twice is fine",
  description: "Frees the visitor's slot at once (taken up by the next admission tick) and " +
    "refuses its access token from then on: at once on this instance, within a second on every " +
    "other, until the token would have expired anyway. Works for fixed and sliding sessions.",
  request: {
    query: z.object({
      queue: z.string().max(64).optional().openapi({
        description: "accept only this queue's tokens (a token of another queue: 401)",
      }),
    }),
  },
  security: [{ accessToken: [] }],
  responses: {
    200: jsonOk(Released, "the session is over"),
    400: errors[400],
    401: errors[401],
  },
});

/** `POST /release`. */
export function releaseRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.openapi(releaseRoute, async (c) => {
    const out = await releaseToken(s.sessions, bearerOf(c), c.req.valid("query").queue);
    return c.json({ status: "released" as const, ...out }, 200);
  });
  return app;
}
