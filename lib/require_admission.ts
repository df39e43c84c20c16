import type { MiddlewareHandler } from "hono";
import { errorBody } from "./errors.ts";
import { type ReadOptions, readVisitorRequest } from "./origin/request.ts";
import { type AccessClaims, Signer } from "./tokens.ts";

/** Options of `requireAdmission()`. */
export interface AdmissionOptions {
  /** The service's `TOKEN_SECRET` (or a ready `Signer`). */
  secret: string | Signer;
  /** Accept only tokens for this queue. */
  queue?: string;
  /** Clock in unix ms (tests). */
  now?: () => number;
  /** Where to send an unadmitted browser (e.g. `/wait?return=/demo`); otherwise 401 JSON. */
  redirectTo?: string | ((req: Request) => string);
}

/** Claims of the first valid access token among those `req` carries, or null. */
export async function verifyAnyToken(
  signer: Signer,
  req: Request,
  nowMs: number,
  queue?: string,
  opts?: ReadOptions,
): Promise<AccessClaims | null> {
  // The proxy's reading of a request: each place in turn, so a site's own bearer token does not
  // hide a valid `tg_access` cookie.
  return (await readVisitorRequest(signer, req, nowMs, queue, opts)).claims;
}

/**
 * A plain check for any stack: `(Request) => claims | null`.
 *
 * @example
 * const check = admissionChecker({ secret: Deno.env.get("TOKEN_SECRET")! });
 * const claims = await check(request); // null when not admitted
 */
export function admissionChecker(
  opts: AdmissionOptions,
): (req: Request) => Promise<AccessClaims | null> {
  const signer = typeof opts.secret === "string" ? new Signer(opts.secret) : opts.secret;
  const now = opts.now ?? (() => Date.now());
  return (req) => verifyAnyToken(signer, req, now(), opts.queue);
}

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
