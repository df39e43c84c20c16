/**
 * Every KV key the service uses is built here, so the layout is visible in one place.
 *
 * Queue-scoped keys all start with a short tag and the queue name.
 */
import { LINE_SPAN } from "../priority/line.ts";

export const keys = {
  /** Schema version of the stored data. */
  schemaVersion: () => ["meta", "schemaVersion"] as const,
  /** The queue's settings record (mode, rate override, capacity, cap, pause, opensAt). */
  queue: (q: string) => ["queue", q] as const,
  /** Prefix of all queue settings records. */
  queues: () => ["queue"] as const,
  /** The queue's exact counters, changed in the same atomic op as the state they count. */
  counts: (q: string) => ["counts", q] as const,
  /**
   * A join not numbered into the line yet (see lib/queue/sequencer.ts), keyed so that key order
   * is arrival order across instances: arrival ms, instance id, that instance's counter. Its
   * value is the visitor record as the join wrote it.
   */
  arrival: (q: string, ms: number, instance: string, n: number) =>
    ["na", q, ms, instance, n] as const,
  arrivalPrefix: (q: string) => ["na", q] as const,
  /** Joins not numbered yet: a `sum` each join adds one to, the sequencer takes in. */
  arrivalsPending: (q: string) => ["arrivalsPending", q] as const,
  /** A visitor that left before it was numbered: the sequencer removes it (see leave_enter.ts). */
  leftEarly: (q: string, id: string) => ["nl", q, id] as const,
  leftEarlyPrefix: (q: string) => ["nl", q] as const,
  /** 0.7.3's join-turn registrations (deleted by the 0.8.0 migration). */
  joinWantPrefix: (q: string) => ["joinWant", q] as const,
  /**
   * Enters the counts have not taken in yet: a `sum` that enters add to without touching the
   * checked counts record (see lib/queue/enters.ts).
   */
  entersPending: (q: string) => ["entersPending", q] as const,
  /** Which instance runs the queue's tick of a second (see `claimTick` in lib/queue/admit.ts). */
  tickClaim: (q: string) => ["tickClaim", q] as const,
  /** A visitor's record. */
  visitor: (q: string, id: string) => ["v", q, id] as const,
  visitorPrefix: (q: string) => ["v", q] as const,
  /** FIFO index of waiting visitors by arrival number. */
  fifo: (q: string, seq: number) => ["w", q, seq] as const,
  fifoPrefix: (q: string) => ["w", q] as const,
  /** One line of the FIFO index: the main line (slot 0) or a priority lane (lib/priority/line.ts). */
  fifoLine: (q: string, slot: number): Deno.KvListSelector => ({
    start: ["w", q, slot * LINE_SPAN],
    end: ["w", q, (slot + 1) * LINE_SPAN],
  }),
  /** 0.7.3's compactly written joins (expanded by the 0.8.0 migration, lib/store/migrate_073.ts). */
  joinLog: (q: string, seq: number) => ["jl", q, seq] as const,
  joinLogPrefix: (q: string) => ["jl", q] as const,
  /** 0.7.3's joins handed to another instance's commit, and their answers (deleted at migration). */
  joinInboxPrefix: (q: string) => ["ji", q] as const,
  joinResultPrefix: (q: string) => ["jr", q] as const,
  /** Liveness deadlines of waiting visitors. */
  deadline: (q: string, ms: number, id: string) => ["d", q, ms, id] as const,
  deadlinePrefix: (q: string) => ["d", q] as const,
  /** Slot expiries of admitted (holding) and entered visitors. */
  expiry: (q: string, ms: number, id: string) => ["x", q, ms, id] as const,
  expiryPrefix: (q: string) => ["x", q] as const,
  /** Log of waiters that left the line other than from its head (for exact positions). */
  gone: (q: string, ms: number, seq: number) => ["g", q, ms, seq] as const,
  gonePrefix: (q: string) => ["g", q] as const,
  /** Number of waiters given second `sec` (unix s) as their next timeslot. */
  checkins: (q: string, sec: number) => ["ts", q, sec] as const,
  checkinsPrefix: (q: string) => ["ts", q] as const,
  /** Inflow/outflow counters in 15 s buckets. */
  traffic: (q: string, bucket: number, dir: "in" | "out") => ["t", q, bucket, dir] as const,
  trafficPrefix: (q: string) => ["t", q] as const,
  /** The queue's opening-draw record (pre-queue; public once the operator publishes it). */
  draw: (q: string) => ["draw", q] as const,
  /** The draw's secret seed until the draw reveals it. */
  drawSeed: (q: string) => ["drawSeed", q] as const,
  /** Chunk `i` of a fixed participant list, under the list's hash. */
  drawList: (q: string, hash: string, i: number) => ["drawList", q, hash, i] as const,
  drawListPrefix: (q: string) => ["drawList", q] as const,
  /** Chunk `i` of a draw's places by arrival number, under the list's hash. */
  drawPlaces: (q: string, hash: string, i: number) => ["drawPlaces", q, hash, i] as const,
  drawPlacesPrefix: (q: string) => ["drawPlaces", q] as const,
  /** Where round `round`'s places are (set once the draw stored them; absent until then). */
  drawPlaced: (q: string, round: number) => ["drawPlaced", q, round] as const,
  drawPlacedPrefix: (q: string) => ["drawPlaced", q] as const,
  /** Bumped (KV `sum`) by every removal of a pre-queue participant while its draw may run. */
  drawGuard: (q: string) => ["drawGuard", q] as const,
  /** Whether the operator published the queue's draw records. */
  drawPublished: (q: string) => ["drawPublished", q] as const,
  /** Service-wide branding record. */
  branding: () => ["settings", "branding"] as const,
  /** A queue's branding overrides (fields it does not inherit from the service-wide record). */
  queueBranding: (q: string) => ["queueBranding", q] as const,
  /** A deleted queue's name, kept until its last access token expired (and its cleanup ran). */
  queueTombstone: (q: string) => ["queueTombstone", q] as const,
  queueTombstones: () => ["queueTombstone"] as const,

  // --- Administration (accounts, sessions, invites, audit) ---
  /** Everything under this prefix is removed by a factory reset. */
  adminPrefix: () => ["admin"] as const,
  /** An admin user record by id. */
  adminUser: (id: string) => ["admin", "user", id] as const,
  adminUsers: () => ["admin", "user"] as const,
  /** Unique index: lower-cased username -> user id. */
  adminUsername: (name: string) => ["admin", "username", name] as const,
  /** A session by HMAC(TOKEN_SECRET, id) (the raw id lives only in the cookie). */
  adminSession: (hash: string) => ["admin", "session", hash] as const,
  adminSessions: () => ["admin", "session"] as const,
  /** A pending invite by id; `adminInviteToken` maps a token hash to that id. */
  adminInvite: (id: string) => ["admin", "invite", id] as const,
  adminInvites: () => ["admin", "invite"] as const,
  adminInviteToken: (hash: string) => ["admin", "inviteToken", hash] as const,
  /** Set once the first admin has been claimed. */
  adminClaimed: () => ["admin", "claimed"] as const,
  /** Attempt counters for rate-limited public calls. */
  rateLimit: (kind: string, subject: string, window: number) =>
    ["ratelimit", kind, subject, window] as const,
  /** Audit log entries, time-ordered. */
  audit: (ms: number, id: string) => ["audit", ms, id] as const,
  auditPrefix: () => ["audit"] as const,

  // --- Service settings (reset clears all but branding) ---
  /** Webhook settings (URL, events, sealed secret, depth threshold). */
  webhooks: () => ["settings", "webhooks"] as const,
  /** Whether the depth event fired for a queue and has not re-armed yet. */
  depthArmed: (q: string) => ["webhookDepth", q] as const,
  depthArmedPrefix: () => ["webhookDepth"] as const,
  /** Origin proxy override. */
  origin: () => ["settings", "origin"] as const,
  /** Country block config; deleting it clears the block (edge IP geolocation off). */
  geoBlock: () => ["settings", "geoBlock"] as const,
  /** Country-block hits per country, by the block's `enabledAt` (KV `sum`; old ones dropped on save). */
  geoHits: (since: number, cc: string) => ["stats", "geoHits", since, cc] as const,
  geoHitsPrefix: (since?: number) =>
    since === undefined ? ["stats", "geoHits"] as const : ["stats", "geoHits", since] as const,
  /** Refused joins per queue, cause and minute (unix ms of the minute's start; KV `sum`). */
  refusals: (q: string, cause: string, minute: number) =>
    ["stats", "refusals", q, cause, minute] as const,
  refusalsPrefix: (q: string) => ["stats", "refusals", q] as const,
  /** IP allowlist (bypass) text (survives a factory reset). */
  bypass: () => ["settings", "bypass"] as const,
  /** Origin health throttle config and override; the probe state beside it. */
  health: () => ["settings", "health"] as const,
  healthState: () => ["healthState"] as const,
  /** Edge link, bot challenge and pending setup. */
  edge: () => ["settings", "edge"] as const,
  challenge: () => ["settings", "challenge"] as const,
  /** Setup finished without an edge network (self-hosted behind a proxy, or served directly). */
  edgeNone: () => ["settings", "edgeNone"] as const,
  /** The built-in proof-of-work challenge is the live sign-in challenge (instead of Turnstile). */
  challengeBuiltin: () => ["settings", "challengeBuiltin"] as const,
  /** Pending setup parts (wizard): the edge part and the challenge part, promoted by POST /setup. */
  setupPendingPrefix: () => ["settings", "setup"] as const,
  setupPendingEdge: () => ["settings", "setup", "edge"] as const,
  setupPendingChallenge: () => ["settings", "setup", "challenge"] as const,
  /** The wizard's "no edge network" choice and its solved built-in challenge, while pending. */
  setupPendingEdgeNone: () => ["settings", "setup", "edgeNone"] as const,
  setupPendingChallengeBuiltin: () => ["settings", "setup", "challengeBuiltin"] as const,
  /** The wizard's own steps (queue picked, branding saved), so a reload resumes there. */
  setupSteps: () => ["settings", "setup", "steps"] as const,
  /** A used proof-of-work challenge, by its seed (expires with the challenge). */
  powSpent: (seed: string) => ["powSpent", seed] as const,
  /** Per-queue join guards: bot challenge mode and provider, enqueue tokens required. */
  joinGuards: (q: string) => ["settings", "joinGuards", q] as const,
  /** The place an enqueue key holds in a queue (the visitor id), by a hash of the key. */
  enqueueKey: (q: string, keyHash: string) => ["enqueueKey", q, keyHash] as const,
  /** Cached answer of the release feed. */
  updatesCache: () => ["cache", "updates"] as const,
  /** Waiters that checked in again within their grace after going silent (KV `sum`). */
  returned: (q: string) => ["returned", q] as const,
  /** Per-queue visitor session settings: fixed or sliding, idle time, hard cap (lib/session). */
  sessionSettings: (q: string) => ["settings", "sessions", q] as const,
  /** A sliding session seen by a renewal: its newest token's `iat` (kept until that token's exp). */
  sessionMark: (q: string, sub: string) => ["sessionMark", q, sub] as const,
  sessionMarkPrefix: (q: string) => ["sessionMark", q] as const,
  /** A session the site ended (release), by when: every instance lists these once a second. */
  sessionEnded: (atMs: number, q: string, sub: string) => ["sessionEnded", atMs, q, sub] as const,
  sessionEndedPrefix: () => ["sessionEnded"] as const,
  /** Session counters of a queue (renewed, released, idle, cap, lengths), written with `sum`. */
  sessionStat: (q: string, name: string) => ["sessionStats", q, name] as const,
  sessionStatPrefix: (q: string) => ["sessionStats", q] as const,

  // --- Traffic policy (issue 35; see lib/room/ and lib/paths/) ---
  /** A queue's room switch: normal, queue_all, passthrough, reject or auto, and their settings. */
  roomSwitch: (q: string) => ["settings", "roomSwitch", q] as const,
  /** The automatic switch's (Safety Net's) state, shared by every instance. */
  roomAuto: (q: string) => ["roomAuto", q] as const,
  /** Passthrough admissions per queue and 15 s bucket (KV `sum`): the slots they hold. */
  roomPassed: (q: string, bucket: number) => ["roomPassed", q, bucket] as const,
  roomPassedPrefix: (q: string) => ["roomPassed", q] as const,
  /** A queue's ordered path rules (bypass, queue, route to another queue). */
  pathRules: (q: string) => ["settings", "pathRules", q] as const,
  /** A queue's priority lanes (names, shares, strict priority). */
  priorityLanes: (q: string) => ["settings", "priorityLanes", q] as const,
  /** A priority code's record, by the keyed hash of the code (the code itself is never stored). */
  priorityCode: (q: string, hash: string) => ["priorityCode", q, hash] as const,
  priorityCodePrefix: (q: string) => ["priorityCode", q] as const,
  /** A priority code's id, naming the hash its record is stored under (list and revoke by id). */
  priorityCodeId: (q: string, id: string) => ["priorityCodeId", q, id] as const,

  // --- Moving a place to another device, and the e-mail at the turn (lib/resume/, lib/notify/) ---
  /** Which browser holds visitor `id`'s place: its holder generation (absent: the first browser). */
  resumeHolder: (q: string, id: string) => ["resumeHolder", q, id] as const,
  /** A resume code by its HMAC (the code itself is never stored). */
  resumeCode: (hash: string) => ["resumeCode", hash] as const,
  /** A visitor's request for an e-mail at its turn, in arrival order (the job walks it). */
  mailSub: (q: string, seq: number, id: string) => ["mailSub", q, seq, id] as const,
  mailSubPrefix: (q: string) => ["mailSub", q] as const,
  /**
   * An e-mail request without a place number yet: a pre-queue participant's until the opening
   * draw places it, a join's until the tick's sequencer numbers it.
   */
  mailSubPre: (q: string, id: string) => ["mailSubPre", q, id] as const,
  mailSubPrePrefix: (q: string) => ["mailSubPre", q] as const,
  /** Which e-mail request visitor `id` has (its `mailSub` key's seq), so it is replaced, not doubled. */
  mailSubOf: (q: string, id: string) => ["mailSubOf", q, id] as const,
  /** SMTP settings of the turn e-mail saved in the admin app (password sealed); env otherwise. */
  mailSettings: () => ["settings", "mail"] as const,
  /** E-mails sent and failed per queue (KV `sum`). */
  mailCount: (q: string, outcome: "sent" | "failed") => ["stats", "mail", q, outcome] as const,
  /** Per-queue search engine rules: what verified crawlers get, the waiting page's status. */
  crawlerSettings: (q: string) => ["settings", "crawlers", q] as const,
  /**
   * The sequencer's numbering of one chunk of a wide round not yet written into its records (it
   * lands after the counts commit; lib/queue/numbering.ts), so a crash mid-round is finished.
   */
  numbering: (q: string, chunk: string) => ["nn", q, chunk] as const,
  numberingPrefix: (q: string) => ["nn", q] as const,
  /** Every `mailSubOf` of queue `q` (a deleted queue's e-mail requests go with it). */
  mailSubOfPrefix: (q: string) => ["mailSubOf", q] as const,
  /**
   * Queue names an admin create has taken a place under the queue cap for, not made yet (name to
   * unix ms): concurrent creates serialize on this one key (lib/admin/queue_cap.ts).
   */
  queueCreates: () => ["queueCreates"] as const,
};
