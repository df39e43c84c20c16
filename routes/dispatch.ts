/**
 * The one dispatch place of the served handler (what `Deno.serve` runs): the proxies' access
 * checks first, then `/status` and `/join` on their fast paths, the origin's paths through the
 * proxy, everything else through Hono; a body read deadline around it all.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { stripBasePath } from "../lib/base_path.ts";
import { bodyDeadline, mayHaveBody } from "../lib/http/body_deadline.ts";
import { assignRequestId, log } from "../lib/log.ts";
import { observeRequest, pathOf } from "../lib/metrics/http.ts";
import { fastJoin, JOIN_URL } from "./join_fast.ts";
import { markGated, type OriginGate, plainPathsOurs } from "./origin.ts";
import { proxyCheckAnswerer } from "./proxy_check.ts";
import type { Services } from "./services.ts";
import { fastStatus } from "./status_fast.ts";
import { errorBody } from "../lib/errors.ts";
import { jsonResponse } from "../http/response.ts";
import { notePublicUrl } from "../http/cookies.ts";
import { redactServerSpan } from "../lib/metrics/tracing.ts";

/** Marks the origin's answers (a symbol property: a WeakSet entry per response made garbage). */
const FROM_ORIGIN = Symbol("tollgate.fromOrigin");
type FromOrigin = Response & { [FROM_ORIGIN]?: true };

const STATUS_PATH = /^https?:\/\/[^/]+\/status\?/;

/**
 * 405 for `TRACE` and `TRACK`, before anything else: `Deno.serve` hands them over, but no
 * `Request` can be made with them, so every step that rebuilds one (the body deadline, BASE_PATH,
 * the origin proxy) threw, and a sweep got 500 with an error line per request, or a false "origin
 * unavailable". The service has no use for them, and a site behind it should not echo requests.
 */
function untraceable(req: Request): Response | null {
  const m = req.method;
  if (m !== "TRACE" && m !== "TRACK") return null;
  const res = jsonResponse(errorBody("method_not_allowed", `${m} is not served`), 405);
  res.headers.set("Allow", "GET, HEAD, POST, PUT, DELETE, OPTIONS");
  return res;
}

/** The served handler over `app` and the origin gate. */
export function servedFetch(
  services: Services,
  app: OpenAPIHono,
  origin: OriginGate,
): (req: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response> {
  const basePath = services.config.BASE_PATH;
  const publicUrl = services.config.PUBLIC_URL;
  const plainOurs = plainPathsOurs(services);
  /**
   * What `Deno.serve` runs: `/status` and `/join` on fast paths, the origin's paths through the
   * proxy, everything else through Hono. Every answer carries the request's id (`X-Request-Id`),
   * and with `LOG_REQUESTS` on, one access line is logged per request.
   */
  const fetch = (req: Request, info?: Deno.ServeHandlerInfo): Response | Promise<Response> => {
    // Under BASE_PATH, Tollgate's own paths are answered as if there were no prefix; the same
    // paths outside it are the site's while the origin proxy is on (`plainPathsOurs`).
    let ours = true;
    if (basePath) {
      const inner = stripBasePath(basePath, req);
      ours = inner !== req || plainOurs();
      req = inner;
    }
    notePublicUrl(req, publicUrl); // cookies' Secure (http/cookies.ts): this request as handed on
    const started = performance.now();
    const id = assignRequestId(req);
    // Most status polls are answered from memory, without a promise; a query the fast path does
    // not validate goes to Hono for its envelope. The URL is read once and handed on.
    const url = ours && req.method === "GET" ? req.url : "";
    const status = STATUS_PATH.test(url);
    const answer = status
      ? fastStatus(services, req, url) ?? app.fetch(req, info)
      : route(req, info, ours);
    const path = status ? "/status" : undefined;
    return answer instanceof Response
      ? finish(req, answer, id, started, path)
      : answer.then((res) => finish(req, res, id, started, path));
  };
  /**
   * Gives an answer its request id, counts it and, with `LOG_REQUESTS`, logs its access line;
   * `path` when known already (a status).
   */
  const finish = (
    req: Request,
    res: Response,
    id: string,
    started: number,
    known?: string,
  ): Response => {
    // The origin's answers pass untouched (their headers are often immutable); ours get the id.
    const proxied = (res as FromOrigin)[FROM_ORIGIN] === true;
    if (!proxied) res.headers.set("X-Request-Id", id);
    // Per-instance request metrics (route label, status, duration) and the span's route name.
    observeRequest(req, res.status, performance.now() - started, proxied, known);
    if (services.config.LOG_REQUESTS) {
      const path = known ?? pathOf(req.url);
      log("info", "request", {
        requestId: id,
        method: req.method,
        path, // never the query: it may carry an access token
        status: res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
    }
    return res;
  };
  const route = async (
    req: Request,
    info: Deno.ServeHandlerInfo | undefined,
    ours: boolean,
  ): Promise<Response> => {
    if (ours && req.method === "POST" && JOIN_URL.test(req.url)) {
      // What the fast path declines comes back (with its body, if read) for Hono to answer.
      const out = await fastJoin(services, req, info);
      if (out instanceof Response) return out;
      assignRequestId(out, req); // the replayed request keeps the id
      req = out;
    } else {
      // Not ours (or proxy off: null): the origin's, answered without Hono. A plain path that
      // names one of ours outside BASE_PATH is the site's too while the proxy is on.
      const proxied = await origin(req, info, !ours);
      if (proxied) {
        (proxied as FromOrigin)[FROM_ORIGIN] = true;
        return proxied;
      }
      markGated(req);
    }
    // The connection info becomes `c.env`, where `clientIp()` finds the socket address.
    return await app.fetch(req, info);
  };
  const check = proxyCheckAnswerer(services);
  const deadline = bodyDeadline({
    ms: services.config.BODY_TIMEOUT_MS,
    basePath,
    plainPathsOurs: plainOurs,
  });
  // One function, not a wrapper per concern: the span's query redacted, TRACE and TRACK refused
  // (see `untraceable`),
  // the proxies' access checks (one per request to a site behind nginx, Caddy or Traefik), then
  // slow bodies (for our own paths) get 408 after BODY_TIMEOUT_MS (body_deadline.ts).
  return (req, info) => {
    redactServerSpan(req); // no credential from a query string in the telemetry backend
    notePublicUrl(req, publicUrl); // the proxies' checks refresh cookies too
    return untraceable(req) ??
      check?.(req, info) ??
      (mayHaveBody(req) ? deadline(req, info, fetch) : fetch(req, info));
  };
}
