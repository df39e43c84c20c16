import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Services } from "../services.ts";
import { writeAudit } from "../../lib/admin/audit.ts";
import {
  deleteSession,
  readSession,
  SESSION_ABSOLUTE_MS,
  type SessionRecord,
} from "../../lib/admin/sessions.ts";
import { TOS_VERSION } from "../../lib/admin/tos.ts";
import { hitRateLimit, limitAddress } from "../../lib/admin/rate_limit.ts";
import { type AdminUser, getUser } from "../../lib/admin/users.ts";
import { clientIpOf } from "../../http/hono.ts";
import { AppError, ForbiddenError, UnauthorizedError } from "../../lib/errors.ts";
import { isSecureRequest, notePublicUrl } from "../../http/cookies.ts";
import { errors } from "../schemas.ts";
import { readLiveKind } from "../../lib/challenge/gate.ts";

/** The signed-in admin, set as `c.get("admin")` by `adminSession()`. */
export interface AdminIdentity {
  id: string;
  username: string;
}

/** Hono env of routes behind `adminSession()`. */
export type AdminEnv = { Variables: { admin: AdminIdentity } };

/** Name of the admin session cookie. */
export const ADMIN_COOKIE = "tg_admin";

/** A valid session and its admin, as found from the request's cookie. */
export interface CurrentSession {
  hash: string;
  record: SessionRecord;
  user: AdminUser;
}

/** The request's session and admin, or null (no cookie, unknown, expired, or admin removed). */
export async function currentSession(s: Services, c: Context): Promise<CurrentSession | null> {
  const found = await readSession(s, getCookie(c, ADMIN_COOKIE));
  if (!found) return null;
  const user = await getUser(s.kv, found.record.userId);
  return user.value ? { ...found, user: user.value } : null;
}

/** The origin admin writes must come from: `PUBLIC_URL`'s when set, else the request's own. */
export function expectedOrigin(s: Services, c: Context): string {
  return new URL(s.config.PUBLIC_URL ?? c.req.url).origin;
}

/** CSRF half two (SameSite=Strict is half one): a write must carry this service's `Origin`. */
function originOk(s: Services, c: Context): boolean {
  const m = c.req.method;
  if (m === "GET" || m === "HEAD" || m === "OPTIONS") return true;
  return c.req.header("origin") === expectedOrigin(s, c);
}

/**
 * True when cookies must be `Secure`: an HTTPS request, or a service published over HTTPS (the
 * one rule of http/cookies.ts; PUBLIC_URL is noted here too for a request that did not come
 * through the served handler).
 */
export function secureCookies(s: Services, c: Context): boolean {
  return isSecureRequest(notePublicUrl(c.req.raw, s.config.PUBLIC_URL));
}

/** Sets `tg_admin` (HttpOnly, Path=/, SameSite=Strict, Secure over HTTPS). */
export function setSessionCookie(s: Services, c: Context, sessionId: string): void {
  setCookie(c, ADMIN_COOKIE, sessionId, {
    httpOnly: true,
    path: "/",
    sameSite: "Strict",
    secure: secureCookies(s, c),
    maxAge: Math.floor(SESSION_ABSOLUTE_MS / 1000),
  });
}

/** Clears `tg_admin`. */
export function clearSessionCookie(s: Services, c: Context): void {
  // The attributes it was set with, so the clearing cookie matches it (HttpOnly included).
  deleteCookie(c, ADMIN_COOKIE, {
    httpOnly: true,
    path: "/",
    sameSite: "Strict",
    secure: secureCookies(s, c),
  });
}

/** 403 `forbidden` for a valid session whose admin has not accepted the current ToS. */
function staleTosError(): AppError {
  return new AppError(
    403,
    "forbidden",
    `accept the current terms of service (${TOS_VERSION}) first`,
    { tosVersion: TOS_VERSION, needsTos: true },
  );
}

/** 403 `forbidden` for a write whose Origin is missing or foreign. */
function foreignOriginError(s: Services, c: Context): ForbiddenError {
  return new ForbiddenError(
    `admin writes must come from ${expectedOrigin(s, c)} (Origin header missing or foreign)`,
  );
}

/**
 * The session gate of every admin route: false when the request carries no valid session (no
 * cookie, unknown or expired, admin removed); 403 `forbidden` for a valid one that may not act (a
 * write without this service's Origin, or a stale ToS acceptance unless `allowStaleTos`). On
 * success the admin is set as `c.get("admin")` (routes and audit read it).
 */
