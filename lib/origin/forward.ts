/**
 * Forwarding one request to the origin as a reverse proxy does: bodies stream both ways (never
 * buffered), method, path, query and status pass unchanged, hop-by-hop headers stop here,
 * `X-Forwarded-*`, `Forwarded` and `Via` are added, and redirects are returned, not followed.
 * Every header Tollgate sets itself is dropped from what the client sent before ours are added:
 * the origin may trust `X-Tollgate-Visitor` and `X-Tollgate-Queue` (the admitted visitor, as the
 * proxy checks name it) because no client can send them through.
 */
import type { VisitorRequest } from "./request.ts";
import { couldNotReach, safeHost } from "../outbound/failure.ts";

/** Name of this proxy in `Via`; a request that already passed through it is a loop. */
export const VIA_NAME = "tollgate";

/** How long the origin may take to send its response headers (the body may take longer). */
export const ORIGIN_TIMEOUT_MS = 30_000;

/** Connection-scoped headers (RFC 9110 7.6.1), never forwarded in either direction. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Request headers rebuilt here rather than copied (`host` is the origin's, set by fetch). */
const REBUILT = new Set([
  "host",
  "cookie",
  "authorization",
  "accept-encoding",
  "x-forwarded-for",
  "x-forwarded-proto",
  "x-forwarded-host",
  "x-real-ip",
  "forwarded",
  "via",
]);

/** Tollgate's own header names (`X-Tollgate-Visitor`, `X-Tollgate-Queue`, any to come). */
const OWN_HEADER = /^x-tollgate-/;

const VIA_LOOP = new RegExp(`(^|[\\s,])${VIA_NAME}(\\s|,|$)`, "i");
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Why the origin could not answer. */
export class OriginUnavailable extends Error {
  constructor(readonly reason: "unreachable" | "timeout", message: string) {
    super(message);
    this.name = "OriginUnavailable";
  }
}

/** How to forward. */
export interface ForwardOptions {
  fetch: typeof fetch;
  timeoutMs: number;
  /**
   * True when `CLIENT_IP_HEADER` is set: a proxy in front of us is trusted, so the forwarding
   * chain it sent (X-Forwarded-*, Forwarded) is kept and our hop appended. Otherwise the client
   * talks to us directly and anything it sent in those headers is a claim we cannot check.
   */
  trustForwarded: boolean;
}

/** The header names the `Connection` header lists (they are hop-by-hop too). */
function connectionNamed(h: Headers): Set<string> | null {
  const v = h.get("connection");
  if (!v) return null;
  const out = new Set<string>();
  for (const name of v.split(",")) {
    const n = name.trim().toLowerCase();
    if (TOKEN.test(n)) out.add(n);
  }
  return out;
}

function skipped(name: string, named: Set<string> | null): boolean {
  return HOP_BY_HOP.has(name) || name.startsWith("proxy-") || (named?.has(name) ?? false);
}

/** A node of `Forwarded` (RFC 7239 6): IPv6 bracketed and quoted, no address `unknown`. */
function forwardedNode(ip: string | null): string {
  if (!ip) return "unknown";
  return ip.includes(":") ? `"[${ip}]"` : ip;
}

const quoted = (v: string) => `"${v.replace(/["\\]/g, "\\$&")}"`;
const join = (prev: string | null, next: string) => (prev ? `${prev}, ${next}` : next);

/**
 * The headers the origin gets, as name/value pairs (cheaper for fetch than a Headers object).
 * `peer`: the socket address the request came from.
 */
