import { createRoute, z } from "@hono/zod-openapi";
import { MODES, QUEUE_NAME_RE, VISITOR_ID_RE } from "../lib/names.ts";
import { LOTTERY_MODE_WORDS, QUEUE_MODE_WORDS } from "../lib/queue/wording.ts";
import { asciiEmail } from "../lib/notify/address.ts";

/** An admission mode: `queue` (first come, first served) or `lottery` (each admission a random pick among everyone waiting). */
export const ModeSchema = z.enum(MODES);

export const QueueName = z.string().regex(QUEUE_NAME_RE, {
  message: "queue must match ^[a-z0-9][a-z0-9_-]{0,63}$",
}).openapi({ example: "default" });
export const VisitorId = z.string().regex(VISITOR_ID_RE, {
  message: "visitorId must match ^[A-Za-z0-9_-]{8,64}$",
}).openapi({ example: "k3J9x_2mQ8aZ" });

/**
 * An e-mail address; its domain may be in any script (sent as punycode: lib/notify/address.ts).
 * `asciiEmail()` gives the form to send.
 */
export const EmailAddress = (field: string) =>
  z.string().max(254).refine((v) => asciiEmail(v) !== null, {
    message: `${field} must be an e-mail address`,
  }).openapi({
    description: "an e-mail address; a domain in any script is sent in its ASCII form (punycode)",
    example: "ann@bücher.example",
  });

export const ErrorEnvelope = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
}).openapi("Error");

export const VisitorView = z.object({
  queue: z.string(),
  visitorId: z.string(),
  status: z.enum(["waiting", "admitted"]),
  admissionMode: ModeSchema.optional().openapi({
    description: `${QUEUE_MODE_WORDS} ${LOTTERY_MODE_WORDS}`,
  }),
  nextCheckAt: z.number().int().optional().openapi({ description: "unix ms, second-aligned" }),
  nextPollAfterMs: z.number().int().optional(),
  estimatedWaitSeconds: z.number().optional().openapi({
    description: "expected wait from now, counted from the opening when the queue is not open " +
      "yet (never the time until the opening). Queue mode: position / admission rate. Lottery " +
      "mode: waiting / admission rate, the mean of a wait that is a fresh draw at every " +
      "admission (many wait much less, some much longer). Pre-queue before its draw " +
      "(`drawPending`): the expected wait after the opening for a random place among the " +
      "participants, ((participants + 1) / 2) / admission rate",
  }),
  position: z.number().int().optional().openapi({
    description: "1-based; queue mode only, and not before a pre-queue's opening draw",
  }),
  positionExact: z.boolean().optional().openapi({
    description: "false while `position` is provisional: a join not numbered into the line by " +
      "the queue's tick yet (at most one tick); absent or true once it is exact",
  }),
  lane: z.string().optional().openapi({
    description: "the priority lane the visitor waits in (a priority code or lane token put it " +
      "there): `position` counts that lane's line only, and the wait is at the lane's pace",
  }),
  ahead: z.number().int().optional(),
  behind: z.number().int().optional(),
  waiting: z.number().int().optional(),
  lotteryOdds: z.number().optional().openapi({
    description: "chance that the visitor's next due check-in is drawn",
  }),
  drawPending: z.boolean().optional().openapi({
    description: "pre-queue: true until the opening draw has placed the visitor (no position " +
      "meanwhile); nobody is admitted before it. A check-in that comes while the draw runs " +
      "is held until it is done (at most 4 s) and answered with the place; the first check-in " +
      "after the draw gets its next `nextCheckAt` by the drawn place",
  }),
  arrivalNumber: z.number().int().optional().openapi({
    description: "pre-queue, before the draw: the visitor's entry in the draw's list (keep it " +
      "to find your place in the published record)",
  }),
  drawCommitment: z.string().optional().openapi({
    description: "pre-queue, before the draw: hex SHA-256 of the draw's secret seed, " +
      "published when the window opened; the seed revealed at the opening must hash to it",
  }),
  accessToken: z.string().optional(),
  entered: z.boolean().optional(),
  enterBy: z.number().int().optional().openapi({
    description: "click-to-enter: unix ms by which the admission must be confirmed",
  }),
}).openapi("VisitorView");