async function authorize(s: Services, c: Context, allowStaleTos: boolean): Promise<boolean> {
  const cur = await currentSession(s, c);
  if (!cur) return false;
  if (!originOk(s, c)) throw foreignOriginError(s, c);
  if (!allowStaleTos && cur.user.acceptedTosVersion !== TOS_VERSION) throw staleTosError();
  c.set("admin", { id: cur.user.id, username: cur.user.username });
  return true;
}

/**
 * Requires a valid `tg_admin` session (401 `unauthorized`), an accepted current ToS unless
 * `allowStaleTos` (403 `forbidden`), and on writes an Origin of this service (403 `forbidden`).
 */
export function adminSession(
  s: Services,
  opts: { allowStaleTos?: boolean } = {},
): MiddlewareHandler<AdminEnv> {
  return async (c, next) => {
    // Already checked for this request (the default-on gate of every admin path ran first).
    if (c.get("admin")) return await next();
    if (!(await authorize(s, c, opts.allowStaleTos ?? false))) {
      throw new UnauthorizedError("admin session required (sign in again)");
    }
    await next();
  };
}

/**
 * For the operator endpoints: true with a valid admin session, false without one (the caller
 * answers 401); 403 as `adminSession()` for a session that may not act.
 */
export function sessionChecker(s: Services): (c: Context) => Promise<boolean> {
  return (c) => authorize(s, c, false);
}

/**
 * Deletes the session behind the `tg_admin` cookie the request carried, if any. Called when a
 * sign-in (login, claim, invite accept, recovery) replaces it: the browser gets a new cookie, so
 * the old session would otherwise live on unreachable, or reachable to whoever planted it.
 */
export async function dropPresentedSession(s: Services, c: Context): Promise<void> {
  const presented = getCookie(c, ADMIN_COOKIE);
  if (presented) await deleteSession(s, presented);
}

/** The gate of a public, rate-limited call: counts the try for this address, then the challenge. */
export async function publicGate(
  s: Services,
  c: Context,
  kind: "invite" | "recover",
  challengeResponse: string | undefined,
): Promise<void> {
  const ip = clientIpOf(c, s.config);
  await hitRateLimit(s.kv, s.clock, kind, limitAddress(ip));
  await requireChallenge(s, challengeResponse, ip);
}

/** The OpenAPI answer of a call behind the bot-challenge gate when the gate cannot decide. */
export const challengeUnavailable = {
  503: {
    description:
      "the bot challenge is configured but cannot be checked (`challenge_unavailable`, " +
      "`details.reason`: `provider` with `Retry-After` when Turnstile gave one, " +
      "`secret_rejected` or `secret_unreadable`); nobody is let in",
    content: errors[503].content,
  },
};

/**
 * Refuses with 401 `unauthorized` unless the bot challenge passes (it always does while none is
 * configured); `details.challenge` says "required" (no response sent) or "failed", so the sign-in
 * page knows to show a fresh widget, and `details.kind` which check (`builtin` or `turnstile`). A gate that cannot check throws its own 503.
 */
export async function requireChallenge(
  s: Services,
  challengeResponse: string | undefined,
  ip: string,
  opts: { stepUp?: boolean } = {},
): Promise<void> {
  if (!(await s.challenge.verify(challengeResponse, ip, opts))) {
    const sent = !!challengeResponse?.trim();
    throw new AppError(
      401,
      "unauthorized",
      sent
        ? "bot challenge failed; solve it again and retry"
        : "bot challenge required; solve it and try again",
      // `account_failures`: this account's failed sign-ins made the challenge necessary. `kind`
      // tells a script which check to solve (a step-up without one configured is the built-in).
      {
        challenge: sent ? "failed" : "required",
        kind: (await readLiveKind(s.kv)) ?? "builtin",
        ...(opts.stepUp ? { reason: "account_failures" } : {}),
      },
    );
  }
}

/**
 * Completes a sign-in: replaces a presented session, sets the new cookie, acts as that admin and
 * audits `action` under that admin's name.
 */
export async function signIn(
  s: Services,
  c: Context,
  out: { sessionId: string; user: { id: string; username: string } },
  action: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await dropPresentedSession(s, c);
  setSessionCookie(s, c, out.sessionId);
  c.set("admin", { id: out.user.id, username: out.user.username });
  await audit(s, c, action, detail);
}

/** Writes an audit entry: who (the session's admin or "bearer"), what, when, from where. */
export async function audit(
  s: Services,
  c: Context,
  action: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  const admin = c.get("admin") as AdminIdentity | undefined;
  await writeAudit(s.kv, s.clock, {
    actor: admin?.username ?? "bearer",
    action,
    ip: clientIpOf(c, s.config),
    detail,
  });
}
