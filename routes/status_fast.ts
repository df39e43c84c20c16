import type { Services } from "./services.ts";
import { knownTicketFor, ticketFor, visitorCookies } from "../http/cookies.ts";
import { errorResponse, jsonResponse } from "../http/response.ts";
import { QUEUE_NAME_RE, VISITOR_ID_RE } from "../lib/names.ts";
import type { VisitorView } from "../lib/queue/types.ts";

const PLAIN_QUERY = new RegExp(`^queue=(${QUEUE_NAME_RE.source.slice(1, -1)})$`);

/** A visitor call's answer: the view, plus the `tg_ticket` / `tg_access` cookies. */
export function visitorResponse(
  s: Services,
  req: Request,
  status: number,
  view: VisitorView,
  ticket: string | undefined,
): Response {
  const res = jsonResponse(view, status);
  // Most answers (a status not due) set no cookie.
  if (!ticket && !view.accessToken) return res;
  for (const v of visitorCookies(req, s.config.ACCESS_TOKEN_TTL_SECONDS, view, ticket)) {
    res.headers.append("Set-Cookie", v);
  }
  return res;
}

/** What a status request asks: the queue, the optional visitor id and the Cookie header. */
interface StatusQuery {
  queue: string;
  visitorId?: string;
  cookie: string | null;
}

/** Reads a status request's query; null for a query Hono must answer (bad_request). */
function statusQuery(req: Request, url: string): StatusQuery | null {
  const q = url.indexOf("?");
  if (q < 0) return null;
  // The usual query, `queue=<name>` alone, needs no decoding (the name has no % or +) and no
  // further check (the expression is the name's).
  const plain = PLAIN_QUERY.exec(url.slice(q + 1));
  if (plain) return { queue: plain[1], cookie: req.headers.get("cookie") };
  const query = new URLSearchParams(url.slice(q + 1));
  const queue = query.get("queue");
  const visitorId = query.get("visitorId") ?? undefined;
  if (
    !queue || !QUEUE_NAME_RE.test(queue) ||
    (visitorId !== undefined && !VISITOR_ID_RE.test(visitorId))
  ) {
    return null;
  }
  return { queue, visitorId, cookie: req.headers.get("cookie") };
}

/**
 * `GET /status` without Hono: the call every waiter makes at every timeslot. A ticket verified
 * before (every poll after the first) whose slot is not due is answered at once from the cached
 * view, with no await; everything else (first polls, due check-ins, engine errors) on the awaited
 * path. Returns null for a query it does not validate itself, which then goes to the Hono app for
 * the full `bad_request` envelope.
 */
export function fastStatus(
  s: Services,
  req: Request,
  url = req.url,
): Response | Promise<Response> | null {
  const p = statusQuery(req, url);
  if (!p) return null;
  const known = p.cookie ? knownTicketFor(s.signer, p.cookie, p.queue) : undefined;
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
    out = await s.engine.status(
      p.queue,
      await ticketFor(s.signer, p.cookie, p.queue),
      p.visitorId,
    );
  } catch (err) {
    return errorResponse(err, req);
  }
  s.engine.maybeTick(p.queue);
  return visitorResponse(s, req, 200, out.view, out.ticket);
}
