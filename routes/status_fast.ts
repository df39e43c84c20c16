import type { Services } from "../app.ts";
import type { VisitorView } from "../lib/queue/types.ts";

const QUEUE_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const VISITOR_RE = /^[A-Za-z0-9_-]{8,64}$/;
const TICKET_COOKIE = /(?:^|;\s*)tg_ticket=([^;]*)/;
const TICKET_MAX_AGE = 86400;

/** The security headers every response carries (app.ts sets the same on Hono's responses). */
export const SECURITY_HEADERS: [string, string][] = [
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "strict-origin-when-cross-origin"],
  ["X-Frame-Options", "SAMEORIGIN"],
];

/** True when cookies must be `Secure`: HTTPS, directly or behind a TLS-terminating proxy. */
export function isSecureRequest(url: string, forwardedProto: string | null | undefined): boolean {
  return url.startsWith("https:") || forwardedProto === "https";
}

function cookie(name: string, value: string, maxAge: number, secure: boolean): string {
  return `${name}=${value}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax${
    secure ? "; Secure" : ""
  }`;
}

/**
 * `GET /status` without Hono: the call every waiter makes at every timeslot, answered by plain
 * `Deno.serve` code. Returns null for anything it does not answer itself (bad query, any error),
 * which then goes through the Hono app for the full envelope; the engine call that threw had
 * written nothing.
 */
export async function fastStatus(s: Services, req: Request): Promise<Response | null> {
  const url = req.url;
  const q = url.indexOf("?");
  if (q < 0) return null;
  const query = new URLSearchParams(url.slice(q + 1));
  const queue = query.get("queue");
  const visitorId = query.get("visitorId") ?? undefined;
  if (!queue || !QUEUE_RE.test(queue) || (visitorId !== undefined && !VISITOR_RE.test(visitorId))) {
    return null;
  }
  const m = TICKET_COOKIE.exec(req.headers.get("cookie") ?? "");
  let out: { view: VisitorView; ticket?: string };
  try {
    out = await s.engine.status(queue, await s.signer.verifyTicket(m?.[1]), visitorId);
  } catch {
    return null;
  }
  s.engine.maybeTick(queue);
  // Headers set on the made Response cost several times less in Deno than a headers init.
  const res = new Response(JSON.stringify(out.view), { status: 200 });
  const headers = res.headers;
  headers.set("Content-Type", "application/json");
  headers.set("Cache-Control", "no-store");
  for (const [k, v] of SECURITY_HEADERS) headers.set(k, v);
  const secure = isSecureRequest(url, req.headers.get("x-forwarded-proto"));
  if (out.ticket) {
    headers.append("Set-Cookie", cookie("tg_ticket", out.ticket, TICKET_MAX_AGE, secure));
  }
  if (out.view.accessToken) {
    headers.append(
      "Set-Cookie",
      cookie("tg_access", out.view.accessToken, s.config.ACCESS_TOKEN_TTL_SECONDS, secure),
    );
  }
  return res;
}
