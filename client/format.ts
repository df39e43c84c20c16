/**
 * Words and links for the waiting room, shared by the server render and the island (plain
 * functions).
 */

/** An estimated wait in words, coarse enough that it does not flicker between check-ins. */
export function waitWords(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return "unknown";
  if (seconds < 60) return "less than a minute";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} minute${minutes === 1 ? "" : "s"}`;
  if (seconds >= 86400) return "more than a day";
  const halfHours = Math.round(seconds / 1800);
  const h = Math.floor(halfHours / 2);
  return `about ${h} hour${h === 1 ? "" : "s"}${halfHours % 2 ? " 30 minutes" : ""}`;
}

/** A probability as a short percentage: "12%", "0.4%", "less than 0.1%". */
export function percent(p: number): string {
  const pct = Math.max(0, Math.min(1, p)) * 100;
  if (pct > 0 && pct < 0.1) return "less than 0.1%";
  return `${pct >= 10 ? Math.round(pct) : Math.round(pct * 10) / 10}%`;
}

/** Place in line: `#X of Y` when the waiting count is shown, else `#X`. */
export function placeText(position: number, waiting: number | undefined): string {
  return waiting !== undefined ? `#${position} of ${waiting}` : `#${position}`;
}

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
