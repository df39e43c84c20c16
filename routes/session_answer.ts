/**
 * What the session check adds to the answers of admitted requests, in one place for the origin
 * proxy, the access checks and `requireAdmission()`: the `tg_access` cookie refreshed when the
 * session's token was re-issued (lib/session/keeper.ts), and, on the origin's answer, the site's
 * `Tollgate-Command: release`, which ends the session and never reaches the visitor.
 */
import { clearedCookie, isSecureRequest, refreshCookie } from "../http/cookies.ts";
export { refreshCookie };
import { log } from "../lib/log.ts";
import type { SessionKeeper, SessionVerdict } from "../lib/session/keeper.ts";
import { releaseSession } from "../lib/session/release.ts";
import type { AccessClaims } from "../lib/tokens.ts";

/** The response header a site sets to end the visitor's session (through the origin proxy). */
export const COMMAND_HEADER = "tollgate-command";

/**
 * The origin's answer as the visitor gets it: the command header taken out (acted on only for a
 * request admitted by its token: anything else has no session to end), and the cookie refreshed
 * or, after a release, cleared.
 */
export async function afterOrigin(
  sessions: SessionKeeper,
  req: Request,
  claims: AccessClaims | null,
  verdict: SessionVerdict | null,
  res: Response,
): Promise<Response> {
  const command = res.headers.get(COMMAND_HEADER);
  // The usual answer: passed on as it is, without a copy.
  if (command === null && !verdict?.token) return res;
  // A fetch answer's headers cannot change: the same body and status with a copy of them.
  const out = new Response(res.body, {
    status: res.status,
    statusText: res.statusText,
    headers: new Headers(res.headers),
  });
  const h = out.headers;
  const ttl = sessions.deps.ttlSeconds;
  if (command === null) {
    refreshCookie(h, req, verdict, ttl);
    return out;
  }
  h.delete(COMMAND_HEADER);
  if (claims && command.trim().toLowerCase() === "release") {
    try {
      await releaseSession(sessions, claims);
      h.append("Set-Cookie", clearedCookie("tg_access", isSecureRequest(req)));
      return out;
    } catch (e) {
      // The site's answer still goes out; the session ends with its time instead.
      log("warn", "release by origin header failed", { queue: claims.queue, error: String(e) });
    }
  }
  refreshCookie(h, req, verdict, ttl);
  return out;
}
