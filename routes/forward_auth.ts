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
 * The original request comes from the headers the example config sets: `X-Original-URI`/`-Method`
 * for nginx (its subrequest also carries whatever the client sent, so `X-Forwarded-Uri` is not
 * read there), `X-Forwarded-Uri`/`-Method` for Caddy and Traefik (which overwrite them). The token
 * is found like the origin proxy finds it (a foreign `Authorization` does not hide a valid
 * `tg_access` cookie), with the original URI's `?accessToken=` as the query (SPEC 5) unless
 * `VERIFY_QUERY_TOKEN=0`. With `?queue=`, only that queue's tokens pass and the waiting room
 * URL names that queue.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Services } from "../app.ts";
import { safeReturnPath } from "../lib/destination.ts";
import { errorBody } from "../lib/errors.ts";
import { readVisitorRequest, splitQuery } from "../lib/origin/request.ts";
import { waitUrlFor } from "./origin.ts";
import { errors } from "./schemas.ts";

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

/** Which headers describe the original request: the ones each example config sets. */
type Dialect = "x-original" | "x-forwarded";

/** The original request's URI as the proxy describes it: its path and query without our token. */
function originalUri(c: Context, from: Dialect): { path: string; token: string | null } {
  const raw = c.req.header(from === "x-original" ? "x-original-uri" : "x-forwarded-uri") ?? "/";
  const q = raw.indexOf("?");
  if (q < 0) return { path: raw, token: null };
  // Our token in the original query must not be echoed back into the return path.
  const { rest, token } = splitQuery(raw.slice(q + 1));
  return { path: raw.slice(0, q) + (rest ? `?${rest}` : ""), token };
}

/** The waiting room URL (under `base`) for the original request, naming `queue` when given. */
function waitFor(path: string, base: string, queue: string | undefined): string {
  const back = safeReturnPath(path);
  if (!queue) return back ? waitUrlFor(back, base) : `${base}/wait`;
  const q = `${base}/wait?queue=${encodeURIComponent(queue)}`;
  return back ? `${q}&return=${encodeURIComponent(back)}` : q;
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

function originalMethod(c: Context, from: Dialect): string {
  return (c.req.header(from === "x-original" ? "x-original-method" : "x-forwarded-method") ??
    "GET").toUpperCase();
}

/** 401 naming the waiting room, worded like the origin proxy's and the nginx example's. */
const denied = (c: Context, wait: string) => {
  c.header("WWW-Authenticate", 'Bearer realm="tollgate"');
  return c.json(
    errorBody("unauthorized", "a valid access token is required; join the waiting room first", {
      waitUrl: wait,
    }),
    401,
  );
};

/** The two proxy access checks. */
export function forwardAuthRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: s.validationHook });

  const base = s.config.BASE_PATH ?? "";
  const read = { queryToken: s.config.VERIFY_QUERY_TOKEN };

  /**
   * True (with the visitor named in headers) when the check carries a valid token: the usual
   * places (bearer, cookie, the check's own query), or `?accessToken=` of the original URI.
   */
  const admitted = async (c: Context, queue: string | undefined, token: string | null) => {
    const now = s.clock.now();
    const claims = (await readVisitorRequest(s.signer, c.req.raw, now, queue, read)).claims ??
      (read.queryToken ? await s.signer.verifyAccessToken(token, now, queue) : null);
    if (!claims) return false;
    c.header("X-Tollgate-Visitor", claims.sub);
    c.header("X-Tollgate-Queue", claims.queue);
    return true;
  };

  app.openapi(authRequestRoute, async (c) => {
    const { queue } = c.req.valid("query");
    const orig = originalUri(c, "x-original");
    if (await admitted(c, queue, orig.token)) return c.body(null, 204);
    // nginx turns the 401 into the visitor's answer (a 302 to this Location for GET and HEAD).
    const wait = waitFor(orig.path, base, queue);
    c.header("Location", wait);
    return denied(c, wait);
  });

  app.openapi(forwardAuthRoute, async (c) => {
    const { queue } = c.req.valid("query");
    const orig = originalUri(c, "x-forwarded");
    if (await admitted(c, queue, orig.token)) return c.body(null, 204);
    const wait = waitFor(orig.path, base, queue);
    const m = originalMethod(c, "x-forwarded");
    if (m === "GET" || m === "HEAD") return c.redirect(onVisitorHost(c, wait), 302);
    return denied(c, wait);
  });

  return app;
}
