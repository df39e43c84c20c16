/// <reference lib="dom" />
/** The bad lines of a list setting (the path rules): read from a 400, shown by the field. */
import { ApiError } from "../api.ts";

/** A bad line of a list setting, as a 400 names it. */
export interface LineError {
  line: number;
  value: string;
  message: string;
}

/** The bad lines a 400 listed in `details.lines` (empty otherwise). */
export function lineErrors(e: unknown): LineError[] {
  const l = e instanceof ApiError ? e.details.lines : null;
  return Array.isArray(l) ? l as LineError[] : [];
}

/** Bad lines of a list setting, shown under its textarea. */
export function LineErrors({ id, lines }: { id: string; lines: LineError[] }) {
  if (!lines.length) return null;
  return (
    <ul id={id} class="line-errors">
      {lines.map((l) => (
        <li key={l.line}>
          Line {l.line}: <code>{l.value}</code> — {l.message}
        </li>
      ))}
    </ul>
  );
}
