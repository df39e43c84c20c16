/// <reference lib="dom" />
/**
 * Form pieces the screens, tabs and wizard steps share: an input bound to a string state, a
 * labelled checkbox, a form with its submit button and status, a one-time GET on mount, a list
 * table with a confirmed remove, and the account pieces (terms box, new username and password,
 * recovery phrase shown once).
 */
import type { ComponentChildren, InputHTMLAttributes } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, messageOf } from "./api.ts";
import type { Bootstrap } from "./boot.ts";
import { markUnsaved } from "./unsaved.ts";
import { keepFocus } from "./focus.ts";
import {
  confirmAction,
  CopyButton,
  Field,
  formErrors,
  FormErrorsProvider,
  Status,
  useAction,
  useId,
} from "./ui.tsx";

/** What `useAction()` gives a form. */
export type Action = ReturnType<typeof useAction>;

/** The attributes an `<Input>` passes on to its input. */
interface InputAttrs {
  type?: string;
  autocomplete?: string;
  required?: boolean;
  min?: number | string;
  max?: number | string;
  step?: number | string;
  inputMode?: string;
  placeholder?: string;
  spellcheck?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  title?: string;
}

/**
 * A labelled input bound to a string: `onValue` gets every edit. Other attributes (type, min,
 * autocomplete…) go on the input; `describe` points aria-describedby at the hint.
 */
