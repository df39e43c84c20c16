/// <reference lib="dom" />
/**
 * Saves over a record someone else may have saved meanwhile (another tab, another admin): a form
 * compares what it was loaded with (`base`), what is stored now and what it holds. A field saved
 * elsewhere that this form left alone is kept, not put back to the form's stale copy; a field
 * changed here AND elsewhere is named, and replaced only when the operator says so. Every admin
 * form saves through here: the record forms (branding, webhooks, health, e-mail) with
 * `savedElsewhere`, every other form with `checkedSave`.
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

/** " (now …)": a short stored value, so the question says what would be replaced; else "". */
function nowText(v: unknown, word?: (v: unknown) => string): string {
  const t = word
    ? word(v)
    : typeof v === "boolean"
    ? (v ? "on" : "off")
    : typeof v === "string"
    ? v
    : "";
  if (v === "") return " (now empty)";
  return t && t.length <= 40 && !t.includes("\n") ? ` (now \u201c${t}\u201d)` : "";
}

/** A field of a save: its name in words, the value the form was loaded with, the value it holds. */
export type Edited = readonly [label: string, base: unknown, mine: unknown];

/**
 * Reads what is stored now (`read`: one value per field) and gives, per field, what a save
 * should send: the form's value where the operator changed it, the stored value elsewhere (so
 * what another tab saved meanwhile stays). A field changed here and, to something else, elsewhere
 * is named and the form's value taken only when the operator confirms (else "Not saved" is thrown).
 * `words` says a stored value in the form's words where its own is a code (a mode's name).
 */
export async function checkedSave<K extends string>(
  fields: Record<K, Edited>,
  read: () => Promise<Record<K, unknown>>,
  words: Partial<Record<K, (v: unknown) => string>> = {},
): Promise<Record<K, unknown>> {
  const keys = Object.keys(fields) as K[];
  const stored = await read();
  const { clash } = savedElsewhere(
    keys,
    (k) => fields[k][1],
    (k) => stored[k],
    (k) => fields[k][2],
  );
  await confirmReplace(clash.map((k) => `${fields[k][0]}${nowText(stored[k], words[k])}`));
  const out = {} as Record<K, unknown>;
  for (const k of keys) out[k] = same(fields[k][2], fields[k][1]) ? stored[k] : fields[k][2];
  return out;
}

/** The fields of a record form for `checkedSave`: each key's label, base value and form value. */
export function editsOf<K extends string>(
  labels: Record<K, string>,
  base: Record<K, unknown>,
  mine: Record<K, unknown>,
): Record<K, Edited> {
  const out = {} as Record<K, Edited>;
  for (const k of Object.keys(labels) as K[]) out[k] = [labels[k], base[k], mine[k]];
  return out;
}
