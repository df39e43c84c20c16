import { readVisitorRequest } from "./origin/request.ts";
import type { SessionKeeper, SessionVerdict } from "./session/keeper.ts";
import { type Released, releaseSession } from "./session/release.ts";
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
  /**
   * The service's sessions (`services.sessions`, in the same process as Tollgate): ended
   * sessions are refused, sliding ones renewed, and `release()` can end one. Without it only the
   * signature and expiry are checked, with no store at all.
   */
  sessions?: SessionKeeper;
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

/** What `admissionCheck` says of a request: its claims (null: not admitted) and the session's. */
export interface Admission {
  claims: AccessClaims | null;
  verdict: SessionVerdict | null;
}

/** The full check of `requireAdmission()`: signature, expiry, queue, then the session. */
export function admissionCheck(opts: AdmissionOptions): (req: Request) => Promise<Admission> {
  const signer = typeof opts.secret === "string" ? new Signer(opts.secret) : opts.secret;
  const now = opts.now ?? (() => Date.now());
  return async (req) => {
    const signed = await verifyAnyToken(signer, req, now(), opts.queue);
    if (!signed || !opts.sessions) return { claims: signed, verdict: null };
    const verdict = await opts.sessions.check(signed);
    return { claims: verdict.ok ? signed : null, verdict };
  };
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
  const check = admissionCheck(opts);
  return async (req) => (await check(req)).claims;
}

/**
 * Ends the session of the visitor admitted with `claims` (after checkout, say): its slot is free
 * for the next tick and its token refused from now on. Needs `opts.sessions`.
 *
 * @example
 * const released = await releaseAdmission(gate, claims);
 */
export async function releaseAdmission(
  opts: AdmissionOptions,
  claims: AccessClaims,
): Promise<Released> {
  if (!opts.sessions) {
    throw new TypeError("release() needs the `sessions` option (services.sessions)");
  }
  return await releaseSession(opts.sessions, claims);
}
