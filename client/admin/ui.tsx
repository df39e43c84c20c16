/// <reference lib="dom" />
/**
 * Shared pieces of the admin app: labelled fields, a save status shown next to what it concerns
 * (a polite live region, so screen readers hear it), one confirmation dialog for destructive
 * actions, and a copy button.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { signal } from "@preact/signals";
import { messageOf } from "./api.ts";

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
 */
export function useFollowing<T extends string>(
  server: T,
): [T, (v: T) => void, (saved?: T) => void] {
  const [edited, setEdited] = useState<T | null>(null);
  return [
    edited ?? server,
    setEdited,
    (saved) => setEdited((e) => saved !== undefined && e !== saved ? e : null),
  ];
}

/** The outcome of the last action of a form: shown by `<Status>`. */
export type StatusValue = { kind: "ok" | "error" | "busy"; text: string } | null;

/**
 * One form's action state: `run(fn, okText)` marks it busy, runs `fn`, then shows `okText` (or
 * what `fn` returned when it is a string) or the server's error message.
 */
export function useAction() {
  const [status, setStatus] = useState<StatusValue>(null);
  const busy = status?.kind === "busy";
  async function run<T>(fn: () => Promise<T>, okText = "Saved."): Promise<T | undefined> {
    setStatus({ kind: "busy", text: "Working…" });
    try {
      const out = await fn();
      setStatus({ kind: "ok", text: typeof out === "string" ? out : okText });
      return out;
    } catch (e) {
      setStatus({ kind: "error", text: messageOf(e) });
      return undefined;
    }
  }
  return { status, busy, run, setStatus };
}

/** The status line of a form (always in the DOM, so the live region is announced). */
export function Status({ s, id }: { s: StatusValue; id?: string }) {
  return (
    <p
      id={id}
      class={`status ${s?.kind ?? ""}`}
      role={s?.kind === "error" ? "alert" : "status"}
      aria-live={s?.kind === "error" ? "assertive" : "polite"}
    >
      {s?.text ?? ""}
    </p>
  );
}

let nextId = 0;
/** A stable unique id for a label/input pair. */
export function useId(prefix = "f"): string {
  const ref = useRef<string | undefined>(undefined);
  return (ref.current ??= `${prefix}-${++nextId}`);
}

/** A labelled field: `children` receives the input id (put it on the control). */
export function Field(
  p: { label: string; hint?: string; children: (id: string) => ComponentChildren },
) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      {p.children(id)}
      {p.hint && <small id={`${id}-hint`}>{p.hint}</small>}
    </div>
  );
}

/** A titled block of a tab or step. */
export function Section(p: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={p.id ? `${p.id}-h` : undefined}>
      <h2 id={p.id ? `${p.id}-h` : undefined}>{p.title}</h2>
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

/** Unix ms -> the operator's local date and time (with its zone), or an em dash. */
export function localTime(ms: number | null | undefined): string {
  if (!ms) return "—";
  return new Date(ms).toLocaleString(undefined, { timeZoneName: "short" });
}
