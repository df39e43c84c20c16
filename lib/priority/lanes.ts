/**
 * Priority lanes of a queue, as an operator defines them: each lane has a name and either a share
 * of each second's admissions (e.g. 0.3 for 30%) or strict priority (admitted before the main
 * line, in the order listed). Pure: the record, its validation and the split of one second's
 * admissions among lanes that have someone waiting (what the engine's tick will ask). Positions
 * within a lane are FIFO; that part belongs to the engine.
 *
 * @example
 * const lanes = checkLanes([{ name: "members", share: 0.3 }, { name: "staff", strict: true }]);
 * splitAdmissions(lanes, 10, { members: 50, staff: 2, "": 1000 });
 * // { staff: 2, members: 3, "": 5 }: strict first, then shares, the rest to the main line
 */
import { BadRequestError } from "../errors.ts";

/** A lane name: like a queue name, shorter. */
export const LANE_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** Most lanes one queue holds. */
export const MAX_LANES = 10;
/** The main line's key in a split. */
export const MAIN_LINE = "";

/** One lane: a share of each second's admissions, or strict priority. */
export interface Lane {
  name: string;
  /** Share of each second's admissions (0 < share < 1); absent for a strict lane. */
  share?: number;
  /** Admitted before the main line and every shared lane. */
  strict?: boolean;
}

/** Validates `lanes` (400 naming every bad field, `lanes.N.field`); returns them unchanged. */
export function checkLanes(lanes: Lane[]): Lane[] {
  const fields: { path: string; message: string }[] = [];
  const bad = (i: number, f: string, m: string) =>
    fields.push({ path: `lanes.${i}.${f}`, message: m });
  if (lanes.length > MAX_LANES) fields.push({ path: "lanes", message: `at most ${MAX_LANES}` });
  const seen = new Set<string>();
  let shares = 0;
  lanes.forEach((l, i) => {
    if (!LANE_NAME_RE.test(l.name)) {
      bad(i, "name", "a-z, 0-9, _ and -, up to 32, a letter or digit first");
    } else if (seen.has(l.name)) bad(i, "name", `"${l.name}" is named twice`);
    seen.add(l.name);
    const strict = l.strict === true;
    if (strict && l.share !== undefined) bad(i, "share", "a strict lane has no share");
    if (!strict && (l.share === undefined || !(l.share > 0 && l.share < 1))) {
      bad(i, "share", "a share between 0 and 1 (0.3 is 30%), or strict: true");
    } else if (!strict) shares += l.share!;
  });
  if (shares >= 1) {
    fields.push({
      path: "lanes",
      message: `the shares add up to ${Math.round(shares * 100)}%: leave the main line some`,
    });
  }
  if (fields.length) {
    throw new BadRequestError(
      `lanes not changed: ${fields.map((f) => `${f.path}: ${f.message}`).join("; ")}`,
      { fields },
    );
  }
  return lanes;
}

/**
 * How `budget` admissions of one second split among the lanes and the main line (`MAIN_LINE`),
 * given how many wait in each: strict lanes first, in order; then each shared lane its share of
 * what is left (rounded down, at least one while it has waiters and budget remains); the main line
 * the rest; a lane with fewer waiters than its part leaves the difference to the main line, and
 * the main line's unused part goes back to the shared lanes.
 */
export function splitAdmissions(
  lanes: Lane[],
  budget: number,
  waiting: Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  let left = Math.max(0, Math.floor(budget));
  for (const l of lanes.filter((l) => l.strict)) {
    const n = Math.min(left, waiting[l.name] ?? 0);
    if (n) out[l.name] = n;
    left -= n;
  }
  const shared = lanes.filter((l) => !l.strict);
  const base = left;
  for (const l of shared) {
    const want = Math.min(waiting[l.name] ?? 0, Math.max(1, Math.floor(base * l.share!)), left);
    if (want > 0) out[l.name] = want;
    left -= want;
  }
  const main = Math.min(left, waiting[MAIN_LINE] ?? 0);
  if (main) out[MAIN_LINE] = main;
  left -= main;
  // What the main line could not use goes to the shared lanes, in order.
  for (const l of shared) {
    if (left <= 0) break;
    const more = Math.min(left, (waiting[l.name] ?? 0) - (out[l.name] ?? 0));
    if (more > 0) out[l.name] = (out[l.name] ?? 0) + more;
    left -= Math.max(0, more);
  }
  return out;
}
