/**
 * The access checks reverse proxies call on every request to the site they protect:
 * `GET /verify` (204/401), `/verify/auth-request` (nginx) and `/verify/forward-auth` (Caddy,
 * Traefik), as one answer that the Hono routes (routes/forward_auth.ts) and the served `fetch`'s
 * fast path share. The fast path answers before anything else (no Hono, no path-prefix strip): a
 * check costs the site's throughput, so it must cost as little as a signed cookie can.
 *
 * The original request comes from the headers the example config sets: `X-Original-URI`/`-Method`
 * for nginx (its subrequest also carries whatever the client sent, so `X-Forwarded-Uri` is not
 * read there), `X-Forwarded-Uri`/`-Method` for Caddy and Traefik (which overwrite them). The token
 * is found like the origin proxy finds it (a foreign `Authorization` does not hide a valid
 * `tg_access` cookie), with `?accessToken=` (the check's own query, or the original URI's for the
 * two proxy checks) unless `VERIFY_TOKEN_IN_QUERY=0`. With `?queue=`, only that queue's tokens pass
 * and the waiting room URL names that queue; a queue that does not exist is the proxy's
 * configuration error (proxy_check_queue.ts).
 */
import type { Services } from "./services.ts";
import { safeReturnPath } from "../lib/destination.ts";
import { trustedHeader } from "../lib/client_ip.ts";
import type { Config } from "../lib/config.ts";
import { errorBody } from "../lib/errors.ts";
import { assignRequestId } from "../lib/log.ts";
import { readVisitorRequest, splitQuery } from "../lib/origin/request.ts";
import { plainPathsOurs, waitUrlFor } from "./origin.ts";
import { claimedCrawler } from "../lib/crawlers/known.ts";
import { requesterOf } from "../lib/access/join.ts";
import { jsonResponse, SECURITY_HEADERS } from "../http/response.ts";
import { refreshCookie } from "./session_answer.ts";
import type { SessionVerdict } from "../lib/session/keeper.ts";
import { instanceMetrics } from "../lib/metrics/instance.ts";
import { trafficPolicy } from "./traffic_policy.ts";
import { closedJson } from "./origin_room.ts";
import { unknownQueueCheck } from "./proxy_check_queue.ts";

/** Which check: plain `/verify`, nginx's, or Caddy's and Traefik's. */
export type CheckKind = "verify" | "auth-request" | "forward-auth";

/**
 * The original request's URI as the proxy describes it: its path and query without our token.
 * Plain `/verify` reads whichever of the two headers a proxy sent (for the path rules).
 */
function originalUri(req: Request, kind: CheckKind): { path: string; token: string | null } {
  const h = req.headers;
  const raw =
    (kind === "verify"
      ? h.get("x-original-uri") ?? h.get("x-forwarded-uri")
      : h.get(kind === "auth-request" ? "x-original-uri" : "x-forwarded-uri")) ?? "/";
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
 * Both are believed under the trusted-proxy rule of the client's address (with
 * `TRUSTED_PROXIES`, from those peers only): another peer gets the relative path, never a
 * redirect to a host it named.
 */
function onVisitorHost(
  req: Request,
  info: Deno.ServeHandlerInfo | undefined,
  config: Pick<Config, "TRUSTED_PROXIES">,
  path: string,
): string {
  const proto = trustedHeader(req.headers, info, "x-forwarded-proto", config)?.toLowerCase();
  const host = trustedHeader(req.headers, info, "x-forwarded-host", config);
  if ((proto === "http" || proto === "https") && host && HOST.test(host)) {
    return `${proto}://${host}${path}`;
  }
  return path;
}

/** A bodiless answer with our headers (the JSON ones come from `jsonResponse`). */
function bare(status: number): Response {
  const res = new Response(null, { status });
  const h = res.headers;
  for (const [k, v] of SECURITY_HEADERS) h.set(k, v);
  h.set("Cache-Control", "no-store");
  return res;
}

