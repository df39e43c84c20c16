/**
 * Figures and links for the waiting room, shared by the server render and the island (plain
 * functions). Words are in the message catalogues (lib/i18n/).
 */

/** Minutes and seconds, `m:ss`, for the click-to-enter countdown. */
export function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * The honest progress through the line: the share of the people who were ahead at first sight
 * (`start`, the position then) that have gone in since, counting the visitor's own turn last.
 */
export function progressShare(start: number, position: number): number {
  if (start <= 0) return 0;
  return Math.max(0, Math.min(1, (start - position) / start));
}

/**
 * The /wait URL that keeps a visitor's queue, return path, layout and progress baseline; `base`
 * is Tollgate's path prefix ("" without one).
 */
export function waitUrl(
  queue: string,
  returnPath: string,
  embed = false,
  start: number | null = null,
  base = "",
): string {
  const q = new URLSearchParams({ queue });
  if (returnPath) q.set("return", returnPath);
  if (embed) q.set("embed", "1");
  if (start !== null) q.set("start", String(start));
  return `${base}/wait?${q}`;
}

/** Least time between two announcements of a changed place in line (WCAG 2.2.2, 4.1.3). */
export const ANNOUNCE_EVERY_MS = 30_000;

/**
 * How long the live region waits before saying news of `kind`, after it last spoke at `last.at`
 * of `last.kind`: a new kind (the turn, a refusal) at once, more of the same (a changed place)
 * not before 30 s have passed.
 */
export function announceDelay(last: { kind: string; at: number }, kind: string, now: number) {
  return last.kind !== kind ? 0 : Math.max(0, last.at + ANNOUNCE_EVERY_MS - now);
}
