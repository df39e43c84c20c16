/** Queue names: lower-case letters, digits, `_` and `-`, 1 to 64, not starting with `_`/`-`. */
export const QUEUE_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Visitor ids: 8 to 64 URL-safe characters. */
export const VISITOR_ID_RE = /^[A-Za-z0-9_-]{8,64}$/;

/** Largest request body accepted, in bytes (larger gets 413). */
export const MAX_BODY_BYTES = 64 * 1024;

/** The admission modes: first come first served (`queue`) or a fair draw (`lottery`). */
export const MODES = ["queue", "lottery"] as const;
