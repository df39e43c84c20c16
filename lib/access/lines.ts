import { BadRequestError } from "../errors.ts";

/** One meaningful line of a list setting: its 1-based number and its text without comment. */
export interface ListLine {
  line: number;
  value: string;
}

/** A line that failed validation, as the 400 envelope's `details.lines` lists it. */
export interface LineError {
  line: number;
  value: string;
  message: string;
}

/**
 * The lines of a one-entry-per-line setting: `#` starts a comment to the end of the line,
 * surrounding blanks are trimmed, empty lines are skipped (line numbers still count them).
 */
export function listLines(text: string): ListLine[] {
  const out: ListLine[] = [];
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    const hash = raw.indexOf("#");
    const value = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (value) out.push({ line: i + 1, value });
  });
  return out;
}

/** Most line errors reported in one answer (a pasted file of garbage needs no 10,000). */
const MAX_REPORTED = 50;

/**
 * The 400 `bad_request` for a list with bad lines: `details.lines` has each bad line's number,
 * text and problem; `details.fields` the same as the validator's field list.
 */
export function badLinesError(field: string, errors: LineError[]): BadRequestError {
  const shown = errors.slice(0, MAX_REPORTED);
  const first = shown[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more bad lines)` : "";
  return new BadRequestError(
    `${field}: line ${first.line}: ${first.message}${more}`,
    {
      lines: shown,
      fields: shown.map((e) => ({ path: field, message: `line ${e.line}: ${e.message}` })),
    },
  );
}
