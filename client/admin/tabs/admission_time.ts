/// <reference lib="dom" />
/**
 * Opening-time conversions of the Admission tab: a `<input type="datetime-local">` value is the
 * operator's wall-clock time in the browser's time zone; the API stores unix ms UTC.
 */

const pad = (n: number) => String(n).padStart(2, "0");

/** Unix ms -> `YYYY-MM-DDTHH:mm` in the browser's time zone (a datetime-local value). */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${
    pad(d.getMinutes())
  }`;
}

/** A datetime-local value (local wall-clock time) -> unix ms UTC, or null when empty/invalid. */
export function fromLocalInput(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0));
  const ms = new Date(y, mo - 1, d, h, mi, s).getTime();
  return Number.isFinite(ms) ? ms : null;
}

/** The browser's IANA time zone name (e.g. "America/New_York"). */
export function zoneName(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
}
