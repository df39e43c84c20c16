/**
 * The room switch of a queue: what an operator sets (`normal`, `queue_all`, `passthrough`,
 * `reject`, or `auto`, the Safety Net) and the effective mode the join path, the origin proxy and
 * the forward-auth checks act on. Pure: the record, its defaults and its validation.
 */
import { BadRequestError } from "../errors.ts";
import { type SafetyNetThresholds, thresholdProblems } from "./safety_net.ts";

/** Every switch position an operator may choose. */
export const ROOM_MODES = ["normal", "queue_all", "passthrough", "reject", "auto"] as const;
/** A switch position. */
export type RoomMode = (typeof ROOM_MODES)[number];
/** What a request meets now (`auto` resolves to `passthrough` or `normal`). */
export type EffectiveRoomMode = Exclude<RoomMode, "auto">;

/** Longest closed-page text. */
export const MAX_CLOSED_MESSAGE = 1000;
/** Bounds of the `Retry-After` the closed room sends (seconds). */
export const MIN_RETRY_AFTER = 1;
export const MAX_RETRY_AFTER = 86_400;

/** The stored switch of one queue (`keys.roomSwitch(q)`). */
export interface RoomSwitchRecord {
  mode: RoomMode;
  /** The operator's text on the closed page (`reject`); empty: a plain sentence. */
  closedMessage: string;
  /** What `Retry-After` tells API clients and the closed page's self-refresh (seconds). */
  retryAfterSeconds: number;
  /** The Safety Net's thresholds; required for `auto`, kept (unused) otherwise. */
  safetyNet: SafetyNetThresholds | null;
  /** Unix ms of the last write (0: never written). */
  updatedAt: number;
}

/** A queue nobody switched: normal, no closed text, retry in 5 minutes. */
export const DEFAULT_ROOM_SWITCH: RoomSwitchRecord = {
  mode: "normal",
  closedMessage: "",
  retryAfterSeconds: 300,
  safetyNet: null,
  updatedAt: 0,
};

/** A stored record merged over the defaults (fields added later get theirs). */
export function asRoomSwitch(v: unknown): RoomSwitchRecord {
  if (!v || typeof v !== "object") return { ...DEFAULT_ROOM_SWITCH };
  const r = v as Partial<RoomSwitchRecord>;
  return {
    mode: ROOM_MODES.includes(r.mode as RoomMode) ? r.mode as RoomMode : "normal",
    closedMessage: typeof r.closedMessage === "string" ? r.closedMessage : "",
    retryAfterSeconds: typeof r.retryAfterSeconds === "number" ? r.retryAfterSeconds : 300,
    safetyNet: r.safetyNet && typeof r.safetyNet === "object" ? r.safetyNet : null,
    updatedAt: typeof r.updatedAt === "number" ? r.updatedAt : 0,
  };
}

/** An admin write: fields left out keep their stored values. */
export interface RoomSwitchInput {
  mode: RoomMode;
  closedMessage?: string;
  retryAfterSeconds?: number;
  safetyNet?: SafetyNetThresholds | null;
}

/**
 * The record `input` makes of `prev` at `now`; 400 `bad_request` naming every failing field when
 * it is not usable (`auto` without thresholds, thresholds in the wrong order). Nothing is stored
 * here: the caller stores what this returns.
 */
export function applyRoomSwitch(
  prev: RoomSwitchRecord,
  input: RoomSwitchInput,
  now: number,
): RoomSwitchRecord {
  const next: RoomSwitchRecord = {
    mode: input.mode,
    // Blank is no text (the default one is shown): "   " was the whole of a closed room's answer.
    closedMessage: (input.closedMessage ?? prev.closedMessage).trim(),
    retryAfterSeconds: input.retryAfterSeconds ?? prev.retryAfterSeconds,
    safetyNet: input.safetyNet === undefined ? prev.safetyNet : input.safetyNet,
    updatedAt: now,
  };
  const fields: { path: string; message: string }[] = [];
  if (next.safetyNet) {
    for (const [f, m] of thresholdProblems(next.safetyNet)) {
      fields.push({ path: `safetyNet.${f}`, message: m });
    }
  } else if (next.mode === "auto") {
    fields.push({ path: "safetyNet", message: "required for mode auto (the thresholds)" });
  }
  if (fields.length > 0) {
    throw new BadRequestError(
      `room switch not changed: ${fields.map((f) => `${f.path}: ${f.message}`).join("; ")}`,
      { fields },
    );
  }
  return next;
}
