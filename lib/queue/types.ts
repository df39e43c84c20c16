import type { MODES } from "../names.ts";
import type { JoinGuardSettings } from "../guard/settings.ts";
/** Admission mode of a queue. */
export type Mode = (typeof MODES)[number];

/** A queue's operator settings, stored at `keys.queue(name)`. */
export interface QueueSettings {
  name: string;
  mode: Mode;
  /** Per-queue override of `ADMIT_PER_SECOND`; null means the default. */
  admitPerSecond: number | null;
  capacity: number;
  maxWaitingVisitors: number;
  paused: boolean;
  /** Opening time in unix ms; null means open now. */
  opensAt: number | null;
  /** Set by the origin health throttle. */
  healthPaused: boolean;
  createdAt: number;
  /** Pre-queue window in minutes before `opensAt` (1 to 1440); null means no pre-queue. */
  prequeueMinutes: number | null;
  /** The `opensAt` whose pre-queue draw is done (admissions wait for it; see prequeue.ts). */
  drawnFor: number | null;
  /** New places one client may take per minute (0: no limit); null follows the default. */
  joinsPerClientPerMinute: number | null;
  /** Bot challenge on join and enqueue tokens (see lib/guard/settings.ts). */
  joinGuards: JoinGuardSettings;
  /** Seconds (30 to 3,600) a silent waiter keeps its place past its deadline, passed over. */
  returnGraceSeconds: number;
}

/** Exact counters of a queue, stored at `keys.counts(name)`. */
export interface Counts {
  /** Next arrival number to hand out. */
  nextSeq: number;
  waiting: number;
  holding: number;
  entered: number;
  abandoned: number;
  /** All admissions ever (rate, forced, instant). */
  admitted: number;
  /** Token bucket of the rate budget. */
  tokens: number;
  tokensAt: number;
  /** The last second (unix s) an admission tick ran. */
  tickAt: number;
  waitMsSum: number;
  waitCount: number;
  /** Pre-queue round (its `opensAt`) whose commitment is published (0: none), its first arrival. */
  preRound: number;
  preFrom: number;
  /** The round's commitment (hex SHA-256 of the secret seed). */
  preCommitment: string;
  /** First arrival number after the window closed (0 until fixed); places start here. */
  preCutoff: number;
  /** Arrival numbers kept for drawn places after `preCutoff` (the waiting count at closing). */
  preReserved: number;
  /** Each used lane slot's next arrival number (lib/priority/line.ts); replaced, never changed. */
  laneNext: Record<string, number>;
  /** Priority lanes: admissions from each lane slot's line (replaced like `laneNext`). */
  laneAdmitted: Record<string, number>;
  /** Arrival time (unix ms) of the last arrival numbered: one after it surely waits unnumbered. */
  numberedTo: number;
}

/** A visitor record, stored at `keys.visitor(queue, id)`. */
export interface Visitor {
  id: string;
  seq: number;
  joinedAt: number;
  /** `admitted` means holding a slot, not yet entered. */
  state: "waiting" | "admitted" | "entered";
  /** Next timeslot and liveness deadline (waiting). */
  nextCheckAt: number;
  deadline: number;
  admittedAt?: number;
  enteredAt?: number;
  /** When the slot is freed (admitted: hold end; entered: token expiry). */
  until?: number;
  /** Click-to-enter: how often the visitor extended its hold (see lib/queue/hold_extend.ts). */
  holdExtensions?: number;
  /** Pre-queue participant: its arrival number, kept when `seq` became its drawn place. */
  arrival?: number;
  /** A join not numbered yet (`seq` 0): its arrival entry's key (ms, instance, counter). */
  mark?: [number, string, number];
  /** Pre-queue participant not placed yet (`seq` its arrival): the round its draw places it in. */
  round?: number;
  /** The priority lane a code or lane token gave this join (its line: lib/priority/line.ts). */
  lane?: string;
  /** Sliding session: when a renewal last wrote this record (lib/session/keeper.ts). */
  seenAt?: number;
  /** When an admission first passed this waiter over while silent (the turn e-mail goes then). */
  passedAt?: number;
  /** Sliding session with a hard cap: when it ends whatever the visitor does. */
  capAt?: number;
}

/** How often one click-to-enter hold may be extended ("I need more time"; hold_extend.ts). */
export const MAX_HOLD_EXTENSIONS = 10;

export const EMPTY_COUNTS: Counts = {
  nextSeq: 1,
  waiting: 0,
  holding: 0,
  entered: 0,
  abandoned: 0,
  admitted: 0,
  tokens: 0,
  tokensAt: 0,
  tickAt: 0,
  waitMsSum: 0,
  waitCount: 0,
  preRound: 0,
  preFrom: 0,
  preCommitment: "",
  preCutoff: 0,
  preReserved: 0,
  laneNext: Object.freeze({}),
  laneAdmitted: Object.freeze({}),
  numberedTo: 0,
};

/** Soft merge: stored fields win, fields added by a later release get defaults. */
export function withDefaults<T extends object>(defaults: T, stored: Partial<T> | null): T {
  if (!stored) return { ...defaults };
  const out = { ...defaults };
  for (const k of Object.keys(defaults) as (keyof T)[]) {
    if (stored[k] !== undefined) out[k] = stored[k] as T[keyof T];
  }
  return out;
}

/** A visitor as the visitor API shows it. */
export interface VisitorView {
  queue: string;
  visitorId: string;
  status: "waiting" | "admitted";
  admissionMode?: Mode;
  nextCheckAt?: number;
  nextPollAfterMs?: number;
  estimatedWaitSeconds?: number;
  position?: number;
  /** False while the position is an estimate: a join not numbered into the line yet. */
  positionExact?: boolean;
  /** The priority lane the visitor waits in (its position counts that lane's line only). */
  lane?: string;
  ahead?: number;
  behind?: number;
  waiting?: number;
  lotteryOdds?: number;
  /** Pre-queue, before the draw: the visitor's arrival number (its entry in the draw's list). */
  arrivalNumber?: number;
  /** Pre-queue, before the draw: the published commitment to the draw's secret seed. */
  drawCommitment?: string;
  /** True while the opening draw has not placed this visitor yet (no position meanwhile). */
  drawPending?: boolean;
  accessToken?: string;
  entered?: boolean;
  /** Click-to-enter: unix ms by which the visitor must confirm. */
  enterBy?: number;
}
