import { readVisitorRequest } from "./origin/request.ts";
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
): Promise<AccessClaims | null> {
  // The proxy's reading of a request: each place in turn, so a site's own bearer token does not
  // hide a valid `tg_access` cookie.
  return (await readVisitorRequest(signer, req, nowMs, queue)).claims;
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
