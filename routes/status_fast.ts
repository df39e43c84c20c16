import type { Services } from "../app.ts";
import { log, requestIdOf } from "../lib/log.ts";
import { AppError, errorBody } from "../lib/errors.ts";
import { QUEUE_NAME_RE, VISITOR_ID_RE } from "../lib/names.ts";
import type { VisitorView } from "../lib/queue/types.ts";
import { isSecureRequest, TICKET_MAX_AGE } from "../lib/visitor_cookies.ts";

const PLAIN_QUERY = new RegExp(`^queue=(${QUEUE_NAME_RE.source.slice(1, -1)})$`);
const TICKET_COOKIE = /(?:^|;\s*)tg_ticket=([^;]*)/;

/** The security headers every response carries (app.ts sets the same on Hono's responses). */
export const SECURITY_HEADERS: [string, string][] = [
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "strict-origin-when-cross-origin"],
  ["X-Frame-Options", "SAMEORIGIN"],
];

/** The `Set-Cookie` value Hono's `setCookie` makes for a visitor cookie (same attribute order). */
function cookie(name: string, value: string, maxAge: number, secure: boolean): string {
  return `${name}=${encodeURIComponent(value)}; Max-Age=${maxAge | 0}; Path=/; HttpOnly${
    secure ? "; Secure" : ""
  }; SameSite=Lax`;
}

/** A JSON response with the headers app.ts's middleware gives every Hono response. */
export function jsonResponse(body: unknown, status: number): Response {
  // Headers set on the made Response cost several times less in Deno than a headers init.
  const res = new Response(JSON.stringify(body), { status });
  const headers = res.headers;
  headers.set("Content-Type", "application/json");
  for (const [k, v] of SECURITY_HEADERS) headers.set(k, v);
  headers.set("Cache-Control", "no-store");
  return res;
}

/** The envelope app.ts's `onError` makes, for an error a fast path's engine call threw. */
export function errorResponse(err: unknown, req: Request): Response {
  if (err instanceof AppError) {
    return jsonResponse(errorBody(err.code, err.message, err.details), err.status);
  }
  const path = new URL(req.url).pathname;
  log("error", "unhandled", { requestId: requestIdOf(req), path, error: String(err) });
  return jsonResponse(errorBody("internal", "internal error"), 500);
}

/** A visitor call's answer: the view, plus `tg_ticket` / `tg_access` cookies as the Hono routes set. */
export function visitorResponse(
  s: Services,
  req: Request,
  status: number,
  view: VisitorView,
  ticket: string | undefined,
): Response {
  const res = jsonResponse(view, status);
  if (!ticket && !view.accessToken) return res;
  const headers = res.headers;
  const secure = isSecureRequest(req.url, req.headers.get("x-forwarded-proto"));
  if (ticket) headers.append("Set-Cookie", cookie("tg_ticket", ticket, TICKET_MAX_AGE, secure));
  if (view.accessToken) {
    headers.append(
      "Set-Cookie",
      cookie("tg_access", view.accessToken, s.config.ACCESS_TOKEN_TTL_SECONDS, secure),
    );
  }
  return res;
}

/** What a status request asks: the queue, the optional visitor id and the `tg_ticket` cookie. */
interface StatusQuery {
  queue: string;
  visitorId?: string;
  ticket?: string;
}

/** Reads a status request's query and cookie; null for a query Hono must answer (bad_request). */
function statusQuery(req: Request): StatusQuery | null {
  const url = req.url;
  const q = url.indexOf("?");
  if (q < 0) return null;
  let queue: string | null, visitorId: string | undefined;
  // The usual query, `queue=<name>` alone, needs no decoding (the name has no % or +).
  const plain = PLAIN_QUERY.exec(url.slice(q + 1));
  if (plain) queue = plain[1];
  else {
    const query = new URLSearchParams(url.slice(q + 1));
    queue = query.get("queue");
    visitorId = query.get("visitorId") ?? undefined;
  }
  if (
    !queue || !QUEUE_NAME_RE.test(queue) ||
    (visitorId !== undefined && !VISITOR_ID_RE.test(visitorId))
  ) {
    return null;
  }
  return { queue, visitorId, ticket: TICKET_COOKIE.exec(req.headers.get("cookie") ?? "")?.[1] };
}

/**
 * `GET /status` without Hono: the call every waiter makes at every timeslot, answered by plain
 * `Deno.serve` code. A ticket verified before (every poll after the first) whose slot is not due
 * is answered at once from the cached view, with no await; everything else (first polls, due
 * check-ins, engine errors) on the awaited path. Returns null for a query it does not validate
 * itself, which then goes to the Hono app for the full `bad_request` envelope.
 */
export function fastStatus(s: Services, req: Request): Response | Promise<Response> | null {
  const p = statusQuery(req);
  if (!p) return null;
  const known = p.ticket ? s.signer.knownTicket(p.ticket) : undefined;
  let now: { view: VisitorView } | undefined;
  try {
    now = known && s.engine.statusNow(p.queue, known, p.visitorId);
  } catch {
    // Unexpected: the awaited path answers (or reports) it with the usual envelope.
  }
  if (!now) return awaitedStatus(s, req, p);
  s.engine.maybeTick(p.queue);
  return visitorResponse(s, req, 200, now.view, undefined);
}

/** The awaited status path: verifies the ticket, reads what it must, renews a due check-in. */
async function awaitedStatus(s: Services, req: Request, p: StatusQuery): Promise<Response> {
  let out: { view: VisitorView; ticket?: string };
  try {
    out = await s.engine.status(p.queue, await s.signer.verifyTicket(p.ticket), p.visitorId);
  } catch (err) {
    return errorResponse(err, req);
  }
  s.engine.maybeTick(p.queue);
  return visitorResponse(s, req, 200, out.view, out.ticket);
}
