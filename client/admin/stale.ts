/// <reference lib="dom" />
/**
 * Saves over a record someone else may have saved meanwhile (another tab, another admin): a form
 * compares what it was loaded with (`base`), what is stored now and what it holds. A field saved
 * elsewhere that this form left alone is kept, not put back to the form's stale copy; a field
 * changed here AND elsewhere is named, and replaced only when the operator says so.
 */
import { confirmAction } from "./ui.tsx";

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Each side read field by field. */
type Side<K> = (k: K) => unknown;

/** Of `keys`, those `stored` changed since `base`: left alone here (`kept`) or changed here too. */
export function savedElsewhere<K>(
  keys: K[],
  base: Side<K>,
  stored: Side<K>,
  mine: Side<K>,
): { kept: K[]; clash: K[] } {
  const kept: K[] = [];
  const clash: K[] = [];
  for (const k of keys) {
    if (same(stored(k), base(k))) continue;
    if (same(mine(k), base(k))) kept.push(k);
    else if (!same(mine(k), stored(k))) clash.push(k);
  }
  return { kept, clash };
}

/** True when `a` and `b` hold the same value (as JSON). */
export const sameValue = same;

/**
 * Asks whether to replace the fields `names`, saved elsewhere since the form was opened; throws
 * a "Not saved" error when the operator keeps the other save.
 */
export async function confirmReplace(names: string[]): Promise<void> {
  if (!names.length) return;
  const list = names.join(", ");
  const ok = await confirmAction(
    `${list}: saved by someone else (another tab or admin) since this form was opened. ` +
      "Replace that with what you typed here?",
    "Replace",
  );
  if (!ok) {
    throw new Error(
      `Not saved, so the other change to ${list} stays. What you typed is still here; reload ` +
        "this tab to see the other change.",
    );
  }
}
