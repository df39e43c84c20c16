/** Domain errors: one class per envelope code family, mapped to HTTP by `app.ts`. */
export class AppError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 502 | 503 | 504,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "AppError";
  }
}

/** 400 `bad_request`: the input failed validation. */
export class BadRequestError extends AppError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(400, "bad_request", message, details);
  }
}

/** 401 `unauthorized`: missing or invalid ticket, token or credential. */
export class UnauthorizedError extends AppError {
  constructor(message: string) {
    super(401, "unauthorized", message);
  }
}

/** 403 `forbidden` (or `geo_blocked`): authenticated but not allowed. */
export class ForbiddenError extends AppError {
  constructor(message: string, code: "forbidden" | "geo_blocked" = "forbidden") {
    super(403, code, message);
  }
}

/** 429 `rate_limited`; `app.ts` sends `retryAfterSeconds` as `Retry-After` (as for any error). */
export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    message = `too many attempts; try again in ${retryAfterSeconds} s`,
    details: Record<string, unknown> = {},
  ) {
    super(429, "rate_limited", message, { retryAfterSeconds, ...details });
  }
}

/** 404 `unknown_queue`, `not_in_queue` or `not_found`. */
export class NotFoundError extends AppError {
  constructor(code: "unknown_queue" | "not_in_queue" | "not_found", message: string) {
    super(404, code, message);
  }
}

/** 409 `not_admitted` or `conflict`. */
export class ConflictError extends AppError {
  constructor(code: "not_admitted" | "conflict", message: string) {
    super(409, code, message);
  }
}

/** 503 `queue_full`: the waiting-row cap is reached. */
export class QueueFullError extends AppError {
  constructor(queue: string, max: number) {
    super(503, "queue_full", `queue "${queue}" is full (${max} waiting)`, {
      queue,
      maxWaitingVisitors: max,
    });
  }
}

/** 503 `not_open`: a queue with a pre-queue takes no joins before its window (never says when). */
export class NotOpenError extends AppError {
  constructor(queue: string) {
    super(503, "not_open", `queue "${queue}" is not open yet`, { queue });
  }
}

/** 409 `draw_committed`: the opening draw's commitment is out, so its opening time is fixed. */
export class DrawCommittedError extends AppError {
  constructor(message: string) {
    super(409, "draw_committed", message);
  }
}

/** 404 `no_draw`: the queue has no opening-draw record, or it is not published. */
export class NoDrawError extends AppError {
  constructor(queue: string, why: string) {
    super(404, "no_draw", `queue "${queue}" has no ${why} opening draw`, { queue });
  }
}

/**
 * `edge_error`: the edge provider (Cloudflare) refused or failed a call. 400 when the operator must
 * fix something (token, permission, name), 429 rate limited (`Retry-After`), 502 unreachable or
 * failing, 504 timed out; `details` carry the provider's own errors, never the token.
 */
export class EdgeError extends AppError {
  constructor(
    status: 400 | 429 | 502 | 504,
    message: string,
    details: Record<string, unknown>,
    readonly retryAfterSeconds?: number,
  ) {
    super(status, "edge_error", message, details);
  }
}

/** The JSON error envelope */
export function errorBody(code: string, message: string, details: Record<string, unknown> = {}) {
  return { error: { code, message, details } };
}

/**
 * 503 `store_busy`: the store did not take a write in time (locked by another process, slow, or
 * every attempt lost its check to other writers). Nothing was changed by this request, except a
 * write still pending in the store when time ran out, which its checks keep from applying twice.
 */
export class StoreBusyError extends AppError {
  readonly retryAfterSeconds = 2;
  constructor(what: string, why: string) {
    super(503, "store_busy", `${what}: ${why}; try again in a few seconds`, {
      retryAfterSeconds: 2,
    });
  }
}

/**
 * 503 `store_busy` for a join whose write may still land after its answer (a store that answered
 * late, an instance paused mid-commit). It carries the ticket of the id the join tried, set as
 * `tg_ticket` on the answer: a retry with it resumes that place if it was written after all, or
 * joins under the same id if not, so a visitor told 503 never holds two places.
 */
export class JoinUnconfirmedError extends StoreBusyError {
  constructor(why: string, readonly visitorId: string, readonly ticket: string) {
    super("join", why);
    this.details.visitorId = visitorId;
  }
}