export const VisitorBody = z.object({ queue: QueueName, visitorId: VisitorId }).openapi(
  "VisitorRef",
);
/** A challenge as `challenge_required` and `challenge_failed` carry it in `details.challenge`. */
export const PowChallengeView = z.object({
  challenge: z.string().openapi({ description: "the signed challenge; send it back unchanged" }),
  algorithm: z.literal("SHA-256"),
  seed: z.string().openapi({ description: "43 characters hashed in front of each nonce" }),
  difficulty: z.number().int().openapi({ description: "expected number of tries" }),
  threshold: z.number().int().openapi({
    description: "a nonce solves when the first 4 bytes of SHA-256(seed + nonce), big-endian, " +
      "are below this (floor(2^32 / difficulty))",
  }),
  expiresAt: z.number().int().openapi({ description: "unix ms" }),
}).openapi("PowChallenge");

/** `details` of `challenge_required` / `challenge_failed` on join. */
export const ChallengeDetails = z.object({
  queue: z.string().optional(),
  reason: z.enum([
    "malformed",
    "forged",
    "expired",
    "replayed",
    "wrong_scope",
    "wrong_purpose",
    "too_easy",
    "not_solved",
    "turnstile",
  ]).optional().openapi({ description: "challenge_failed only: why the answer was refused" }),
  challenge: PowChallengeView.nullable().openapi({
    description: "a fresh built-in challenge to solve (null: Turnstile alone is asked for)",
  }),
  turnstile: z.object({ siteKey: z.string() }).nullable().openapi({
    description: "Turnstile's site key when its widget must be solved too (or instead)",
  }),
}).openapi("ChallengeDetails");

/** A solution of the built-in proof-of-work challenge (see docs/abuse.md). */
export const PowSolution = z.object({
  challenge: z.string().min(1).max(256).openapi({
    description:
      "`error.details.challenge.challenge` of the `challenge_required` answer, unchanged",
  }),
  nonce: z.string().regex(/^(0|[1-9][0-9]{0,11})$/, {
    message: "nonce must be a decimal number of at most 12 digits",
  }).openapi({
    description: "decimal; the first 4 bytes of SHA-256(seed + nonce), big-endian, are below " +
      "the challenge's threshold",
  }),
}).openapi("PowSolution");

export const JoinBody = z.object({
  queue: QueueName,
  visitorId: VisitorId.optional(),
  proof: PowSolution.optional().openapi({
    description: "the solved proof-of-work challenge, while the queue's bot challenge is on",
  }),
  turnstileResponse: z.string().min(1).max(2048).optional().openapi({
    description: "the Turnstile widget's response, where the queue asks for Turnstile",
  }),
  enqueueToken: z.string().min(1).max(1024).optional().openapi({
    description: "the operator site's enqueue token (claims queue, key, exp; HMAC-SHA256 with " +
      "ENQUEUE_SECRET): one place per key",
  }),
  priorityCode: z.string().min(1).max(64).optional().openapi({
    description: "a priority code the operator issued: the place goes into the code's lane " +
      "(a place held already moves to the back of that lane); one use is counted",
  }),
}).openapi("JoinRequest");

const HealthState = z.enum(["unmonitored", "healthy", "unhealthy"]);

/** The probe timing and thresholds of the health throttle (snapshot and admin view). */
export const healthProbeFields = {
  intervalSeconds: z.number().int(),
  timeoutMs: z.number().int(),
  failures: z.number().int(),
  recoveries: z.number().int(),
};

