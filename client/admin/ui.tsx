/// <reference lib="dom" />
/**
 * Shared pieces of the admin app: labelled fields, a save status shown next to what it concerns
 * (a polite live region, so screen readers hear it), one confirmation dialog for destructive
 * actions, and a copy button.
 */
import { type ComponentChildren, createContext } from "preact";
import { useContext, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { type Signal, signal } from "@preact/signals";
import { ApiError, type FieldError, messageOf } from "./api.ts";
import { keepFocus } from "./focus.ts";
import { fieldProblems } from "../../lib/field_text.ts";

/** How often tabs that show the service's state refresh it while the page is visible. */
export const POLL_MS = 5_000;

/** Runs `fn` now and every `ms` while the page is visible (and again when it shows). */
export function usePolling(fn: () => void, ms: number, deps: unknown[]) {
  useEffect(() => {
    fn();
    const timer = setInterval(() => {
      if (!document.hidden) fn();
    }, ms);
    const onVisible = () => {
      if (!document.hidden) fn();
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, deps);
}

/**
 * A form field's value that shows `server` (a setting refreshed from the service) until the
 * operator edits it: a change made elsewhere shows in an untouched field, and never overwrites
 * what the operator typed. `follow(saved)`, after a save, makes the field show the server's value
 * again unless the operator has typed something else since `saved` was sent; `follow()` always.
 * The fourth is the field's base: the server's value when the operator began editing (for
 * `checkedSave`, which then sees a save made elsewhere since).
 */
export function useFollowing<T>(
  server: T,
): [T, (v: T) => void, (saved?: T) => void, T] {
  const [edited, setEdited] = useState<{ v: T; base: T } | null>(null);
  return [
    edited ? edited.v : server,
    (v) => setEdited((e) => ({ v, base: e ? e.base : server })),
    (saved) =>
      setEdited((e) => saved !== undefined && e && e.v !== saved ? { v: e.v, base: saved } : null),
    edited ? edited.base : server,
  ];
}

/**
 * The outcome of the last action of a form: shown by `<Status>`. A refused form's `fields` are
 * shown by the fields they concern (`<Field name>`), the status only links to them.
 */
export type StatusValue =
  | { kind: "ok" | "error" | "busy"; text: string; fields?: FieldError[] }
  | null;

/** The status of a thrown error: its message, and the failing fields of a validation error. */
export function errorStatus(e: unknown): StatusValue {
  const fields = e instanceof ApiError ? e.fields : [];
  return { kind: "error", text: messageOf(e), fields: fields.length ? fields : undefined };
}

/**
 * What the form around a field knows of its errors: the failing fields of its last answer, and
 * where each field that showed its own error is (`placed`: path -> input id), so the form's
 * summary links to those and words only the others.
 */
interface FormErrors {
  fields: FieldError[];
  placed: Map<string, { id: string; label: string }>;
  /**
   * Bumped when a field has shown its error: a field that re-renders for the context alone does
   * so after the status did, which then renders again to link it instead of repeating it.
   */
  version: Signal<number>;
}
const FormErrorsContext = createContext<FormErrors | null>(null);

/** Provides a form's errors to its `<Field name>`s (ActionForm does this). */
export const FormErrorsProvider = FormErrorsContext.Provider;

/** A fresh error registry for one render of a form. */
export function formErrors(s: StatusValue): FormErrors {
  return {
    fields: s?.kind === "error" ? s.fields ?? [] : [],
    placed: new Map(),
    version: signal(0),
  };
}

/** Whether a failing field's path belongs to the field named `name` ("domains.0" to "domains"). */
const pathOf = (path: string, name: string) => path === name || path.startsWith(`${name}.`);

/**
 * The sentence of the failing field `name` in the enclosing form (undefined when it is fine),
 * recorded as shown there. `id` is its input's id, for the summary's link.
 */
export function useFieldError(
  name: string | undefined,
  id: string,
  label: string,
): string | undefined {
  const ctx = useContext(FormErrorsContext);
  const mine = ctx && name ? ctx.fields.filter((f) => pathOf(f.path, name)) : [];
  let added = false;
  for (const f of mine) {
    if (ctx!.placed.get(f.path)?.id !== id) added = true;
    ctx!.placed.set(f.path, { id, label });
  }
  useLayoutEffect(() => {
    if (added) ctx!.version.value++;
  });
  if (!mine.length) return undefined;
  return fieldProblems(mine).map((x) => x.text).join(" ");
}

/**
 * One form's action state: `run(fn, okText)` marks it busy, runs `fn`, then shows `okText` (or
 * what `fn` returned when it is a string) or the server's error message. The element that had
 * focus when it started gets it back (see `keepFocus`).
 */
export function useAction() {
  const [status, setStatus] = useState<StatusValue>(null);
  const busy = status?.kind === "busy";
  async function run<T>(fn: () => Promise<T>, okText = "Saved."): Promise<T | undefined> {
    const back = keepFocus();
    setStatus({ kind: "busy", text: "Working…" });
    try {
      const out = await fn();
      setStatus({ kind: "ok", text: typeof out === "string" ? out : okText });
      return out;
    } catch (e) {
      setStatus(errorStatus(e));
      return undefined;
    } finally {
      back();
    }
  }
  return { status, busy, run, setStatus };
}

/**
 * The status line of a form (always in the DOM, so the live region is announced). For refused
 * fields it is the form's summary: a link to each field that shows its own error, and the words
 * of the others (each error is said once).
 */
export function Status({ s, id }: { s: StatusValue; id?: string }) {
  const ctx = useContext(FormErrorsContext);
  // Read to render again once the fields have placed their errors (see FormErrors.version).
  void ctx?.version.value;
  const fields = s?.kind === "error" ? s.fields : undefined;
  let body: ComponentChildren = s?.text ?? "";
  if (fields?.length) {
    const problems = fieldProblems(fields);
    const placed = problems.filter((x) => ctx?.placed.has(x.path));
    const links = [...new Map(placed.map((x) => [ctx!.placed.get(x.path)!.id, x])).entries()];
    const rest = problems.filter((x) => !ctx?.placed.has(x.path));
    body = (
      <>
        {links.length > 0 && (
          <span class="summary">
            {links.length === 1 ? "Check this field: " : "Check these fields: "}
            {links.map(([target, x], i) => (
              <span key={target}>
                {i > 0 && ", "}
                <a href={`#${target}`}>{ctx!.placed.get(x.path)!.label}</a>
              </span>
            ))}.
          </span>
        )}
        {rest.map((x) => <span key={x.path + x.text}>{` ${x.label}: ${x.text}`}</span>)}
      </>
    );
  }
  return (
    <p
      id={id}
      class={`status ${s?.kind ?? ""}`}
      role={s?.kind === "error" ? "alert" : "status"}
      aria-live={s?.kind === "error" ? "assertive" : "polite"}
    >
      {body}
    </p>
  );
}

let nextId = 0;
/** A stable unique id for a label/input pair. */
export function useId(prefix = "f"): string {
  const ref = useRef<string | undefined>(undefined);
  return (ref.current ??= `${prefix}-${++nextId}`);
}

/**
 * A labelled field: `children` receives the input id and, when the form's last answer refused
 * the API field `name`, the error's id (for aria-describedby); the error shows under the input.
 */
export function Field(
  p: {
    label: string;
    hint?: string;
    name?: string;
    children: (id: string, errId?: string) => ComponentChildren;
  },
) {
  const id = useId();
  const err = useFieldError(p.name, id, p.label);
  return (
    <div class={err ? "field invalid" : "field"}>
      <label for={id}>{p.label}</label>
      {p.children(id, err ? `${id}-err` : undefined)}
      {err && <small id={`${id}-err`} class="field-error">{err}</small>}
      {p.hint && <small id={`${id}-hint`}>{p.hint}</small>}
    </div>
  );
}

/** A titled block of a tab or step. */
export function Section(p: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={p.id ? `${p.id}-h` : undefined}>
      <h2 id={p.id ? `${p.id}-h` : undefined} tabIndex={-1}>{p.title}</h2>
      {p.children}
    </section>
  );
}

interface ConfirmRequest {
  message: string;
  confirmLabel: string;
  resolve: (ok: boolean) => void;
}
const pending = signal<ConfirmRequest | null>(null);

/**
 * Asks before a destructive action: resolves true on confirm, false on cancel or Escape. One
 * modal `<dialog>` (focus moves into it and back) rendered by `<ConfirmHost>`.
 */
export function confirmAction(message: string, confirmLabel = "Confirm"): Promise<boolean> {
  return new Promise((resolve) => {
    pending.value?.resolve(false);
    pending.value = { message, confirmLabel, resolve };
  });
}

/** Renders the confirmation dialog; mount once at the root. */
export function ConfirmHost() {
  const ref = useRef<HTMLDialogElement>(null);
  const req = pending.value;
  const close = (ok: boolean) => {
    req?.resolve(ok);
    pending.value = null;
    ref.current?.close();
  };
  if (req && ref.current && !ref.current.open) ref.current.showModal();
  return (
    <dialog
      ref={(el) => {
        ref.current = el;
        if (el && req && !el.open) el.showModal();
      }}
      class="confirm"
      aria-labelledby="confirm-text"
      onCancel={(e) => {
        e.preventDefault();
        close(false);
      }}
    >
      <p id="confirm-text">{req?.message}</p>
      <div class="actions">
        <button type="button" onClick={() => close(false)}>Cancel</button>
        <button type="button" class="danger" onClick={() => close(true)}>
          {req?.confirmLabel ?? "Confirm"}
        </button>
      </div>
    </dialog>
  );
}

/** A button that copies `text` and says so. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // Clipboard refused (insecure context): select the text for a manual copy instead.
          const r = document.createRange();
          const el = document.querySelector(`[data-copy="${CSS.escape(text)}"]`);
          if (el) {
            r.selectNodeContents(el);
            getSelection()?.removeAllRanges();
            getSelection()?.addRange(r);
          }
        }
        setDone(true);
      }}
    >
      {done ? "Copied" : label}
    </button>
  );
}

/** A secret or URL shown once, selectable, with its copy button. */
export function OnceValue({ value, label }: { value: string; label: string }) {
  return (
    <div class="once">
      <code data-copy={value} aria-label={label}>{value}</code>
      <CopyButton text={value} />
    </div>
  );
}

/** A number as the operator's locale writes it (1,000,000 or 1.000.000). */
export const num = (n: number) => n.toLocaleString();

/** Unix ms -> the operator's local date and time (with its zone), or an em dash. */
export function localTime(ms: number | null | undefined): string {
  if (!ms) return "—";
  return new Date(ms).toLocaleString(undefined, { timeZoneName: "short" });
}
