/**
 * The words of a refused time that is not in the future. An operator who sends unix seconds where
 * milliseconds belong (1795000000 for a date in 2026) was told only "must be in the future" and
 * could not see why; the time as read (1970-01-21) shows it.
 */

/** `ms` as read and the time now: "1795000000 is 1970-01-21T18:36:40.000Z (unix milliseconds, UTC), now is …". */
export function pastTime(ms: number, now: number): string {
  return `${ms} is ${new Date(ms).toISOString()} (unix milliseconds, UTC), now is ${
    new Date(now).toISOString()
  }`;
}
