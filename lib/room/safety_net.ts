/**
 * The automatic room switch ("Safety Net") as a pure state machine: the room lets everyone
 * through while it is calm, starts queueing as soon as joins per minute or holding cross an upper
 * threshold, and lets everyone through again only after both have stayed below their lower
 * thresholds for `calmMinutes` (hysteresis, so a room near a threshold does not flap). No clock
 * and no store here: the caller passes the time and persists the state (lib/room/switches.ts),
 * so every instance follows the one stored state and tests drive it with any clock.
 *
 * @example
 * const t = { joinsPerMinuteHigh: 600, joinsPerMinuteLow: 300, holdingHigh: null,
 *   holdingLow: null, calmMinutes: 5 };
 * let st = initialSafetyNet(0);
 * st = stepSafetyNet(st, { joinsPerMinute: 900, holding: 0 }, t, 1000); // st.queueing === true
 */

/** The operator's thresholds: an upper one starts queueing, a lower one (held) ends it. */
export interface SafetyNetThresholds {
  /** Joins per minute at or above which the room queues; null: joins do not switch it. */
  joinsPerMinuteHigh: number | null;
  /** Joins per minute below which the room may stop queueing (null when the upper one is). */
  joinsPerMinuteLow: number | null;
  /** Visitors holding slots at or above which the room queues; null: holding does not switch it. */
  holdingHigh: number | null;
  /** Holding below which the room may stop queueing (null when the upper one is). */
  holdingLow: number | null;
  /** How long both must stay below their lower thresholds before the queue switches off. */
  calmMinutes: number;
}

/** What the switch looks at, sampled about once a second. */
export interface SafetyNetSample {
  joinsPerMinute: number;
  holding: number;
}

/** The switch's state, stored per queue so that every instance agrees. */
export interface SafetyNetState {
  /** True while the room queues (the Safety Net is engaged). */
  queueing: boolean;
  /** When `queueing` last changed (unix ms). */
  since: number;
  /** While queueing: since when both figures have been below their lower thresholds. */
  calmSince: number | null;
  /** The sample that decided the last step, for the admin view. */
  last: SafetyNetSample | null;
}

/** Most minutes of calm the operator may ask for (a day). */
export const MAX_CALM_MINUTES = 1440;

/** The state of a switch that has seen nothing yet: calm, letting everyone through. */
export function initialSafetyNet(now: number): SafetyNetState {
  return { queueing: false, since: now, calmSince: null, last: null };
}

/** True when a sample crosses an upper threshold. */
export function crossesHigh(t: SafetyNetThresholds, s: SafetyNetSample): boolean {
  return (t.joinsPerMinuteHigh !== null && s.joinsPerMinute >= t.joinsPerMinuteHigh) ||
    (t.holdingHigh !== null && s.holding >= t.holdingHigh);
}

/** True when a sample is below every lower threshold that is set. */
export function belowLow(t: SafetyNetThresholds, s: SafetyNetSample): boolean {
  return (t.joinsPerMinuteLow === null || s.joinsPerMinute < t.joinsPerMinuteLow) &&
    (t.holdingLow === null || s.holding < t.holdingLow);
}

/** The next state after `sample` at `now`. */
export function stepSafetyNet(
  st: SafetyNetState,
  sample: SafetyNetSample,
  t: SafetyNetThresholds,
  now: number,
): SafetyNetState {
  const last = { joinsPerMinute: sample.joinsPerMinute, holding: sample.holding };
  if (!st.queueing) {
    if (crossesHigh(t, sample)) return { queueing: true, since: now, calmSince: null, last };
    return { ...st, last };
  }
  if (!belowLow(t, sample)) return { ...st, calmSince: null, last };
  // A clock that went back (another instance's) restarts the calm rather than ending it early.
  const calmSince = st.calmSince !== null && st.calmSince <= now ? st.calmSince : now;
  if (now - calmSince >= t.calmMinutes * 60_000) {
    return { queueing: false, since: now, calmSince: null, last };
  }
  return { ...st, calmSince, last };
}

/**
 * What is wrong with `t` (each as `[field, message]`); empty when it is usable: at least one upper
 * threshold, a lower one exactly where an upper one is, each lower one below its upper one.
 */
export function thresholdProblems(t: SafetyNetThresholds): [string, string][] {
  const out: [string, string][] = [];
  const pair = (hi: keyof SafetyNetThresholds, lo: keyof SafetyNetThresholds) => {
    const h = t[hi], l = t[lo];
    // Worded for the operator (lib/field_text.ts shows them by the field): no field keys.
    if (h === null && l !== null) out.push([lo, "set only together with its start threshold"]);
    if (h !== null && l === null) out.push([lo, "needed when its start threshold is set"]);
    if (h !== null && l !== null && l >= h) {
      out.push([lo, `must be below the start threshold (${l} is not below ${h})`]);
    } else if (l === 0) {
      // Nothing falls below 0: a room that started queueing would never let everyone in again.
      out.push([lo, "must be at least 1 (no figure falls below 0, so the room would never calm)"]);
    }
  };
  pair("joinsPerMinuteHigh", "joinsPerMinuteLow");
  pair("holdingHigh", "holdingLow");
  if (t.joinsPerMinuteHigh === null && t.holdingHigh === null) {
    out.push(["joinsPerMinuteHigh", "set a start threshold for joins, for slots held, or both"]);
  }
  if (!Number.isInteger(t.calmMinutes) || t.calmMinutes < 1 || t.calmMinutes > MAX_CALM_MINUTES) {
    out.push(["calmMinutes", `must be a whole number from 1 to ${MAX_CALM_MINUTES}`]);
  }
  return out;
}
