/**
 * The origin proxy gate: every path that is not Tollgate's own (lib/origin/own_paths.ts) goes to
 * the origin for a visitor with a valid access token; anyone else is sent to the waiting room.
 * It runs before Hono in `createApp().fetch` (and as the first Hono middleware, so
 * `app.request()` behaves the same), so the body limit and our page headers never touch
 * proxied traffic.
 */
import type { MiddlewareHandler } from "hono";
import type { Services } from "./services.ts";
import { errorBody } from "../lib/errors.ts";
import { forward, isLoop, ORIGIN_TIMEOUT_MS, OriginUnavailable } from "../lib/origin/forward.ts";
import { requesterOf } from "../lib/access/join.ts";
import { peerAddress, peerTrusted } from "../lib/client_ip.ts";
import { isOwnPath } from "../lib/origin/own_paths.ts";
import { CRAWLER_RETRY_AFTER } from "../lib/crawlers/settings.ts";
import { claimedCrawler } from "../lib/crawlers/known.ts";
import { CATALOGUES } from "../lib/i18n/catalogues.ts";
import { dirOf } from "../lib/i18n/langs.ts";
import { LANG_COOKIE, pickLang } from "../lib/i18n/negotiate.ts";
import { clearedCookie, cookieValue, endedCookie, isSecureRequest } from "../http/cookies.ts";
import { outboundGuard } from "../lib/outbound/guard.ts";
import type { EffectiveOrigin } from "../lib/origin/settings.ts";
import { pathOf, readVisitorRequest } from "../lib/origin/request.ts";
import { contentSecurityPolicy } from "./pages/html.tsx";
import { afterOrigin } from "./session_answer.ts";
import { trafficPolicy } from "./traffic_policy.ts";
import { log } from "../lib/log.ts";
import { closedAnswer, passthroughCookie, withCookie } from "./origin_room.ts";
import { jsonResponse, SECURITY_HEADERS } from "../http/response.ts";

/**
 * The origin gate: the origin's answer (or the waiting room's redirect) for a request that is not
 * Tollgate's, null for one of Tollgate's own (or with the proxy off). `theirs` marks a request the
 * site keeps although its path names one of Tollgate's: outside `BASE_PATH`, the site's own
 * `/status` or `/static/…`.
 */
export type OriginGate = (
  req: Request,
  info?: Deno.ServeHandlerInfo,
  theirs?: boolean,
) => Promise<Response | null>;

/** Options of the gate (tests shorten the timeout). */
export interface OriginGateOptions {
  /** How long the origin may take to send response headers (default 30 s). */
  timeoutMs?: number;
}

/** At most one "origin unreachable" log line per this many ms: a down origin under load is loud. */
const LOG_EVERY_MS = 10_000;

