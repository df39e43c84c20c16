/**
 * How the login gate fails: closed, with 503 `challenge_unavailable` saying why and what to do,
 * never a silent pass. (Provider failures of the setup steps are `edge_error`s, mapped by
 * lib/edge/failure.ts like every other Cloudflare call.)
 */
import { AppError } from "../errors.ts";

/** Why the gate could not decide. */
export type UnavailableReason = "provider" | "secret_unreadable" | "secret_rejected";

/**
 * 503 `challenge_unavailable`: a challenge is configured but cannot be checked right now;
 * `retryAfterSeconds` (sent as `Retry-After`) when Turnstile said how long to wait.
 */
export class ChallengeUnavailableError extends AppError {
  constructor(
    reason: UnavailableReason,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(503, "challenge_unavailable", message, { reason });
  }
}

/** Why a proof-of-work solution was refused (`error.details.reason` of `challenge_failed`). */
export type PowFailure =
  /** Not a challenge string and a decimal nonce of at most 12 digits. */
  | "malformed"
  /** The signature does not match: altered, made up, or issued to another client. */
  | "forged"
  /** Past the challenge's expiry. */
  | "expired"
  /** This challenge was already solved and used once. */
  | "replayed"
  /** Issued for another queue (or another sign-in form). */
  | "wrong_scope"
  /** Issued for another purpose (a sign-in challenge sent to join, or the reverse). */
  | "wrong_purpose"
  /** Easier than the caller now requires (the operator raised the difficulty since). */
  | "too_easy"
  /** The nonce does not meet the challenge's difficulty. */
  | "not_solved"
  /** Turnstile refused the response (join with Turnstile picked). */
  | "turnstile";

/**
 * 403 `challenge_required`: a proof-of-work solution (or a Turnstile response) is needed;
 * `details.challenge` carries a fresh challenge to solve.
 */
export class ChallengeRequiredError extends AppError {
  constructor(message: string, details: Record<string, unknown>) {
    super(403, "challenge_required", message, details);
  }
}

/**
 * 403 `challenge_failed`: the solution sent was refused; `details.reason` says why and, where the
 * caller gives one, `details.challenge` is a fresh challenge to try again with.
 */
export class ChallengeFailedError extends AppError {
  constructor(readonly reason: PowFailure, message: string, details: Record<string, unknown> = {}) {
    super(403, "challenge_failed", message, { reason, ...details });
  }

  /** The same refusal with more details (a fresh challenge). */
  with(details: Record<string, unknown>): ChallengeFailedError {
    return new ChallengeFailedError(this.reason, this.message, { ...this.details, ...details });
  }
}