export function upstreamHeaders(
  req: Request,
  vr: VisitorRequest,
  peer: string | null,
  trustForwarded: boolean,
): [string, string][] {
  const inH = req.headers;
  const named = connectionNamed(inH);
  const out: [string, string][] = [];
  for (const [k, v] of inH) {
    if (REBUILT.has(k) || OWN_HEADER.test(k) || skipped(k, named)) continue;
    out.push([k, v]);
  }
  // The admitted visitor, as `/verify` names it to a proxy (none for an allowlisted address).
  if (vr.claims) {
    out.push(["x-tollgate-visitor", vr.claims.sub], ["x-tollgate-queue", vr.claims.queue]);
  }
  if (vr.cookie) out.push(["cookie", vr.cookie]);
  const auth = inH.get("authorization");
  if (auth && !vr.dropAuthorization) out.push(["authorization", auth]);
  // Deno's fetch decodes gzip and br bodies whenever it may (keeping Content-Encoding), so the
  // origin's bytes would not pass unchanged; with identity they do (an edge compresses).
  out.push(["accept-encoding", "identity"]);

  const url = req.url;
  const ownProto = url.startsWith("https:") ? "https" : "http";
  const host = inH.get("host") ?? new URL(url).host;
  const inProto = inH.get("x-forwarded-proto");
  const inHost = inH.get("x-forwarded-host");
  const proto = trustForwarded && inProto && /^https?$/i.test(inProto) ? inProto : ownProto;
  const prevFor = trustForwarded ? inH.get("x-forwarded-for") : null;
  if (peer || prevFor) out.push(["x-forwarded-for", peer ? join(prevFor, peer) : prevFor!]);
  // X-Real-IP names one address: a trusted proxy's value stands, otherwise the socket's (a
  // client's own claim never reaches the origin).
  const realIp = trustForwarded ? inH.get("x-real-ip") ?? peer : peer;
  if (realIp) out.push(["x-real-ip", realIp]);
  out.push(
    ["x-forwarded-proto", proto.toLowerCase()],
    ["x-forwarded-host", trustForwarded && inHost ? inHost : host],
    [
      "forwarded",
      join(
        trustForwarded ? inH.get("forwarded") : null,
        `for=${forwardedNode(peer)};host=${quoted(host)};proto=${ownProto}`,
      ),
    ],
    // RFC 9110 7.6.3: a gateway sends Via on the requests it forwards (and it reveals loops).
    ["via", join(inH.get("via"), `1.1 ${VIA_NAME}`)],
  );
  return out;
}

/** True when the request already passed through a Tollgate proxy (the origin points back at us). */
export function isLoop(req: Request): boolean {
  const via = req.headers.get("via");
  return via !== null && VIA_LOOP.test(via);
}

/** The origin's response as the client gets it: hop-by-hop headers removed, body streamed. */
export function relayResponse(res: Response): Response {
  const h = res.headers;
  // The usual answer carries none of them: it is passed on as it is, without a copy.
  let clean = !(res.body && NULL_BODY_STATUS.has(res.status));
  for (const [k] of h) {
    if (HOP_BY_HOP.has(k) || k.startsWith("proxy-")) {
      clean = false;
      break;
    }
  }
  if (clean) return res;
  const named = connectionNamed(h);
  const headers = new Headers();
  for (const [k, v] of h) {
    if (!skipped(k, named)) headers.append(k, v);
  }
  let body = res.body;
  if (body && NULL_BODY_STATUS.has(res.status)) {
    void body.cancel().catch(() => {});
    body = null;
  }
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

/**
 * Sends `req` to `base` + the visitor's path and query, and relays the answer. Throws
 * `OriginUnavailable` when the origin cannot be reached, or sends no headers in time.
 */
export async function forward(
  req: Request,
  vr: VisitorRequest,
  base: string,
  peer: string | null,
  o: ForwardOptions,
): Promise<Response> {
  const method = req.method;
  const ctl = new AbortController();
  // Only the wait for the response headers is bounded: a long download or a slow stream is fine.
  const timer = setTimeout(() => ctl.abort(), o.timeoutMs);
  let res: Response;
  try {
    res = await o.fetch(base + vr.pathAndQuery, {
      method,
      headers: upstreamHeaders(req, vr, peer, o.trustForwarded),
      body: method === "GET" || method === "HEAD" ? null : req.body,
      redirect: "manual",
      signal: ctl.signal,
      // Stream the request body as it arrives instead of reading it first.
      duplex: "half",
    } as RequestInit);
  } catch (e) {
    if (ctl.signal.aborted) {
      throw new OriginUnavailable("timeout", `no response headers within ${o.timeoutMs} ms`);
    }
    // The runtime's reason (refused, certificate, name) for the log line; never the path.
    throw new OriginUnavailable("unreachable", couldNotReach(e, safeHost(base)));
  } finally {
    clearTimeout(timer);
  }
  return relayResponse(res);
}
