/**
 * A queue's visitor session settings: `fixed` (the specification's rule: the slot is held until
 * the access token expires or the visitor leaves) or `sliding` (the session lasts
 * `sessionIdleSeconds` after the visitor's last request seen by Tollgate, up to the optional hard
 * cap `sessionMaxSeconds` after admission). Kept in their own record beside the queue's settings,
 * so the engine's settings record and its readers stay as they are.
 */
import { keys } from "../store/keys.ts";

/** Session modes of a queue. */
export const SESSION_MODES = ["fixed", "sliding"] as const;
/** Session mode of a queue. */
export type SessionMode = (typeof SESSION_MODES)[number];

/** Bounds of `sessionIdleSeconds`. */
export const IDLE_MIN_SECONDS = 60;
export const IDLE_MAX_SECONDS = 3600;
/** Bounds of `sessionMaxSeconds` (a day at most). */
export const MAX_MIN_SECONDS = 60;
export const MAX_MAX_SECONDS = 86_400;

/** A queue's session settings, stored at `keys.sessionSettings(q)`. */
export interface SessionSettings {
  sessionMode: SessionMode;
  /** Sliding: how long a session lasts after the visitor's last request. */
  sessionIdleSeconds: number;
  /** Sliding: hard cap after admission; null means none. */
  sessionMaxSeconds: number | null;
}

/** What a queue has until an operator changes it: the specification's fixed sessions. */
export const DEFAULT_SESSION_SETTINGS: SessionSettings = {
  sessionMode: "fixed",
  sessionIdleSeconds: 300,
  sessionMaxSeconds: null,
};

/** The settings of `q` (defaults for fields never saved). */
export async function readSessionSettings(kv: Deno.Kv, q: string): Promise<SessionSettings> {
  const v = (await kv.get<Partial<SessionSettings>>(keys.sessionSettings(q))).value;
  return { ...DEFAULT_SESSION_SETTINGS, ...(v ?? {}) };
}

/** Saves the settings of `q` (the caller validated them). */
export async function writeSessionSettings(
  kv: Deno.Kv,
  q: string,
  s: SessionSettings,
): Promise<void> {
  await kv.set(keys.sessionSettings(q), s);
}

/**
 * How often a sliding session is written at most (per visitor, across every instance): a fifth
 * of the idle time, between 10 s and 60 s, and at most a quarter of the access token's lifetime
 * (so a token is re-issued well before it runs out, however short it is). A session then lasts
 * between `idle` and `idle` plus this interval after the visitor's last request, never less.
 */
export function renewalIntervalMs(idleSeconds: number, ttlSeconds: number): number {
  const every = Math.min(60_000, Math.max(10_000, Math.round(idleSeconds * 200)));
  return Math.min(every, ttlSeconds * 250);
}
