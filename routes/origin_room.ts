/**
 * The origin proxy's answers for a switched room: a closed room (`reject`) sends browsers to the
 * waiting room's closed page and answers API clients 503 `room_closed` with `Retry-After`; a
 * passthrough room lets the visitor through at once with a fresh access token cookie (counted,
 * so the admission metrics and the slots it holds stay known), so its next requests pass on
 * the token alone.
 */
import type { Services } from "./services.ts";
import { errorBody } from "../lib/errors.ts";
import { newVisitorId } from "../lib/queue/join.ts";
import { countPassthrough } from "../lib/room/passthrough.ts";
import type { RoomSwitchState } from "../lib/room/switches.ts";
import { isSecureRequest, visitorCookie } from "../http/cookies.ts";
import { jsonResponse, SECURITY_HEADERS } from "../http/response.ts";
import { waitUrlFor } from "./origin.ts";

/** True when the client asked for JSON rather than a page. */
function wantsJson(req: Request): boolean {
  const accept = req.headers.get("accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}

/** The answer of a closed room: 302 to its closed page (browsers), 503 `room_closed` (others). */
export function closedAnswer(
  req: Request,
  d: { queue: string; room: RoomSwitchState },
  pathAndQuery: string,
  s: Services,
): Response {
  const wait = waitUrlFor(pathAndQuery, s.config.BASE_PATH, d.queue);
  if ((req.method === "GET" || req.method === "HEAD") && !wantsJson(req)) {
    const res = new Response(null, { status: 302 });
    res.headers.set("Location", wait);
    for (const [k, v] of SECURITY_HEADERS) res.headers.set(k, v);
    res.headers.set("Cache-Control", "no-store");
    return res;
  }
  return closedJson(d.queue, d.room, wait);
}

/** 503 `room_closed` with `Retry-After` (a closed room, for a client that is not a browser). */
export function closedJson(queue: string, room: RoomSwitchState, wait: string): Response {
  const r = room.record;
  const res = jsonResponse(
    errorBody("room_closed", r.closedMessage || `queue "${queue}" is closed right now`, {
      queue,
      message: r.closedMessage,
      retryAfterSeconds: r.retryAfterSeconds,
      waitUrl: wait,
    }),
    503,
  );
  res.headers.set("Retry-After", String(r.retryAfterSeconds));
  return res;
}

/** A fresh access token for `queue` as a `tg_access` cookie, the admission counted. */
export async function passthroughCookie(
  s: Services,
  req: Request,
  queue: string,
): Promise<string> {
  const now = s.clock.now();
  const ttl = s.config.ACCESS_TOKEN_TTL_SECONDS;
  const token = await s.signer.signAccessToken(newVisitorId(s.engine.ctx), queue, now, ttl);
  countPassthrough(s.access.hits, queue, now);
  return visitorCookie("tg_access", token, ttl, isSecureRequest(req));
}

/** `res` with `cookie` added (the origin's headers may be immutable: copied when they are). */
export function withCookie(res: Response, cookie: string): Response {
  try {
    res.headers.append("Set-Cookie", cookie);
    return res;
  } catch {
    const out = new Response(res.body, res);
    out.headers.append("Set-Cookie", cookie);
    return out;
  }
}