/** The origin health snapshot (operator `/metrics` per queue, and the admin metrics). */
export const HealthSnapshotView = z.object({
  state: HealthState.openapi({
    description: "what admissions follow: the override when set, else the probed state",
  }),
  probed: HealthState,
  override: z.enum(["healthy", "unhealthy"]).nullable(),
  consecutiveFailures: z.number().int(),
  consecutiveSuccesses: z.number().int(),
  lastCheckedAt: z.number().int().nullable(),
  lastError: z.string().nullable().openapi({ description: "names the host only" }),
  config: z.object({
    enabled: z.boolean(),
    host: z.string().nullable(),
    ...healthProbeFields,
  }),
}).openapi("HealthSnapshot");

/** Refused and challenged joins of the last hour (metrics and the admin's join guards). */
export const JoinGuardCounts = z.object({
  rateLimited: z.number().int().openapi({ description: "joins refused by the per-client limit" }),
  challengesIssued: z.number().int(),
  challengesSolved: z.number().int().openapi({ description: "solutions that verified" }),
  challengesFailed: z.number().int().openapi({
    description: "solutions or Turnstile responses refused (forged, expired, replayed, ...)",
  }),
  enqueueTokensRefused: z.number().int(),
  shadowPlaced: z.number().int().openapi({
    description: "joins given a place in the shadow line (never admitted, never stored)",
  }),
}).openapi("JoinGuardCounts");

export const Metrics = z.object({
  queue: z.string(),
  waiting: z.number().int(),
  capacity: z.number().int(),
  entered: z.number().int(),
  holding: z.number().int(),
  openSlots: z.number().int(),
  paused: z.boolean(),
  healthPaused: z.boolean(),
  opensAt: z.number().int().nullable(),
  admitPerSecond: z.number(),
  admissionMode: ModeSchema,
  estimatedWaitSeconds: z.number(),
  averageWaitSeconds: z.number(),
  oldestWaitSeconds: z.number(),
  abandoned: z.number().int(),
  silent: z.number().int().openapi({
    description: "waiters past their check-in but within the queue's returnGraceSeconds: they " +
      "keep their place and are passed over by admissions until they come back",
  }),
  returned: z.number().int().openapi({
    description: "silent waiters that came back within their grace (ever)",
  }),
  lanes: z.array(z.object({
    lane: z.string(),
    waiting: z.number().int().openapi({ description: "numbered into the lane's line" }),
    admitted: z.number().int().openapi({ description: "admitted from the lane (ever)" }),
  })).openapi({ description: "priority lanes that had a line (counted in `waiting` too)" }),
  admittedTotal: z.number().int(),
  health: HealthSnapshotView,
  viewAgeMs: z.number().int().openapi({
    description: "How old the counts and settings shown are, in ms (each instance reads them " +
      "from the store at most once a second, so this stays under about 1000).",
  }),
  joinGuards: JoinGuardCounts,
  prequeue: z.object({
    enabled: z.boolean(),
    windowMinutes: z.number().int().nullable(),
    phase: z.enum(["off", "before", "window", "drawing", "drawn"]).openapi({
      description: "before: joins refused (`not_open`); window: joins wait for the draw; " +
        "drawing: past opensAt, places being assigned; drawn: admissions follow the order",
    }),
    participants: z.number().int().openapi({
      description: "waiting from the window before the draw; the list's size after it",
    }),
    commitment: z.string().nullable(),
    seed: z.string().nullable().openapi({ description: "revealed with the list at opensAt" }),
    drawnAt: z.number().int().nullable(),
    published: z.boolean().openapi({ description: "the draw record is public at GET /draw" }),
  }).openapi("PrequeueMetrics"),
  sessions: z.object({
    sessionMode: z.enum(["fixed", "sliding"]),
    sessionsRenewed: z.number().int().openapi({ description: "sliding sessions renewed (writes)" }),
    sessionsReleased: z.number().int().openapi({ description: "sessions the site ended" }),
    sessionsEndedIdle: z.number().int().openapi({ description: "sliding sessions ended idle" }),
    sessionsEndedCap: z.number().int().openapi({ description: "ended at sessionMaxSeconds" }),
    sessionsExpired: z.number().int().openapi({
      description: "sessions that ran to their token's expiry (fixed mode's end)",
    }),
    averageSessionSeconds: z.number().openapi({
      description: "mean length, admission to end, of the sessions counted above",
    }),
  }).openapi("SessionMetrics"),
  room: z.object({
    mode: z.enum(["normal", "queue_all", "passthrough", "reject", "auto"]),
    effectiveMode: z.enum(["normal", "queue_all", "passthrough", "reject"]),
    safetyNetQueueing: z.boolean().nullable(),
    passthroughSlots: z.number().int().openapi({
      description: "slots held by visitors a passthrough room let in (until their tokens expire)",
    }),
  }).optional().openapi({
    description: "the room switch (GET /metrics only; see PUT /api/admin/room)",
  }),
}).openapi("QueueMetrics");

