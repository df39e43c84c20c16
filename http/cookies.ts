/**
 * The one cookie reader and writer of every request path (Hono routes and the fast paths).
 *
 * Reading: every value of a name is kept (a sibling subdomain may add its own `tg_access`), a
 * quoted value is unquoted and a percent-encoded one decoded. Among several `tg_access` values any
 * valid one counts; among several `tg_ticket` values the one valid for the requested queue counts.
 * Writing: the visitor cookies are `HttpOnly`, `Path=/`, `SameSite=Lax`, `Secure` over HTTPS.
 */
import { cookieValues } from "../lib/cookies.ts";
import type { VisitorView } from "../lib/queue/types.ts";
import type { TicketClaims } from "../lib/tokens.ts";

export { cookieValues };

/** Lifetime of `tg_ticket`, in seconds. */
export const TICKET_MAX_AGE = 86400;

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
  for (const v of cookieValues(header, "tg_ticket")) {
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
  const values = cookieValues(header, "tg_ticket");
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

/** A `Set-Cookie` value that removes a visitor cookie. */
export function clearedCookie(name: string, secure: boolean): string {
  return visitorCookie(name, "", 0, secure);
}

/**
 * True when cookies must be `Secure`: HTTPS, directly or behind a TLS-terminating proxy (its
 * forwarded scheme is believed from anyone: a spoofed header can only make the cookie stricter).
 */
export function isSecureRequest(req: Request): boolean {
  return req.url.startsWith("https:") || req.headers.get("x-forwarded-proto") === "https";
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
  if (ticket) out.push(visitorCookie("tg_ticket", ticket, TICKET_MAX_AGE, secure));
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