/** The checks over `s`: `answer` is what every path to them returns. */
export function proxyChecks(s: Services) {
  const base = s.config.BASE_PATH ?? "";
  const read = { queryToken: s.config.VERIFY_TOKEN_IN_QUERY };
  const policy = trafficPolicy(s);
  const unknownQueue = unknownQueueCheck(s);

  /** 401 naming the waiting room, worded like the origin proxy's and the nginx example's. */
  const denied = (wait: string) => {
    const res = jsonResponse(
      errorBody("unauthorized", "a valid access token is required; join the waiting room first", {
        waitUrl: wait,
      }),
      401,
    );
    res.headers.set("WWW-Authenticate", 'Bearer realm="tollgate"');
    return res;
  };

  /**
   * The answer to one check of `kind`, with `queue` from its query (already validated) and the
   * connection `info` (the client address of address rules, under the trusted-proxy rule).
   */
  const answer = async (
    kind: CheckKind,
    req: Request,
    queue: string | undefined,
    info?: Deno.ServeHandlerInfo,
  ) => {
    const misconfigured = await unknownQueue(kind, queue);
    if (misconfigured) return misconfigured;
    const now = s.clock.now();
    const orig = originalUri(req, kind);
    // The session check after the signature's: ended sessions are refused, sliding ones renewed.
    let verdict: SessionVerdict | null = null;
    const claims = async (q: string | undefined) => {
      const signed = (await readVisitorRequest(s.signer, req, now, q, read)).claims ??
        (kind !== "verify" && orig.token && read.queryToken
          ? await s.signer.verifyAccessToken(orig.token, now, q)
          : null);
      if (!signed) return null;
      verdict = await s.sessions.check(signed);
      return verdict.ok ? signed : null;
    };
    const qi = orig.path.indexOf("?");
    const d = await policy({
      path: qi < 0 ? orig.path : orig.path.slice(0, qi),
      query: qi < 0 ? "" : orig.path.slice(qi + 1),
      ip: requesterOf(req.headers, info, s.config).ip,
      claims,
      queue,
      where: "verify",
    });
    if (d.kind === "pass" || d.kind === "passthrough") {
      // The answer every admitted request costs: only what a proxy reads (no page headers on a
      // bodiless answer no browser sees), and never cached unless the operator says so.
      const res = new Response(null, { status: 204 });
      res.headers.set("Cache-Control", "no-store");
      if (d.kind === "pass" && d.claims) {
        res.headers.set("X-Tollgate-Visitor", d.claims.sub);
        res.headers.set("X-Tollgate-Queue", d.claims.queue);
        // A re-issued token: the proxy passes this cookie on to the visitor (docs/forward-auth.md).
        refreshCookie(res.headers, req, verdict, s.config.ACCESS_TOKEN_TTL_SECONDS);
      } else {
        // No visitor to name: why it passes (bypass, allowlist, store_unreachable, passthrough).
        // The visitor and queue headers are sent empty, not left out: a site may read them as
        // proof of an admission, and Caddy 2.6's `copy_headers` hands the site its placeholder
        // text (`{http.reverse_proxy.header.X-Tollgate-Visitor}`) for a header the check omits.
        if (d.kind === "passthrough") instanceMetrics.roomAdmissions.inc([d.queue, "passthrough"]);
        res.headers.set("X-Tollgate-Pass", d.kind === "pass" ? d.why : "passthrough");
        res.headers.set("X-Tollgate-Visitor", "");
        res.headers.set("X-Tollgate-Queue", "");
      }
      return res;
    }
    if (kind === "verify") {
      return jsonResponse(errorBody("unauthorized", "no valid access token"), 401);
    }
    // A verified crawler under a `pass` rule reaches the site without a place (its `503` rule is
    // answered by /wait, where the redirect below takes it: nginx turns a 503 here into a 500).
    if (d.kind === "wait" && claimedCrawler(req.headers.get("user-agent"))) {
      const q = queue ?? (await s.engine.defaultQueue()) ?? "default";
      const ip = requesterOf(req.headers, info, s.config).ip;
      if (await s.crawlers.decide(q, ip, req.headers.get("user-agent")) === "pass") {
        const res = new Response(null, { status: 204 });
        res.headers.set("Cache-Control", "no-store");
        return res;
      }
    }
    const wait = waitFor(orig.path, base, d.kind === "closed" || d.named ? d.queue : queue);
    if (d.kind === "closed" && kind === "forward-auth") {
      // Caddy and Traefik hand this answer to the visitor: a page to the closed room's notice,
      // 503 with Retry-After to an API client.
      const method = (req.headers.get("x-forwarded-method") ?? "GET").toUpperCase();
      if (method !== "GET" && method !== "HEAD") return closedJson(d.queue, d.room, wait);
    }
    if (kind === "auth-request") {
      // nginx turns the 401 into the visitor's answer (a 302 to this Location for GET and HEAD).
      const res = denied(wait);
      res.headers.set("Location", wait);
      return res;
    }
    const method = (req.headers.get("x-forwarded-method") ?? "GET").toUpperCase();
    if (method !== "GET" && method !== "HEAD") return denied(wait);
    const res = bare(302);
    res.headers.set("Location", onVisitorHost(req, info, s.config, wait));
    return res;
  };
  return { answer };
}

