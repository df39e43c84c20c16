/**
 * The little the Hono routes need on top of the shared HTTP layer: the same client address,
 * ticket reader and visitor cookies as the fast paths, read from a Hono context.
 */
import type { Context } from "hono";
import { type Requester, requesterOf } from "../lib/access/join.ts";
import { clientIp, type ClientIpConfig } from "../lib/client_ip.ts";
import type { Config } from "../lib/config.ts";
import type { VisitorView } from "../lib/queue/types.ts";
import type { TicketClaims } from "../lib/tokens.ts";
import { isSecureRequest, ticketFor, type TicketVerifier, visitorCookies } from "./cookies.ts";

/** The connection info `createApp().fetch` passes to Hono as `c.env`. */
export function infoOf(c: Context): Deno.ServeHandlerInfo | undefined {
  return c.env as Deno.ServeHandlerInfo | undefined;
}

/** The client address of a Hono request (the trusted-proxy rule of `lib/client_ip.ts`). */
export function clientIpOf(c: Context, config: ClientIpConfig): string {
  return clientIp(c.req.raw.headers, infoOf(c), config);
}

/** The requester (address and country) of a Hono request. */
export function requesterOfContext(
  c: Context,
  config: ClientIpConfig & Pick<Config, "GEO_COUNTRY_HEADER">,
): Requester {
  return requesterOf(c.req.raw.headers, infoOf(c), config);
}

/** The verified `tg_ticket` of a Hono request for `queue` (see `ticketFor`). */
export function ticketOf(
  c: Context,
  signer: TicketVerifier,
  queue?: string,
): Promise<TicketClaims | null> {
  return ticketFor(signer, c.req.header("cookie"), queue);
}

/** True when the request came over HTTPS (cookies get `Secure`). */
export function secureRequest(c: Context): boolean {
  return isSecureRequest(c.req.raw);
}

/** Finishes a visitor call: nudges the queue's admission tick and sets the visitor cookies. */
export function answerVisitor(
  c: Context,
  s: { engine: { maybeTick(q: string): void }; config: { ACCESS_TOKEN_TTL_SECONDS: number } },
  queue: string,
  out: { view: Pick<VisitorView, "accessToken">; ticket?: string },
): void {
  s.engine.maybeTick(queue);
  const ttl = s.config.ACCESS_TOKEN_TTL_SECONDS;
  for (const v of visitorCookies(c.req.raw, ttl, out.view, out.ticket)) {
    c.header("Set-Cookie", v, { append: true });
  }
}
