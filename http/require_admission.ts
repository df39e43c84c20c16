/**
 * Hono middleware for protected apps, on the plain checker of `lib/require_admission.ts`, and
 * `release()` beside it, for a site that ends the visitor's session itself (after checkout).
 */
import type { Context, MiddlewareHandler } from "hono";
import { errorBody } from "../lib/errors.ts";
import {
  admissionCheck,
  admissionChecker,
  type AdmissionOptions,
  releaseAdmission,
} from "../lib/require_admission.ts";
import type { Released } from "../lib/session/release.ts";
import type { AccessClaims } from "../lib/tokens.ts";
import { clearedCookie, isSecureRequest, refreshCookie } from "./cookies.ts";

export { admissionChecker, type AdmissionOptions };

/**
 * Hono middleware for protected apps: lets admitted visitors through with their claims in
 * `c.get("admission")`; anyone else gets 401 (or a redirect to the waiting room). With
 * `sessions`, ended sessions are refused and sliding ones renewed (the `tg_access` cookie is
 * refreshed on the answer when the token was re-issued).
 *
 * @example
 * app.use("/checkout/*", requireAdmission({ secret: Deno.env.get("TOKEN_SECRET")!, redirectTo: "/wait" }));
 */
export function requireAdmission(
  opts: AdmissionOptions,
): MiddlewareHandler<{ Variables: { admission: AccessClaims } }> {
  const check = admissionCheck(opts);
  const ttl = opts.sessions?.deps.ttlSeconds ?? 0;
  return async (c, next) => {
    const { claims, verdict } = await check(c.req.raw);
    if (!claims) {
      if (opts.redirectTo) {
        const to = typeof opts.redirectTo === "function"
          ? opts.redirectTo(c.req.raw)
          : opts.redirectTo;
        return c.redirect(to, 302);
      }
      return c.json(errorBody("unauthorized", "a valid access token is required"), 401);
    }
    c.set("admission", claims);
    await next();
    if (verdict?.token) {
      // On the response's own headers (c.header() after next() would copy the response).
      refreshCookie(c.res.headers, c.req.raw, verdict, ttl);
    }
  };
}

/**
 * Ends the session of the visitor `requireAdmission(opts)` let through on this request: its slot
 * is freed at once, its token refused from now on (on every instance within a second), its
 * `tg_access` cookie cleared on this answer. Needs `opts.sessions`.
 *
 * @example
 * app.post("/checkout/done", async (c) => { await release(c, gate); return c.json({ ok: true }); });
 */
export async function release(
  c: Context<{ Variables: { admission: AccessClaims } }>,
  opts: AdmissionOptions,
): Promise<Released> {
  const out = await releaseAdmission(opts, c.get("admission"));
  c.header("Set-Cookie", clearedCookie("tg_access", isSecureRequest(c.req.raw)), { append: true });
  return out;
}
