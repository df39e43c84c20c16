/**
 * Access checks for reverse proxies that protect the origin themselves, beside plain `/verify`
 * (204/401): these two also tell the proxy where an unadmitted visitor goes, with the original
 * URI properly encoded into `/wait?return=`, which no proxy config can do portably.
 *
 * - `GET /verify/auth-request` (nginx `auth_request`): 204, or 401 with `Location` (nginx may
 *   only see 2xx/401/403; its config turns the 401 into a 302 to that Location).
 * - `GET /verify/forward-auth` (Caddy `forward_auth`, Traefik `forwardAuth`): 204, or the
 *   answer the proxy hands to the visitor: 302 to the waiting room on the visitor's host (401
 *   for a non-GET request).
 *
 * The original request comes from `X-Forwarded-Uri`/`-Method` (Caddy, Traefik) or
 * `X-Original-URI`/`-Method` (set by the nginx config). The token is found like the origin
 * proxy finds it (a foreign `Authorization` does not hide a valid `tg_access` cookie), with the
 * original URI's `?accessToken=` as the query (SPEC 5).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Services } from "./services.ts";
import { safeReturnPath } from "../lib/destination.ts";
import { errorBody } from "../lib/errors.ts";
import { readVisitorRequest, splitQuery } from "../lib/origin/request.ts";
import { waitUrlFor } from "./origin.ts";
import { errors } from "./schemas.ts";
import { validationHook } from "../http/validation.ts";

const Query = z.object({
  queue: z.string().max(64).optional().openapi({
    description: "accept only this queue's tokens (default: any queue)",
  }),
});

const check = (path: string, summary: string, denied: Record<number, unknown>) =>
  createRoute({
    method: "get",
    path,
    summary,
    request: { query: Query },
    responses: {
      204: {
        description: "admitted; `X-Tollgate-Visitor` and `X-Tollgate-Queue` name the visitor",
      },
      ...denied,
    },
  });

const authRequestRoute = check(
  "/verify/auth-request",
  "Access check for nginx auth_request: 204, or 401 with Location (the waiting room)",
  { 401: errors[401] },
);
const forwardAuthRoute = check(
  "/verify/forward-auth",
  "Access check for Caddy forward_auth and Traefik forwardAuth: 204, or 302 to the waiting room",
  {
    302: { description: "not admitted (GET/HEAD): to `/wait?return=<original URI>`" },
    401: errors[401],
  },
);

/** The original request's URI as the proxy describes it: its path and query without our token. */
function originalUri(c: Context): { path: string; token: string | null } {
  const raw = c.req.header("x-forwarded-uri") ?? c.req.header("x-original-uri") ?? "/";
  const q = raw.indexOf("?");
  if (q < 0) return { path: raw, token: null };
  // Our token in the original query must not be echoed back into the return path.
  const { rest, token } = splitQuery(raw.slice(q + 1));
  return { path: raw.slice(0, q) + (rest ? `?${rest}` : ""), token };
}

/** The waiting room URL for the original request. */
function waitFor(path: string): string {
  const back = safeReturnPath(path);
  return back ? waitUrlFor(back) : "/wait";
}

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * `path` on the visitor's own scheme and host (X-Forwarded-Proto/-Host, which Caddy and Traefik
 * set on the check from the request they received): Traefik resolves a relative Location
 * against the check's address, which would send the browser to Tollgate's internal address.
 */
function onVisitorHost(c: Context, path: string): string {
  const proto = c.req.header("x-forwarded-proto")?.toLowerCase();
  const host = c.req.header("x-forwarded-host");
  if ((proto === "http" || proto === "https") && host && HOST.test(host)) {
    return `${proto}://${host}${path}`;
  }
  return path;
}

function originalMethod(c: Context): string {
  return (c.req.header("x-forwarded-method") ?? c.req.header("x-original-method") ?? "GET")
    .toUpperCase();
}

const denied = (c: Context, wait: string) =>
  c.json(errorBody("unauthorized", "no valid access token", { waitUrl: wait }), 401);

/** The two proxy access checks. */
export function forwardAuthRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });

  /**
   * True (with the visitor named in headers) when the check carries a valid token: the usual
   * places (bearer, cookie, the check's own query), or `?accessToken=` of the original URI.
   */
  const admitted = async (c: Context, queue: string | undefined, token: string | null) => {
    const now = s.clock.now();
    const claims = (await readVisitorRequest(s.signer, c.req.raw, now, queue)).claims ??
      await s.signer.verifyAccessToken(token, now, queue);
    if (!claims) return false;
    c.header("X-Tollgate-Visitor", claims.sub);
    c.header("X-Tollgate-Queue", claims.queue);
    return true;
  };

  app.openapi(authRequestRoute, async (c) => {
    const orig = originalUri(c);
    if (await admitted(c, c.req.valid("query").queue, orig.token)) return c.body(null, 204);
    const wait = waitFor(orig.path);
    c.header("Location", wait);
    return denied(c, wait);
  });

  app.openapi(forwardAuthRoute, async (c) => {
    const orig = originalUri(c);
    if (await admitted(c, c.req.valid("query").queue, orig.token)) return c.body(null, 204);
    const wait = waitFor(orig.path);
    const m = originalMethod(c);
    if (m === "GET" || m === "HEAD") return c.redirect(onVisitorHost(c, wait), 302);
    return denied(c, wait);
  });

  return app;
}