/** The gate over `s` (origin setting, signer, clock, fetch). */
export function originGate(s: Services, opts: OriginGateOptions = {}): OriginGate {
  const options = {
    // Looked up at call time, so a client swapped into the services applies.
    fetch: ((input, init) => s.fetch(input, init)) as typeof fetch,
    timeoutMs: opts.timeoutMs ?? ORIGIN_TIMEOUT_MS,
    trustForwarded: Boolean(s.config.CLIENT_IP_HEADER),
  };
  const policy = trafficPolicy(s);
  let lastLog = 0;
  const down = (req: Request, reason: string, detail: string) => {
    const now = s.clock.now();
    if (now - lastLog >= LOG_EVERY_MS || now < lastLog) {
      lastLog = now;
      log("warn", "origin unavailable", { reason, error: detail });
    }
    return badGateway(req, reason);
  };

  return async (req, info, theirs = false) => {
    const full = pathOf(req.url);
    const q = full.indexOf("?");
    if (!theirs && isOwnPath(q < 0 ? full : full.slice(0, q))) return null;
    let eff: EffectiveOrigin;
    try {
      eff = s.origin.fresh() ?? await (s.config.STORE_FAILURE === "open"
        // A store that hangs must not hang the proxy: the origin last known stands.
        ? s.storeFailure.bounded(s.origin.effective()).catch((e) =>
          s.origin.lastKnown() ?? Promise.reject(e)
        )
        : s.origin.effective());
    } catch (e) {
      // A plain path of ours under BASE_PATH: Tollgate answers it, as with the proxy off.
      if (theirs) return null;
      return down(req, "settings", String(e));
    }
    const base = eff.base;
    if (!base) return null;
    // An admin's origin is an outbound target like a webhook (ORIGIN_URL is the operator's own):
    // its name is checked again, as it may resolve elsewhere than when it was saved.
    if (eff.source === "admin") {
      const refused = await outboundGuard(s.config).checkSend(base);
      if (refused) return down(req, "refused_target", refused.detail);
    }
    // Checked before the token: the pass that comes back to us carries none (we strip it).
    const loop = "the origin sent the request back to this proxy"; // i18n-ok: a log line
    if (isLoop(req)) return down(req, "loop", loop);
    const vr = await readVisitorRequest(s.signer, req, s.clock.now());
    // The session check after the signature's: ended sessions are refused, sliding ones renewed.
    const verdict = vr.claims ? await s.sessions.check(vr.claims) : null;
    const own = verdict?.ok ? vr.claims : null;
    const qi = vr.pathAndQuery.indexOf("?");
    const decision = await policy({
      path: qi < 0 ? vr.pathAndQuery : vr.pathAndQuery.slice(0, qi),
      query: qi < 0 ? "" : vr.pathAndQuery.slice(qi + 1),
      ip: requesterOf(req.headers, info, s.config).ip,
      claims: async (queue) =>
        queue === undefined
          ? own
          : (await readVisitorRequest(s.signer, req, s.clock.now(), queue)).claims,
      // An allowlisted address is admitted at once and takes no slot, so it needs no
      // token here either: no detour through the waiting room.
      allowlisted: () => allowlisted(s, req, info),
      where: "proxy",
    });
    let admit: string | null = null;
    if (decision.kind === "closed") return closedAnswer(req, decision, vr.pathAndQuery, s);
    if (decision.kind === "wait") {
      const queue = decision.named ? decision.queue : undefined;
      // Before the waiting room: a verified search engine crawler gets the default queue's
      // rule for crawlers (the site without a place, or 503 with Retry-After).
      const crawler = await crawlerRule(s, req, info);
      if (crawler === "503") return crawlerBusy(req);
      if (crawler !== "pass") {
        const away = notAdmitted(req, vr.pathAndQuery, s.config.BASE_PATH, queue);
        // A token whose session ended early (released, idle, at its cap) is cleared, and the
        // waiting room told, so it says the visit ended instead of queueing the visitor silently.
        if (!vr.claims || verdict?.ok !== false) return away;
        const secure = isSecureRequest(req);
        return withCookie(
          withCookie(away, clearedCookie("tg_access", secure)),
          endedCookie(vr.claims.queue, secure),
        );
      }
    }
    if (decision.kind === "passthrough") admit = await passthroughCookie(s, req, decision.queue);
    try {
      // Forwarded headers pass on only from a peer the trusted-proxy rule believes.
      const trustForwarded = options.trustForwarded && peerTrusted(peerAddress(info), s.config);
      const res = await forward(req, vr, base, peerOf(info), { ...options, trustForwarded });
      const out = await afterOrigin(s.sessions, req, own, verdict, res);
      return admit ? withCookie(out, admit) : out;
    } catch (e) {
      if (e instanceof OriginUnavailable) return down(req, e.reason, e.message);
      return down(req, "unreachable", String(e));
    }
  };
}

async function allowlisted(s: Services, req: Request, info?: Deno.ServeHandlerInfo) {
  const rules = await s.access.rules.current();
  return rules.allow.matches(requesterOf(req.headers, info, s.config).ip);
}

/** What the default queue's crawler rule says for this request (`queue` for people). */
async function crawlerRule(s: Services, req: Request, info?: Deno.ServeHandlerInfo) {
  if (!claimedCrawler(req.headers.get("user-agent"))) return "queue";
  const q = (await s.engine.defaultQueue()) ?? "default";
  const ip = requesterOf(req.headers, info, s.config).ip;
  return await s.crawlers.decide(q, ip, req.headers.get("user-agent"));
}

/** 503 with Retry-After for a verified crawler while the room is up (as search engines ask). */
function crawlerBusy(req: Request): Response {
  const text = "busy, please come back later\n"; // i18n-ok: for crawlers, not people
  const res = new Response(req.method === "HEAD" ? null : text, { status: 503 });
  const h = res.headers;
  for (const [k, v] of SECURITY_HEADERS) h.set(k, v);
  h.set("Content-Type", "text/plain; charset=utf-8");
  h.set("Retry-After", String(CRAWLER_RETRY_AFTER));
  h.set("Cache-Control", "no-store");
  h.set("X-Robots-Tag", "noindex");
  return res;
}

/** The gate as the first Hono middleware (for `app.request()`; `Deno.serve` runs it earlier). */
export function originMiddleware(gate: OriginGate): MiddlewareHandler {
  return async (c, next) => {
    const res = await gate(c.req.raw, c.env as Deno.ServeHandlerInfo | undefined);
    if (res) return res;
    await next();
  };
}

