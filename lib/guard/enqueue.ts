/**
 * Enqueue tokens: the operator's own site vouches for a person before they join, and names them
 * by a key (an account id, an order number, a hashed e-mail). The format is the access token's:
 * `base64url(JSON payload) + "." + base64url(HMAC-SHA256(ENQUEUE_SECRET, base64url payload))`,
 * with exactly the claims `queue`, `key` and `exp` (unix seconds), and optionally `lane` (a lane
 * token: the priority lane the site puts the person in). A key holds at most one place
 * or admission per queue; joining again with it resumes that place, from any browser.
 */
import { AppError } from "../errors.ts";
import { HmacSha256, sha256 } from "../hmac.ts";
import { b64url, fromB64url, timingSafeEqual } from "../tokens.ts";
import { LANE_NAME_RE } from "../priority/lanes.ts";

/** The claims of an enqueue token. */
export interface EnqueueClaims {
  queue: string;
  /** The person, as the operator's site names them (1 to 256 characters). */
  key: string;
  exp: number;
  /**
   * A priority lane the site puts the person in (a lane token: the same format with a `lane`
   * claim; lib/priority/lanes.ts). Optional: a token without it is a plain enqueue token.
   */
  lane?: string;
}

/** Why an enqueue token was refused (`error.details.reason` of `enqueue_token_invalid`). */
export type EnqueueFailure = "malformed" | "forged" | "expired" | "wrong_queue";

/** 403 `enqueue_token_required`: this queue lets in only visitors its site sent with a token. */
export class EnqueueTokenRequiredError extends AppError {
  constructor(queue: string) {
    super(
      403,
      "enqueue_token_required",
      `queue "${queue}" needs an enqueue token from the site that sent you here`,
      { queue },
    );
  }
}

/** 403 `enqueue_token_invalid`: the token sent was refused; `details.reason` says why. */
export class EnqueueTokenInvalidError extends AppError {
  constructor(readonly reason: EnqueueFailure, message: string) {
    super(403, "enqueue_token_invalid", message, { reason });
  }
}

const enc = new TextEncoder();
const dec = new TextDecoder();
/** Longest token accepted (a 256-character key fits with room to spare). */
const MAX_TOKEN_LENGTH = 1024;

/** Signs and verifies enqueue tokens with `ENQUEUE_SECRET`. */
export class EnqueueTokens {
  readonly #hmac: HmacSha256;

  constructor(secret: string) {
    this.#hmac = new HmacSha256(enc.encode(secret));
  }

  /** Signs a token (the operator's side does the same; see docs/examples/enqueue_token.*). */
  sign(claims: EnqueueClaims): string {
    const body = b64url(enc.encode(JSON.stringify(claims)));
    return `${body}.${b64url(this.#hmac.mac(body))}`;
  }

  /** Verifies a token for `queue` at `nowMs`; throws `EnqueueTokenInvalidError` saying why. */
  verify(token: unknown, queue: string, nowMs: number): EnqueueClaims {
    const malformed = () =>
      new EnqueueTokenInvalidError(
        "malformed",
        "enqueueToken is not a token of the form payload.signature with the claims queue, key, exp",
      );
    if (typeof token !== "string" || token.length > MAX_TOKEN_LENGTH) throw malformed();
    const dot = token.indexOf(".");
    if (dot <= 0 || dot !== token.lastIndexOf(".")) throw malformed();
    const body = token.slice(0, dot);
    const sig = fromB64url(token.slice(dot + 1));
    if (!sig || sig.length !== 32) throw malformed();
    if (!timingSafeEqual(sig, this.#hmac.mac(body))) {
      throw new EnqueueTokenInvalidError(
        "forged",
        "enqueueToken's signature does not match (signed with another ENQUEUE_SECRET, or altered)",
      );
    }
    let p: Record<string, unknown>;
    try {
      p = JSON.parse(dec.decode(fromB64url(body) ?? new Uint8Array()));
    } catch {
      throw malformed();
    }
    const { queue: q, key, exp, lane } = p ?? {};
    const claims = typeof p === "object" && p !== null ? Object.keys(p).length : 0;
    if (
      typeof p !== "object" || Array.isArray(p) || claims !== (lane === undefined ? 3 : 4) ||
      typeof q !== "string" || typeof key !== "string" || key.length < 1 || key.length > 256 ||
      !Number.isInteger(exp) ||
      (lane !== undefined && (typeof lane !== "string" || !LANE_NAME_RE.test(lane)))
    ) throw malformed();
    if ((exp as number) * 1000 <= nowMs) {
      throw new EnqueueTokenInvalidError("expired", "enqueueToken has expired");
    }
    if (q !== queue) {
      throw new EnqueueTokenInvalidError(
        "wrong_queue",
        `enqueueToken is for queue "${q}", not "${queue}"`,
      );
    }
    const out: EnqueueClaims = { queue: q, key, exp: exp as number };
    if (lane !== undefined) out.lane = lane as string;
    return out;
  }
}

/** The key as stored: SHA-256 of it, base64url (bounded length, and the raw key is not kept). */
export function keyHash(key: string): string {
  return b64url(sha256(enc.encode(key)));
}
