/** Hono middleware for protected apps, on the plain checker of `lib/require_admission.ts`. */
import type { MiddlewareHandler } from "hono";
import { errorBody } from "../lib/errors.ts";
import { admissionChecker, type AdmissionOptions } from "../lib/require_admission.ts";
import type { AccessClaims } from "../lib/tokens.ts";

export { admissionChecker, type AdmissionOptions };

/**
 * Hono middleware for protected apps: lets admitted visitors through with their claims in
 * `c.get("admission")`; anyone else gets 401 (or a redirect to the waiting room).
 *
 * @example
 * app.use("/checkout/*", requireAdmission({ secret: Deno.env.get("TOKEN_SECRET")!, redirectTo: "/wait" }));
 */
export function requireAdmission(
  opts: AdmissionOptions,
): MiddlewareHandler<{ Variables: { admission: AccessClaims } }> {
  const check = admissionChecker(opts);
  return async (c, next) => {
    const claims = await check(c.req.raw);
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
  };
}