export function Input(
  p:
    & { label: string; hint?: string; value: string; onValue: (v: string) => void }
    & { describe?: boolean; name?: string }
    & InputAttrs,
) {
  const { label, hint, value, onValue, describe, name, ...attrs } = p;
  return (
    <Field label={label} hint={hint} name={name}>
      {(id, errId) => (
        <input
          id={id}
          aria-invalid={errId ? true : undefined}
          aria-describedby={[errId, describe && hint ? `${id}-hint` : ""].filter(Boolean).join(
            " ",
          ) ||
            undefined}
          {...attrs as InputHTMLAttributes<HTMLInputElement>}
          value={value}
          onInput={(e) => onValue(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/** A checkbox with its label after it (a `.field.inline` row). */
export function Check(
  p: {
    label: ComponentChildren;
    checked: boolean;
    onChange: (v: boolean) => void;
    id?: string;
    required?: boolean;
    disabled?: boolean;
  },
) {
  const auto = useId("check");
  const id = p.id ?? auto;
  return (
    <div class="field inline">
      <input
        id={id}
        type="checkbox"
        required={p.required}
        disabled={p.disabled}
        checked={p.checked}
        onChange={(e) => p.onChange(e.currentTarget.checked)}
      />
      <label for={id}>{p.label}</label>
    </div>
  );
}

/**
 * A group of radio buttons, one `.field.inline` row each: `options` are [value, label] pairs, ids
 * are `<ids>-<value>` (`ids` defaults to `name`).
 */
export function Radios<V extends string>(
  p: {
    legend: string;
    name: string;
    ids?: string;
    class?: string;
    options: readonly (readonly [V, ComponentChildren])[];
    value: V;
    onChange: (v: V) => void;
  },
) {
  return (
    <fieldset class={p.class}>
      <legend>{p.legend}</legend>
      {p.options.map(([v, label]) => (
        <div class="field inline" key={v}>
          <input
            id={`${p.ids ?? p.name}-${v}`}
            type="radio"
            name={p.name}
            checked={p.value === v}
            onChange={() => p.onChange(v)}
          />
          <label for={`${p.ids ?? p.name}-${v}`}>{label}</label>
        </div>
      ))}
    </fieldset>
  );
}

/**
 * A form that runs `onSubmit` (Enter or its button), then its actions row (the submit button,
 * disabled while busy or when `disabled`, and any `buttons`), its status, and `after`.
 */
export function ActionForm(
  p: {
    act: Action;
    submit: ComponentChildren;
    onSubmit: () => unknown;
    noValidate?: boolean;
    class?: string;
    disabled?: boolean;
    /** Its values are still loading: fields and submit stay disabled. */
    loading?: boolean;
    buttons?: ComponentChildren;
    after?: ComponentChildren;
    children?: ComponentChildren;
  },
) {
  // Fields register the errors they show while rendering, before the status below reads them.
  const errs = formErrors(p.act.status);
  // Typed in: unsaved until a run of this form succeeds (or the form goes away).
  const id = useRef(Symbol("form")).current;
  useEffect(() => () => markUnsaved(id, false), []);
  useEffect(() => {
    if (p.act.status?.kind === "ok") markUnsaved(id, false);
  }, [p.act.status]);
  return (
    <FormErrorsProvider value={errs}>
      <form
        class={p.class}
        noValidate={p.noValidate}
        onInput={() => markUnsaved(id, true)}
        onSubmit={(e) => {
          e.preventDefault();
          p.onSubmit();
        }}
      >
        <fieldset class="bare" disabled={p.loading} aria-busy={p.loading || undefined}>
          {p.children}
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={p.act.busy || p.disabled || p.loading}>{p.submit}</button>
          {p.buttons}
        </div>
        <Status s={p.act.status} />
        {p.after}
      </form>
    </FormErrorsProvider>
  );
}

/**
 * GETs `path` once on mount into `show`; a failure goes to `act`'s status (worded by `text`), or
 * is ignored without `act`. Gives `reload`, to run again after a change, and `loaded`, false
 * until the first answer came (an `ActionForm` with `loading` keeps its fields disabled till then,
 * so nothing typed early is overwritten by the answer).
 */
export function useLoad<T>(
  path: string,
  show: (v: T) => void,
  act?: Action,
  text: (e: unknown) => string = messageOf,
): { reload: () => Promise<void>; loaded: boolean } {
  const [loaded, setLoaded] = useState(false);
  const reload = () =>
    api<T>("GET", path).then(show).catch((e) => act?.setStatus({ kind: "error", text: text(e) }))
      .finally(() => setLoaded(true));
  useEffect(() => {
    reload();
  }, []);
  return { reload, loaded };
}

/**
 * Asks first (`confirmAction`), then runs `fn` through `act` and, when it succeeded, `after`.
 * Resolves with what `fn` gave (undefined when cancelled or failed).
 */
export async function confirmedRun<T>(
  act: Action,
  question: string,
  confirmLabel: string,
  fn: () => Promise<T>,
  okText?: string,
  after?: (out: T) => unknown,
): Promise<T | undefined> {
  // Its `after` may remove the pressed button (a row deleted): focus goes to the card then.
  const back = keepFocus();
  if (!await confirmAction(question, confirmLabel)) return undefined;
  const out = await act.run(fn, okText);
  if (out) await after?.(out);
  back();
  return out;
}

/**
 * A table of rows with a last "Actions" column holding a remove button per row (where `canRemove`
 * allows); `empty` is said instead of an empty table.
 */
export function RemoveTable<T>(
  p: {
    rows: T[] | null;
    empty?: string;
    columns: string[];
    rowKey: (r: T) => string;
    cells: (r: T) => ComponentChildren;
    removeLabel: string;
    removeName: (r: T) => string;
    canRemove?: (r: T) => boolean;
    busy: boolean;
    onRemove: (r: T) => void;
  },
) {
  if (!p.rows) return null;
  if (p.rows.length === 0) return p.empty ? <p>{p.empty}</p> : null;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            {p.columns.map((c) => <th scope="col" key={c}>{c}</th>)}
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {p.rows.map((r) => (
            <tr key={p.rowKey(r)}>
              {p.cells(r)}
              <td>
                {(p.canRemove?.(r) ?? true) && (
                  <button
                    type="button"
                    class="danger"
                    disabled={p.busy}
                    aria-label={p.removeName(r)}
                    onClick={() => p.onRemove(r)}
                  >
                    {p.removeLabel}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The terms summary and its "I accept" checkbox (required to submit). */
export function TosBox(
  p: { boot: Bootstrap; checked: boolean; onChange: (v: boolean) => void },
) {
  return (
    <div class="tos">
      <h3>Terms of service (version {p.boot.tosVersion})</h3>
      <p class="tos-text">{p.boot.tosSummary}</p>
      <Check
        label="I accept the terms of service"
        required
        checked={p.checked}
        onChange={p.onChange}
      />
    </div>
  );
}

/** The username of a sign-in, recovery or new account. */
export function UsernameInput(p: { value: string; onValue: (v: string) => void; hint?: string }) {
  return (
    <Input
      label="Username"
      name="username"
      autocomplete="username"
      required
      maxLength={64}
      {...p}
    />
  );
}

/** The username and password of a new account (claim, invite). */
export function NewAccountFields(
  p: {
    username: string;
    setUsername: (v: string) => void;
    password: string;
    setPassword: (v: string) => void;
  },
) {
  return (
    <>
      <Input
        label="Username"
        name="username"
        autocomplete="username"
        required
        // The browser checks what it can before anything is sent (the server checks again).
        pattern="[A-Za-z0-9][A-Za-z0-9._\-]{2,31}"
        title="3 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit"
        hint="3 to 32 letters, digits, '.', '_' or '-'"
        value={p.username}
        onValue={p.setUsername}
      />
      <Input
        label="Password"
        name="password"
        hint="At least 12 characters"
        type="password"
        autocomplete="new-password"
        required
        minLength={12}
        maxLength={1024}
        value={p.password}
        onValue={p.setPassword}
      />
    </>
  );
}

/**
 * A recovery phrase shown this once: the words, a copy button, and an "I saved it" checkbox that
 * must be ticked before `onContinue` can run.
 */
export function PhraseOnce(
  p: { phrase: string; onContinue: () => void; continueLabel?: string; intro?: string },
) {
  const [saved, setSaved] = useState(false);
  // The form that made it is gone: focus (and a screen reader) goes to the phrase, not the page.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <div class="phrase-once">
      <h2 id="phrase-h" ref={heading} tabIndex={-1}>Your recovery phrase</h2>
      <p>
        {p.intro ??
          "It is shown this once. Write it down or store it in a password manager: it is the only " +
            "way back in if you forget your password."}
      </p>
      <div class="once">
        <code class="phrase" data-copy={p.phrase} aria-label="Recovery phrase">{p.phrase}</code>
        <CopyButton text={p.phrase} label="Copy phrase" />
      </div>
      <Check label="I saved my recovery phrase" checked={saved} onChange={setSaved} />
      <div class="actions">
        <button type="button" class="primary" disabled={!saved} onClick={p.onContinue}>
          {p.continueLabel ?? "Continue"}
        </button>
      </div>
    </div>
  );
}
