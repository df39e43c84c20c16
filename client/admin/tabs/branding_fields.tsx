/// <reference lib="dom" />
/**
 * The branding form's fields: a labelled field with hint and server error, a colour field (hex
 * text beside a picker), and a queue's "inherit" box. The form itself is branding_form.tsx.
 */
import type { ComponentChildren } from "preact";
import { useFieldError, useId } from "../ui.tsx";

/** `#rgb` -> `#rrggbb` for the colour picker (which only takes the long form). */
function longHex(c: string): string {
  if (/^#[0-9a-f]{6}$/i.test(c)) return c.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(c)) return "#" + [...c.slice(1)].map((x) => x + x).join("");
  return "#000000";
}

/** aria-describedby (hint, and error when the server refused the field) + aria-invalid. */
export function invalid(id: string, errId: string | undefined) {
  return errId
    ? { "aria-invalid": true as const, "aria-describedby": `${errId} ${id}-hint` }
    : { "aria-describedby": `${id}-hint` };
}

/**
 * A labelled field with its hint and, when the server refused the API field `name`, its error
 * (worded once, by lib/field_text.ts; the form's status links here).
 */
export function BField(
  p: {
    label: string;
    name: string;
    hint?: string;
    extra?: ComponentChildren;
    children: (id: string, errId?: string) => ComponentChildren;
  },
) {
  const id = useId("brand");
  const err = useFieldError(p.name, id, p.label);
  const errId = err ? `${id}-err` : undefined;
  return (
    <div class={err ? "field invalid" : "field"}>
      <label for={id}>{p.label}</label>
      {p.extra}
      {p.children(id, errId)}
      {err && <small id={errId} class="field-error">{err}</small>}
      {p.hint && <small id={`${id}-hint`}>{p.hint}</small>}
    </div>
  );
}

/** A colour as hex text (what is saved) beside a colour picker that edits the same value. */
export function ColorField(
  p: {
    label: string;
    name: string;
    value: string;
    disabled?: boolean;
    extra?: ComponentChildren;
    onChange: (v: string) => void;
  },
) {
  const id = useId("brand");
  const err = useFieldError(p.name, id, p.label);
  const errId = err ? `${id}-err` : undefined;
  return (
    <div class={err ? "field invalid" : "field"}>
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
          {...invalid(id, errId)}
          onInput={(e) => p.onChange((e.target as HTMLInputElement).value.trim())}
        />
      </div>
      {err && <small id={errId} class="field-error">{err}</small>}
      <small id={`${id}-hint`}>Like #2563eb or #fff.</small>
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
