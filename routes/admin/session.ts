// PLACEHOLDER CONTRACT: replaced by the accounts work. Keep these exports and signatures.
import type { Context, MiddlewareHandler } from "hono";
import type { Services } from "../../app.ts";
import { UnauthorizedError } from "../../lib/errors.ts";

/** The signed-in admin, set as `c.get("admin")` by `adminSession()`. */
export interface AdminIdentity {
  id: string;
  username: string;
}

/** Hono env of routes behind `adminSession()`. */
export type AdminEnv = { Variables: { admin: AdminIdentity } };

/**
 * Requires a valid `tg_admin` session (401 `unauthorized`), an accepted current ToS unless
 * `allowStaleTos` (403 `forbidden`), and on writes an Origin of this service (403 `forbidden`).
 */
export function adminSession(
  _s: Services,
  _opts: { allowStaleTos?: boolean } = {},
): MiddlewareHandler<AdminEnv> {
  return () => {
    throw new UnauthorizedError("admin session required");
  };
}

/** True when the request carries a valid admin session (for the operator endpoints). */
export function sessionChecker(_s: Services): (c: Context) => Promise<boolean> {
  return () => Promise.resolve(false);
}

/** Writes an audit entry: who (the session's admin or "bearer"), what, when, from where. */
export function audit(
  _s: Services,
  _c: Context,
  _action: string,
  _detail: Record<string, unknown> = {},
): Promise<void> {
  return Promise.resolve();
}
