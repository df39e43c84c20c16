/**
 * The places scenario's plan and what it records per visitor (issue 32, "a place nobody loses"):
 * who goes silent, moves to another device, asks for the turn e-mail or really leaves, and when.
 * Kept apart from the driver so the checks (places_checks.ts) and their test read the same types.
 */
import { seededRandom } from "../../lib/clock.ts";

/** Sizes and shares of the places scenario. */
export interface PlacesOptions {
  visitors: number;
  /** Joins spread evenly over this many server seconds from the opening. */
  joinSeconds: number;
  /** ADMIT_PER_SECOND. */
  rate: number;
  capacity: number;
  /** ACCESS_TOKEN_TTL_SECONDS: entered slots free again after it, so capacity binds. */
  tokenTtlSec: number;
  /** The queue's `returnGraceSeconds`. */
  graceSec: number;
  silentShare: number;
  /** How long a silent visitor sends nothing (server seconds). */
  silenceSec: number;
  moveShare: number;
  leaveShare: number;
  mailShare: number;
  /** Branding `admitHoldSeconds`: how long an admission waits for its visitor to learn of it. */
  holdSec: number;
  /** MAIL_AT_POSITION: the e-mail at admission (0), or at this place in line. */
  mailAtPosition: number;
  clockSpeed: number;
  connections: number;
  seed: number;
}

/**
 * What a visitor of the plan does besides waiting. `mail`: asks for the turn e-mail, then stops
 * watching the page (a phone put away) until the e-mail comes, and follows its link.
 */
export type Kind = "plain" | "silent" | "move" | "leave" | "mail";

/** One visitor of the plan. */
export interface Planned {
  kind: Kind;
  /** Server seconds from the start. */
  joinAtSec: number;
  /** Server seconds after its join when it goes silent, moves, asks for the e-mail or leaves. */
  actAfterSec: number;
}

/**
 * The seeded plan: joins evenly over `joinSeconds`; each visitor's moment is uniform over its
 * expected wait (its place over the rate, less the time it joined after the opening), at least 2 s
 * after its join; the kinds are disjoint and drawn at random.
 */
export function planPlaces(o: PlacesOptions): Planned[] {
  const r = seededRandom(o.seed);
  const order = Array.from({ length: o.visitors }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(r.float() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const kinds: Kind[] = new Array(o.visitors).fill("plain");
  let at = 0;
  for (
    const [kind, share] of [["silent", o.silentShare], ["move", o.moveShare], [
      "leave",
      o.leaveShare,
    ], ["mail", o.mailShare]] as const
  ) {
    const n = Math.round(o.visitors * share);
    for (const i of order.slice(at, at + n)) kinds[i] = kind;
    at += n;
  }
  return kinds.map((kind, i) => {
    const joinAtSec = (i * o.joinSeconds) / o.visitors;
    const wait = Math.max(0, i / o.rate - joinAtSec);
    return { kind, joinAtSec, actAfterSec: 2 + r.float() * Math.max(0, wait - 3) };
  });
}

/** A visitor's record as read from the KV file: the fields the checks use. */
export interface SeenRecord {
  state: string;
  seq: number;
  deadline: number;
  admittedAt?: number;
  until?: number;
}

/** What happened to one visitor (all times server unix ms). */
export interface VisitorOutcome {
  kind: Kind;
  id: string;
  joinedAt: number;
  /** Its arrival number, from its record. */
  seq?: number;
  admittedAt?: number;
  /** Its liveness deadline when it was admitted (admitted past it: admitted while silent). */
  deadlineAtAdmission?: number;
  /** When its admission's hold ended, had nobody learned of it (its record's `until`). */
  holdUntil?: number;
  /** The first answer that said `admitted`. */
  learnedAt?: number;
  /** Told its place is gone (404) while it meant to keep it. */
  lost: boolean;
  silentFrom?: number;
  /** The answer to its first check-in after the silence. */
  returnAt?: number;
  /** Its record when it came back: still waiting, admitted meanwhile, or gone. */
  returnState?: "waiting" | "admitted" | "gone";
  /** Moved to a second device: when, whether the first was told, whether it was ever let in. */
  movedAt?: number;
  oldTold?: boolean;
  oldAdmitted?: boolean;
  mailAsked?: boolean;
  mailAddress?: string;
  /** Its turn e-mail reached the SMTP server while it was away, and its link moved the place. */
  mailArrivedAt?: number;
  resumedByMail?: boolean;
  leftAt?: number;
  /** A leaver's drop: when its record was first seen gone, and when its grace ended. */
  droppedAt?: number;
  dropDueAt?: number;
}