const err = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorEnvelope } },
});
/** The error responses of every route, by status; `errs(...)` picks some. */
export const errors = {
  400: err(
    "malformed JSON or failed validation (`bad_request`); a webhook, health probe or origin URL " +
      "the outbound-target policy refuses says why in `details.reason`: `forbidden_address` " +
      "(link-local, cloud metadata, unspecified, multicast), `private_address` (loopback, " +
      "private, unique-local; allowed by ALLOW_PRIVATE_TARGETS), `self` (this service) or " +
      "`unresolved`",
  ),
  401: err("missing or invalid session, ticket, token or credential (`unauthorized`)"),
  403: err(
    "not allowed: stale ToS, a foreign Origin on a session write, or a refused action (`forbidden`)",
  ),
  404: err(
    "unknown queue (`unknown_queue`), visitor gone (`not_in_queue`) or no such record (`not_found`)",
  ),
  409: err(
    "not admitted yet (`not_admitted`), a conflicting write (`conflict`), or an opening time " +
      "fixed by a published draw commitment (`draw_committed`)",
  ),
  429: err("too many attempts (`rate_limited`, with `Retry-After`)"),
  503: err(
    "waiting-row cap reached (`queue_full`), a queue whose pre-queue window has not opened " +
      "yet (`not_open`; never says when), or the store took no write within 2.5 s " +
      "(`store_busy`, with `Retry-After`)",
  ),
};

/** Picks some of `errors` by status, for a route's `responses`. */
export function errs<K extends keyof typeof errors>(...codes: K[]): Pick<typeof errors, K> {
  return Object.fromEntries(codes.map((k) => [k, errors[k]])) as Pick<typeof errors, K>;
}

/** Security requirement of routes behind `adminSession()`. */
export const adminSecurity: Record<string, string[]>[] = [{ adminSession: [] }];

/** A JSON request body that must be present. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

/** A JSON response. */
export function jsonOk<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/**
 * A read (or bodiless write) of an admin setting behind the admin session, answering `view`.
 *
 * @example
 * const getOrigin = adminRoute("get", "/api/admin/origin", "The origin proxy", OriginView);
 */
export function adminRoute<V extends z.ZodType>(
  method: "get" | "delete",
  path: string,
  summary: string,
  view: V,
) {
  return createRoute({
    method,
    path,
    summary,
    security: adminSecurity,
    responses: { 200: jsonOk(view, "the setting now"), ...errs(400, 401, 403) },
  });
}

/** A `PUT` of an admin setting behind the admin session: JSON `body` in, `view` out. */
export function adminPutRoute<V extends z.ZodType, B extends z.ZodType>(
  path: string,
  summary: string,
  view: V,
  body: B,
) {
  return createRoute({
    method: "put",
    path,
    summary,
    security: adminSecurity,
    request: { body: jsonBody(body) },
    responses: { 200: jsonOk(view, "the saved setting"), ...errs(400, 401, 403) },
  });
}