/** The checks' paths, with or without the path prefix, and the query. */
const CHECK_URL = /^https?:\/\/[^/]+(\/[^?]*)?\/verify(\/auth-request|\/forward-auth)?(?:\?(.*))?$/;

/**
 * The checks' fast path: the answer to a GET of one of them (under `BASE_PATH` or not) with a
 * query it can read, or null for anything else (then the served `fetch` goes on, and Hono answers
 * a check this cannot). Null altogether while `LOG_REQUESTS` is on: the access line is logged in
 * the served `fetch`, so every request goes there.
 */
export function proxyCheckAnswerer(
  s: Services,
): ((req: Request, info?: Deno.ServeHandlerInfo) => Promise<Response> | null) | null {
  if (s.config.LOG_REQUESTS) return null;
  const { answer } = proxyChecks(s);
  const base = s.config.BASE_PATH ?? "";
  const plainOurs = plainPathsOurs(s);
  return (req, info) => {
    // Most requests are not checks: a substring test turns them away before the expression.
    if (req.method !== "GET" || !req.url.includes("/verify")) return null;
    const m = CHECK_URL.exec(req.url);
    if (!m || (m[1] !== undefined && m[1] !== base)) return null;
    // A plain `/verify` under BASE_PATH is the site's while the origin proxy is on.
    if (base && m[1] === undefined && !plainOurs()) return null;
    const queue = queueOf(m[3]);
    if (queue === false) return null; // Hono answers with the 400 envelope
    const kind = m[2] ? m[2].slice(1) as CheckKind : "verify";
    const id = assignRequestId(req);
    return answer(kind, req, queue, info).then((res) => {
      res.headers.set("X-Request-Id", id);
      return res;
    });
  };
}

/** `inner` with the checks answered first (`proxyCheckAnswerer`); everything else goes on. */
export function withProxyChecks<I>(
  s: Services,
  inner: (req: Request, info?: I) => Response | Promise<Response>,
): (req: Request, info?: I) => Response | Promise<Response> {
  const check = proxyCheckAnswerer(s);
  if (!check) return inner;
  return (req, info) => check(req, info as Deno.ServeHandlerInfo | undefined) ?? inner(req, info);
}

/** `?queue=` of a check's query: undefined when absent, false when Hono must answer. */
function queueOf(query: string | undefined): string | undefined | false {
  if (!query) return undefined;
  let queue: string | undefined;
  for (const pair of query.split("&")) {
    if (!pair.startsWith("queue=")) continue;
    if (queue !== undefined) return false;
    try {
      queue = decodeURIComponent(pair.slice(6).replace(/\+/g, " "));
    } catch {
      return false;
    }
  }
  return queue !== undefined && queue.length > 64 ? false : queue;
}
