import { routingPath } from "./normalize_path.ts";

/**
 * The paths Tollgate answers itself: never proxied to the origin, whatever the origin proxy
 * setting. This is the one list; the proxy gate (routes/origin.ts) and its tests read it.
 */

/**
 * Each entry is a first path segment: the exact path and everything below it are ours
 * (`/wait`, `/wait/enter`, `/api/admin/state`, `/static/build/wait-….js`). A path that only
 * starts with the same letters (`/waiting`, `/statusboard`) is the origin's.
 */
export const OWN_PATH_SEGMENTS = [
  "join",
  "status",
  "leave",
  "heartbeat",
  "enter",
  "verify",
  // The site ends a visitor's session (lib/session/release.ts).
  "release",
  "wait",
  "demo",
  "cost",
  "api",
  "admin",
  "health",
  "openapi.json",
  "admit",
  "mode",
  "pause",
  "metrics",
  // The opening draw's public record and its check page (`/draw`, `/draw/verify`).
  "draw",
  // The built page assets (routes/pages/assets.ts serves `/static/*`).
  "static",
  // Moving a place to another device, and the e-mail at the turn (routes/resume.ts).
  "resume",
  "turn-email",
] as const;

const OWN_PATH = new RegExp(
  `^/(?:${OWN_PATH_SEGMENTS.map((s) => s.replace(/\./g, "\\.")).join("|")})(?:/|$)`,
  "i",
);

/**
 * True when `pathname` (the URL path, without the query) belongs to Tollgate, in any spelling
 * an origin might route the same way (escaped or double-escaped letters, another letter case,
 * dot segments, repeated slashes, `;parameters`); a spelling still changing after several
 * rounds of decoding is ambiguous and counted as ours (Tollgate answers it, never the origin).
 *
 * @example
 * isOwnPath("/wait"); // true
 * isOwnPath("/api/admin/origin"); // true
 * isOwnPath("/%2541PI/admin/state"); // true: an origin that decodes twice routes it to /api
 * isOwnPath("/waiting-list"); // false: the origin's
 */
export function isOwnPath(pathname: string): boolean {
  if (OWN_PATH.test(pathname)) return true;
  const routed = routingPath(pathname);
  return routed === null || OWN_PATH.test(routed);
}
