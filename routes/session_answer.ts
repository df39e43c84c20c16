/**
 * What the session check adds to the answers of admitted requests, in one place for the origin
 * proxy, the access checks and `requireAdmission()`: the `tg_access` cookie refreshed when the
 * session's token was re-issued (lib/session/keeper.ts), and, on the origin's answer, the site's
 * `Tollgate-Command: release`, which ends the session and never reaches the visitor.
 */
import { clearedCookie, endedCookie, isSecureRequest, refreshCookie } from "../http/cookies.ts";
export { refreshCookie };
import { log } from "../lib/log.ts";
import type { SessionKeeper, SessionVerdict } from "../lib/session/keeper.ts";
import { releaseSession } from "../lib/session/release.ts";
import type { AccessClaims } from "../lib/tokens.ts";

/** The response header a site sets to end the visitor's session (through the origin proxy). */
export const COMMAND_HEADER = "tollgate-command";

/** The commands a site may give; each value of the header is one (docs/origin.md). */
const COMMANDS = new Set(["release"]);

/** How often one unknown command value is logged per keeper (ms): a site may send it each time. */
const WARN_EVERY_MS = 60_000;

/** When each unknown value was last logged, per keeper (bounded: values come from the site). */
const warned = new WeakMap<SessionKeeper, Map<string, number>>();

/**
 * The header's commands: every value of a comma-separated list (a header sent twice arrives as
 * one such list), trimmed and lower-cased, each once. Unknown values are refused with a log line.
 */
export function commandsOf(sessions: SessionKeeper, header: string): Set<string> {
  const out = new Set<string>();
  for (const raw of header.split(",")) {
    const value = raw.trim().toLowerCase();
    if (!value) continue;
    if (COMMANDS.has(value)) {
      out.add(value);
      continue;
    }
    const shown = value.slice(0, 64);
    let seen = warned.get(sessions);
    if (!seen) warned.set(sessions, seen = new Map());
    const now = sessions.deps.now();
    if (now - (seen.get(shown) ?? -Infinity) < WARN_EVERY_MS) continue;
    if (seen.size >= 64) seen.clear();
    seen.set(shown, now);
    log("warn", "unknown Tollgate-Command value refused", {
      value: shown,
      known: [...COMMANDS],
    });
  }
  return out;
}

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
  if (commandsOf(sessions, command).has("release") && claims) {
    try {
      await releaseSession(sessions, claims);
      h.append("Set-Cookie", clearedCookie("tg_access", isSecureRequest(req)));
      // The waiting room then says the visit ended, rather than queueing the visitor silently.
      h.append("Set-Cookie", endedCookie(claims.queue, isSecureRequest(req)));
      return out;
    } catch (e) {
      // The site's answer still goes out; the session ends with its time instead.
      log("warn", "release by origin header failed", { queue: claims.queue, error: String(e) });
    }
  }
  refreshCookie(h, req, verdict, ttl);
  return out;
}
