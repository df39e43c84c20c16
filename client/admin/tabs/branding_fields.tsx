/// <reference lib="dom" />
/**
 * The branding form's fields: a labelled field with hint and server error, a colour field (hex
 * text beside a picker), and a queue's "inherit" box. The form itself is branding_form.tsx.
 */
import type { ComponentChildren } from "preact";
import type { FieldError } from "../api.ts";
import { useId } from "../ui.tsx";

/** `#rgb` -> `#rrggbb` for the colour picker (which only takes the long form). */
function longHex(c: string): string {
  if (/^#[0-9a-f]{6}$/i.test(c)) return c.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(c)) return "#" + [...c.slice(1)].map((x) => x + x).join("");
  return "#000000";
}

/** aria-describedby (hint, and error when the server refused the field) + aria-invalid. */
export function invalid(id: string, err: FieldError | undefined) {
  return err
    ? { "aria-invalid": true as const, "aria-describedby": `${id}-hint ${id}-err` }
    : { "aria-describedby": `${id}-hint` };
}

/** A labelled field with its hint and, when the server refused it, its error. */
export function BField(
  p: {
    label: string;
    hint?: string;
    err?: FieldError;
    extra?: ComponentChildren;
    children: (id: string) => ComponentChildren;
  },
) {
  const id = useId("brand");
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      {p.extra}
      {p.children(id)}
      {p.hint && <small id={`${id}-hint`}>{p.hint}</small>}
      {p.err && <small id={`${id}-err`} class="branding-err">{p.err.message}</small>}
    </div>
  );
}

/** A colour as hex text (what is saved) beside a colour picker that edits the same value. */
export function ColorField(
  p: {
    label: string;
    value: string;
    err?: FieldError;
    disabled?: boolean;
    extra?: ComponentChildren;
    onChange: (v: string) => void;
  },
) {
  const id = useId("brand");
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      {p.extra}
      <div class="branding-color">
        <input
          type="color"
          disabled={p.disabled}
          aria-label={`${p.label} picker`}
          value={longHex(p.value)}
          onInput={(e) => p.onChange((e.target as HTMLInputElement).value)}
        />
        <input
          id={id}
          type="text"
          size={9}
          disabled={p.disabled}
          spellcheck={false}
          autoComplete="off"
          value={p.value}
          {...invalid(id, p.err)}
          onInput={(e) => p.onChange((e.target as HTMLInputElement).value.trim())}
        />
      </div>
      <small id={`${id}-hint`}>Like #2563eb or #fff.</small>
      {p.err && <small id={`${id}-err`} class="branding-err">{p.err.message}</small>}
    </div>
  );
}

/** The "inherit" box of a field in queue mode. */
export function InheritBox(p: { field: string; checked: boolean; onChange: (v: boolean) => void }) {
  const id = useId("inherit");
  return (
    <span class="inherit">
      <input
        id={id}
        type="checkbox"
        checked={p.checked}
        aria-label={`${p.field}: inherit from all queues`}
        onChange={(e) => p.onChange(e.currentTarget.checked)}
      />
      <label for={id} aria-hidden="true">inherit</label>
    </span>
  );
}
