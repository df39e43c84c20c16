/**
 * The visitor cookies exactly as the visitor API sets them (SPEC 2.3, DECISIONS): `tg_ticket`
 * (a day) on every join and renewal, `tg_access` (the token lifetime) once admitted and entered.
 * HttpOnly, Path=/, SameSite=Lax, Secure over HTTPS.
 */
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { TicketClaims } from "./tokens.ts";
import type { VisitorView } from "./queue/types.ts";

/** Lifetime of `tg_ticket`, in seconds (the same as `routes/visitor.ts` and the fast path). */
export const TICKET_MAX_AGE = 86400;

/**
 * True when cookies must be `Secure`: HTTPS, directly or behind a TLS-terminating proxy (its
 * forwarded scheme is trusted, since a spoofed header can only make the cookie stricter).
 */
export function isSecureRequest(url: string, forwardedProto: string | null | undefined): boolean {
  return url.startsWith("https:") || forwardedProto === "https";
}

/** `isSecureRequest` for a Hono request. */
export function secureRequest(c: Context): boolean {
  return isSecureRequest(c.req.url, c.req.header("x-forwarded-proto"));
}

/** Sets `tg_ticket` (when given) and, for an entered visitor, `tg_access`. */
export function setVisitorCookies(
  c: Context,
  accessTtlSeconds: number,
  view: Pick<VisitorView, "accessToken">,
  ticket?: string,
): void {
  const base = { httpOnly: true, path: "/", sameSite: "Lax" as const, secure: secureRequest(c) };
  if (ticket) setCookie(c, "tg_ticket", ticket, { ...base, maxAge: TICKET_MAX_AGE });
  if (view.accessToken) {
    setCookie(c, "tg_access", view.accessToken, { ...base, maxAge: accessTtlSeconds });
  }
}

/** The verified `tg_ticket` of a request (null when missing, forged or malformed). */
export function ticketOf(
  c: Context,
  signer: { verifyTicket(t: string | undefined): Promise<TicketClaims | null> },
): Promise<TicketClaims | null> {
  return signer.verifyTicket(getCookie(c, "tg_ticket"));
}

/** Finishes a visitor call: nudges the queue's admission tick and sets the visitor cookies. */
export function answerVisitor(
  c: Context,
  s: { engine: { maybeTick(q: string): void }; config: { ACCESS_TOKEN_TTL_SECONDS: number } },
  queue: string,
  out: { view: Pick<VisitorView, "accessToken">; ticket?: string },
): void {
  s.engine.maybeTick(queue);
  setVisitorCookies(c, s.config.ACCESS_TOKEN_TTL_SECONDS, out.view, out.ticket);
}
