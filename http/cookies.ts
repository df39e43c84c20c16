/**
 * The one cookie reader and writer of every request path (Hono routes and the fast paths).
 *
 * Reading: every value of a name is kept (a sibling subdomain may add its own `tg_access`), a
 * quoted value is unquoted and a percent-encoded one decoded. Among several `tg_access` values any
 * valid one counts; among several `tg_ticket` values the one valid for the requested queue counts.
 * Writing: the visitor cookies are `HttpOnly`, `Path=/`, `SameSite=Lax`, `Secure` over HTTPS.
 *
 * A browser may wait in several queues at once (two parts of one site, each with its own line):
 * `tg_ticket` holds one ticket per queue, joined by `~`, so a join, a resume or a leave in one
 * queue keeps the places the browser holds in the others (one cookie per name would drop them).
 */
import { cookieValues } from "../lib/cookies.ts";
import type { VisitorView } from "../lib/queue/types.ts";
import { readTicketUnverified, type TicketClaims } from "../lib/tokens.ts";

export { cookieValues };

/** Lifetime of `tg_ticket`, in seconds. */
export const TICKET_MAX_AGE = 86400;

/** Between the tickets of several queues in one `tg_ticket` value (neither base64url nor `.`). */
const TICKET_SEP = "~";
/** Most queues one `tg_ticket` keeps a ticket for (about 250 bytes each; a cookie holds 4 KB). */
export const MAX_TICKETS = 8;

/** Every ticket a Cookie header carries: each `tg_ticket` value split into its queues' tickets. */
function ticketValues(header: string | null | undefined): string[] {
  return cookieValues(header, "tg_ticket").flatMap((v) => v.split(TICKET_SEP)).filter((t) => t);
}

/**
 * The queue a ticket names, read WITHOUT verifying it: it only decides which tickets a written
 * cookie keeps beside the new one; every ticket is verified when it is read.
 */