function peerOf(info: Deno.ServeHandlerInfo | undefined): string | null {
  const addr = info?.remoteAddr as Deno.NetAddr | undefined;
  return addr?.hostname ?? null;
}

/**
 * Under `BASE_PATH`, whether Tollgate answers its plain paths (without the prefix) too: only while
 * the origin proxy is off, as the gate's cached answer says (before its first look, as
 * `ORIGIN_URL` says). With it on, the site owns every path outside the prefix.
 */
export function plainPathsOurs(s: Services): () => boolean {
  return () => {
    const eff = s.origin.fresh();
    return eff === null ? !s.config.ORIGIN_URL : !eff.base;
  };
}

/**
 * Marks requests the served `fetch` already put through the gate (Hono's middleware skips them):
 * a property under a private symbol, not a WeakSet entry per request, which made most of the
 * garbage on the hot paths.
 */
const GATED = Symbol("tollgate.gated");

/** Marks `req` as seen by the origin gate. */
export function markGated(req: Request): void {
  (req as Request & { [GATED]?: true })[GATED] = true;
}

/** True when the served `fetch` already put `req` through the origin gate. */
export function wasGated(req: Request): boolean {
  return (req as Request & { [GATED]?: true })[GATED] === true;
}

/**
 * Where an unadmitted visitor goes: the waiting room (under `base`; of `queue` when given), back
 * here once admitted.
 */
export function waitUrlFor(pathAndQuery: string, base = "", queue?: string): string {
  const named = queue ? `queue=${encodeURIComponent(queue)}&` : "";
  return `${base}/wait?${named}return=${encodeURIComponent(pathAndQuery)}`;
}

/**
 * GET and HEAD: 302 to the waiting room. Other methods: 401 `unauthorized` with the waiting
 * room's URL, as an auth proxy answers API calls: a redirect would turn a POST into a GET that
 * `fetch()` follows silently, handing the page's HTML to a script as the answer.
 */
function notAdmitted(req: Request, pathAndQuery: string, base = "", queue?: string): Response {
  const wait = waitUrlFor(pathAndQuery, base, queue);
  if (req.method === "GET" || req.method === "HEAD") {
    const res = new Response(null, { status: 302 });
    const h = res.headers;
    h.set("Location", wait);
    for (const [k, v] of SECURITY_HEADERS) h.set(k, v);
    // Never cached: once admitted, the same URL must reach the origin.
    h.set("Cache-Control", "no-store");
    // A crawler that is queued must not index the detour as the page.
    h.set("X-Robots-Tag", "noindex");
    return res;
  }
  const res = jsonResponse(
    // i18n-ok: the API's error message (scripts read the code; browsers get the redirect)
    errorBody("unauthorized", "a valid access token is required; join the waiting room first", {
      waitUrl: wait,
    }),
    401,
  );
  res.headers.set("WWW-Authenticate", 'Bearer realm="tollgate"'); // i18n-ok: a header
  return res;
}

/** True when the client asked for JSON rather than a page. */
function wantsJson(req: Request): boolean {
  const accept = req.headers.get("accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}

const PAGE_CSS = "body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:15vh auto;" +
  "padding:0 1rem;color:#1f2933}h1{font-size:1.5rem}";

/** 502 `bad_gateway`: a plain page, or the JSON envelope for clients that accept JSON. */
function badGateway(req: Request, reason: string): Response {
  const message = "the site behind the waiting room is not reachable right now"; // i18n-ok: API
  if (wantsJson(req)) return jsonResponse(errorBody("bad_gateway", message, { reason }), 502);
  // The visitor's language, as on the waiting room's pages (no cookie is written here).
  const { lang } = pickLang({
    cookie: cookieValue(req.headers.get("cookie"), LANG_COOKIE),
    acceptLanguage: req.headers.get("accept-language"),
  });
  const m = CATALOGUES[lang];
  const esc = (t: string) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const html = `<!doctype html><html lang="${lang}" dir="${dirOf(lang)}"><head>` +
    `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${esc(m["gateway.title"])}</title><style>${PAGE_CSS}</style></head><body>` +
    `<h1>${esc(m["gateway.heading"])}</h1><p>${esc(m["gateway.text"])}</p>` +
    `<p><a href="">${esc(m["gateway.retry"])}</a></p></body></html>`;
  const res = new Response(req.method === "HEAD" ? null : html, { status: 502 });
  const h = res.headers;
  h.set("Content-Type", "text/html; charset=utf-8");
  for (const [k, v] of SECURITY_HEADERS) h.set(k, v);
  h.set("Content-Security-Policy", contentSecurityPolicy({ inlineStyle: PAGE_CSS }));
  h.set("Cache-Control", "no-store");
  return res;
}
