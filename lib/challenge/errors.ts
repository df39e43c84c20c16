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
