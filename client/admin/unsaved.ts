/// <reference lib="dom" />
/**
 * Edits typed but not saved, app-wide: a form is marked when the operator types in it and cleared
 * when it saves (or leaves the page). Switching tab or queue re-renders the control room's panel
 * from scratch, and closing or reloading the page ends it, so both ask first while an edit is
 * unsaved instead of dropping it without a word.
 */
import { confirmAction } from "./ui.tsx";

const unsaved = new Set<symbol>();

/** Marks (`on`) or clears the form `id` as holding unsaved edits. */
export function markUnsaved(id: symbol, on: boolean) {
  if (on) unsaved.add(id);
  else unsaved.delete(id);
}

/** True when some form holds edits not saved yet. */
export const hasUnsaved = (): boolean => unsaved.size > 0;

/**
 * Resolves true when nothing is unsaved, or the operator chose to drop the unsaved edits (they
 * are then forgotten); false keeps them where they are.
 */
export async function leaveUnsaved(): Promise<boolean> {
  if (!unsaved.size) return true;
  const ok = await confirmAction(
    "Some changes on this tab are not saved yet. Leave them unsaved?",
    "Leave without saving",
  );
  if (ok) unsaved.clear();
  return ok;
}

/** The browser's own "leave this page?" question while an edit is unsaved (close, reload). */
export function guardPageExit() {
  addEventListener("beforeunload", (e) => {
    if (unsaved.size) e.preventDefault();
  });
}
