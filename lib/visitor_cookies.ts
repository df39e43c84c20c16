/**
 * The visitor cookies exactly as the visitor API sets them (SPEC 2.3, DECISIONS): `tg_ticket`
 * (a day) on every join and renewal, `tg_access` (the token lifetime) once admitted and entered.
 * HttpOnly, Path=/, SameSite=Lax, Secure over HTTPS.
 */
import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import type { VisitorView } from "./queue/types.ts";

/** Lifetime of `tg_ticket`, in seconds (the same as `routes/visitor.ts` and the fast path). */
export const TICKET_MAX_AGE = 86400;

/**
 * True when the request came over HTTPS, directly or behind a TLS-terminating proxy (the same
 * rule as `isSecureRequest` in routes/status_fast.ts): a spoofed header only makes it stricter.
 */
export function secureRequest(c: Context): boolean {
  return c.req.url.startsWith("https:") || c.req.header("x-forwarded-proto") === "https";
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
