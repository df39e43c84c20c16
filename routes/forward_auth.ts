/**
 * The access checks for reverse proxies as documented routes: plain `/verify` (204/401) and the
 * two that also tell the proxy where an unadmitted visitor goes, with the original URI properly
 * encoded into `/wait?return=`, which no proxy config can do portably.
 *
 * - `GET /verify/auth-request` (nginx `auth_request`): 204, or 401 with `Location` (nginx may
 *   only see 2xx/401/403; its config turns the 401 into a 302 to that Location for GET and HEAD).
 * - `GET /verify/forward-auth` (Caddy `forward_auth`, Traefik `forwardAuth`): 204, or the
 *   answer the proxy hands to the visitor: 302 to the waiting room on the visitor's host (401
 *   for a non-GET request).
 *
 * What they answer is routes/proxy_check.ts's, shared with the served `fetch`'s fast path.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "./services.ts";
import { proxyChecks } from "./proxy_check.ts";
import { errors } from "./schemas.ts";
import { validationHook } from "../http/validation.ts";

const Query = z.object({
  queue: z.string().max(64).optional().openapi({
    description: "accept only this queue's tokens (default: any queue; the default queue's " +
      "own outside the paths its rules route to another queue)",
  }),
});

/** A proxy check naming a queue that does not exist: the proxy's configuration is wrong. */
const unknownQueue = {
  description: "`?queue=` names no queue (`unknown_queue`; mistyped in the proxy's " +
    "configuration, or the queue was deleted): logged once a minute per name (8 names a minute at " +
    "most); nginx answers the visitor 500, Caddy and Traefik hand this answer on",
  content: errors[400].content,
};

/** A check's own query refused: the proxy's configuration, not the visitor, is wrong. */
const badQuery = {
  description: "`?queue=` given twice or longer than 64 characters (`bad_request`): the proxy's " +
    "configuration needs fixing (nginx answers the visitor 500 for it)",
  content: errors[400].content,
};

const check = (
  path: string,
  summary: string,
  denied: Record<number, unknown>,
  admitted = "admitted; `X-Tollgate-Visitor` and `X-Tollgate-Queue` name the visitor (without " +
    "a visitor, `X-Tollgate-Pass` says why it passes: bypass, passthrough, store_unreachable)",
) =>
  createRoute({
    method: "get",
    path,
    summary,
    request: { query: Query },
    responses: { 204: { description: admitted }, 400: badQuery, ...denied },
  });

const verifyRoute = check(
  "/verify",
  "Access check for reverse proxies (nginx auth_request, Caddy forward_auth, Traefik)",
  {
    401: {
      description: "no valid access token (`unauthorized`); with `?queue=` naming no queue, " +
        "`details.reason` is `unknown_queue` (and the log says so once a minute)",
      content: errors[401].content,
    },
  },
  "a valid access token is present (header, cookie, or query unless VERIFY_TOKEN_IN_QUERY=0), " +
    "or the path rules, the room switch or STORE_FAILURE=open let the request pass " +
    "(`X-Tollgate-Pass` says why: bypass, passthrough, store_unreachable)",
);

const authRequestRoute = check(
  "/verify/auth-request",
  "Access check for nginx auth_request: 204, or 401 with Location (the waiting room)",
  { 401: errors[401], 404: unknownQueue },
);
const forwardAuthRoute = check(
  "/verify/forward-auth",
  "Access check for Caddy forward_auth and Traefik forwardAuth: 204, or 302 to the waiting room",
  {
    302: { description: "not admitted (GET/HEAD): to `/wait?return=<original URI>`" },
    401: errors[401],
    404: unknownQueue,
    503: {
      description: "the room is closed (`room_closed`, with `Retry-After`), for a request " +
        "other than GET and HEAD",
      content: errors[503].content,
    },
  },
);

/** The three access checks as documented routes (the served `fetch` answers them first). */
export function forwardAuthRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  const { answer } = proxyChecks(s);
  app.openapi(
    verifyRoute,
    (c) => answer("verify", c.req.raw, c.req.valid("query").queue, infoOf(c.env)),
  );
  app.openapi(
    authRequestRoute,
    (c) => answer("auth-request", c.req.raw, c.req.valid("query").queue, infoOf(c.env)),
  );
  app.openapi(
    forwardAuthRoute,
    (c) => answer("forward-auth", c.req.raw, c.req.valid("query").queue, infoOf(c.env)),
  );
  return app;
}

/** The connection info Hono carries as `c.env` (absent under `app.request()`). */
function infoOf(env: unknown): Deno.ServeHandlerInfo | undefined {
  return env && typeof env === "object" && "remoteAddr" in env
    ? env as Deno.ServeHandlerInfo
    : undefined;
}