function claimedQueue(ticket: string): string | undefined {
  try {
    const q = readTicketUnverified(ticket).queue;
    return typeof q === "string" ? q : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `tg_ticket` value to write: `ticket` for `queue` (none: "" after a leave) and, after it,
 * the tickets the request carried for other queues, one per queue, at most `MAX_TICKETS` in all.
 * "" when nothing is left (the cookie is then cleared).
 */
export function ticketCookieValue(
  header: string | null | undefined,
  queue: string | undefined,
  ticket: string,
): string {
  const kept = ticket ? [ticket] : [];
  const seen = new Set([queue]);
  for (const t of ticketValues(header)) {
    if (kept.length >= MAX_TICKETS) break;
    const q = claimedQueue(t);
    if (q === undefined || seen.has(q)) continue;
    seen.add(q);
    kept.push(t);
  }
  return kept.join(TICKET_SEP);
}

/**
 * True when every `tg_access` value of the header is a token of a queue other than `queue` (read
 * without verifying: it only spares another queue's admission when `queue` is left).
 */
export function accessOfOtherQueues(header: string | null | undefined, queue: string): boolean {
  const values = cookieValues(header, "tg_access");
  return values.length > 0 && values.every((v) => {
    const q = claimedQueue(v);
    return q !== undefined && q !== queue;
  });
}

/** The `Set-Cookie` value of `tg_ticket` after `ticketCookieValue` (cleared when it is ""). */
export function ticketCookie(value: string, secure: boolean): string {
  return value ? visitorCookie("tg_ticket", value, TICKET_MAX_AGE, secure) : clearedCookie(
    "tg_ticket",
    secure,
  );
}

/** The one cookie value of `name` (the first, for cookies that never come twice from us). */
export function cookieValue(header: string | null | undefined, name: string): string | undefined {
  return cookieValues(header, name)[0];
}

/** What the ticket readers need of the signer. */
export interface TicketVerifier {
  knownTicket(t: string): Readonly<TicketClaims> | undefined;
  verifyTicket(t: string | undefined): Promise<TicketClaims | null>;
}

/**
 * The verified `tg_ticket` of a Cookie header for `queue`: the first valid one for that queue, else
 * the first valid one (whose queue the engine then refuses with its own message), else null.
 */
export async function ticketFor(
  signer: TicketVerifier,
  header: string | null | undefined,
  queue: string | undefined,
): Promise<TicketClaims | null> {
  let other: TicketClaims | null = null;
  for (const v of ticketValues(header)) {
    const claims = await signer.verifyTicket(v);
    if (!claims) continue;
    if (queue === undefined || claims.queue === queue) return claims;
    other ??= claims;
  }
  return other;
}

/**
 * `ticketFor` without an await, from tickets verified before: the raw value and its claims, or
 * undefined when no cookie value is known yet (the awaited reader then decides).
 */
export function knownTicketFor(
  signer: TicketVerifier,
  header: string | null | undefined,
  queue: string,
): Readonly<TicketClaims> | undefined {
  const values = ticketValues(header);
  if (values.length === 0) return undefined;
  if (values.length > 1) {
    // Several: only when every value is known can the right one be chosen without an await.
    let other: Readonly<TicketClaims> | undefined;
    for (const v of values) {
      const c = signer.knownTicket(v);
      if (!c) return undefined;
      if (c.queue === queue) return c;
      other ??= c;
    }
    return other;
  }
  return signer.knownTicket(values[0]);
}

/** A `Set-Cookie` value for a visitor cookie. */
export function visitorCookie(name: string, value: string, maxAge: number, secure: boolean) {
  return `${name}=${encodeURIComponent(value)}; Max-Age=${maxAge | 0}; Path=/; HttpOnly${
    secure ? "; Secure" : ""
  }; SameSite=Lax`;
}

/** How long `tg_ended` says a visit ended (s): a visitor back later simply joins the line. */
export const ENDED_MAX_AGE = 3600;

/**
 * `tg_ended=<queue>`: the visitor's session in `queue` ended (the site released it, or it ended
 * early), so the waiting room says so and offers a new place instead of silently taking one.
 * No credential: only the queue's name.
 */
export function endedCookie(queue: string, secure: boolean): string {
  return visitorCookie("tg_ended", queue, ENDED_MAX_AGE, secure);
}

/** A `Set-Cookie` value that removes a visitor cookie. */
export function clearedCookie(name: string, secure: boolean): string {
  return visitorCookie(name, "", 0, secure);
}

/** Set on a request of a service published on an `https://` PUBLIC_URL (see `notePublicUrl`). */
const PUBLISHED_HTTPS = Symbol("published over https");

/**
 * Notes on `req` that the service is published on `publicUrl`: with an `https://` one, the
 * visitor's browser is on HTTPS even when the proxy in front sends no `X-Forwarded-Proto`. The
 * served handler calls it for every request it hands on (routes/dispatch.ts); returns `req`.
 */
export function notePublicUrl(req: Request, publicUrl: string | undefined): Request {
  if (publicUrl?.startsWith("https:")) {
    (req as Request & { [PUBLISHED_HTTPS]?: true })[PUBLISHED_HTTPS] = true;
  }
  return req;
}

/**
 * The one rule of every cookie's `Secure` (visitor and admin ones alike): the request came over
 * HTTPS, directly, behind a TLS-terminating proxy (its forwarded scheme is believed from anyone: a
 * spoofed header can only make the cookie stricter), or to a service published on an `https://`
 * PUBLIC_URL (`notePublicUrl`).
 */
export function isSecureRequest(req: Request): boolean {
  return req.url.startsWith("https:") || req.headers.get("x-forwarded-proto") === "https" ||
    (req as Request & { [PUBLISHED_HTTPS]?: true })[PUBLISHED_HTTPS] === true;
}

/** The `Set-Cookie` values of a visitor answer: `tg_ticket` when given, `tg_access` once entered. */
export function visitorCookies(
  req: Request,
  accessTtlSeconds: number,
  view: Pick<VisitorView, "accessToken">,
  ticket: string | undefined,
): string[] {
  if (!ticket && !view.accessToken) return [];
  const secure = isSecureRequest(req);
  const out: string[] = [];
  if (ticket) {
    const value = ticketCookieValue(req.headers.get("cookie"), claimedQueue(ticket), ticket);
    out.push(ticketCookie(value, secure));
  }
  if (view.accessToken) {
    out.push(visitorCookie("tg_access", view.accessToken, accessTtlSeconds, secure));
  }
  return out;
}

/** Adds the refreshed `tg_access` cookie of `verdict` to `headers`, when there is one. */
export function refreshCookie(
  headers: Headers,
  req: Request,
  verdict: { token?: string } | null,
  ttlSeconds: number,
): void {
  if (!verdict?.token) return;
  headers.append(
    "Set-Cookie",
    visitorCookie("tg_access", verdict.token, ttlSeconds, isSecureRequest(req)),
  );
}
