/**
 * Where a queue's pre-queue stands, from its settings alone (no KV), so the hot paths can ask.
 *
 * A pre-queue accepts joins for `prequeueMinutes` before `opensAt`; at `opensAt` everyone still
 * waiting from the window gets a random place (the opening draw, see draw.ts), ahead of everyone
 * who comes later. Until that draw is done nobody is admitted and nobody is shown a position.
 */
import type { QueueSettings } from "./types.ts";

/** Longest pre-queue window: 24 hours. */
export const PREQUEUE_MAX_MINUTES = 1440;

/** `off`: no pre-queue; `before`: joins refused; `window`: joins wait for the draw; `drawing`: past `opensAt`, draw not done; `drawn`: done. */
export type PrequeuePhase = "off" | "before" | "window" | "drawing" | "drawn";

type PhaseFields = Pick<QueueSettings, "prequeueMinutes" | "opensAt" | "drawnFor">;

/** True while a pre-queue's opening draw for the current `opensAt` is not done. */
export function drawPending(s: PhaseFields): boolean {
  return s.prequeueMinutes !== null && s.opensAt !== null && s.drawnFor !== s.opensAt;
}

/** The pre-queue phase of `s` at `now`. */
export function prequeuePhase(s: PhaseFields, now: number): PrequeuePhase {
  if (s.prequeueMinutes === null || s.opensAt === null) return "off";
  if (s.drawnFor === s.opensAt) return "drawn";
  if (now >= s.opensAt) return "drawing";
  return now >= windowStart(s) ? "window" : "before";
}

/** When the pre-queue window opens (unix ms); `opensAt` when there is none. */
export function windowStart(s: PhaseFields): number {
  return (s.opensAt ?? 0) - (s.prequeueMinutes ?? 0) * 60_000;
}
