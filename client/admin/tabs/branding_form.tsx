/// <reference lib="dom" />
/**
 * The branding form: every field of the branding record (BrandingInput in lib/branding.ts),
 * saved with `PUT /api/admin/branding`, service-wide or as one queue's overrides (each field
 * then has an "inherit" box: inherited fields follow the service-wide value). A failing field is
 * named in the form's status and marked on the field itself. `onDraft` hears every edit, so a
 * preview can follow the form before it is saved.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Branding } from "../../../lib/queue/types.ts";
import { api, ApiError, type FieldError } from "../api.ts";
import { ActionForm, Check } from "../forms.tsx";
import { useAction, useId } from "../ui.tsx";

type Key = keyof Branding;

/** Field names as the form labels them (for the "inherit" boxes). */
const LABELS: Record<Key, string> = {
  title: "Title",
  message: "Message",
  logoUrl: "Logo URL",
  primaryColor: "Main colour",
  backgroundColor: "Background colour",
  showWaitingCount: "Show how many people are waiting",
  clickToEnter: "Click to enter",
  admitHoldSeconds: "Seconds held",
  redirectUrl: "Where admitted visitors go",
};

/** `#rgb` -> `#rrggbb` for the colour picker (which only takes the long form). */
function longHex(c: string): string {
  if (/^#[0-9a-f]{6}$/i.test(c)) return c.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(c)) return "#" + [...c.slice(1)].map((x) => x + x).join("");
  return "#000000";
}

/** A queue's branding as `GET /api/admin/branding?queue=` answers it. */
export interface QueueBranding {
  queue: string;
  service: Branding;
  overrides: Partial<Branding>;
  effective: Branding;
}

/**
 * Every field of the branding record, saved with `PUT /api/admin/branding` (with `queue`: as
 * that queue's overrides); after a save, `onSaved` runs (within the save: its failure is the
 * form's error) before the success is shown. Shared by the Branding tab and the wizard's step.
 */
export function BrandingForm(
  p: {
    initial: Branding;
    /** Edit one queue's overrides instead of the service-wide record. */
    queue?: QueueBranding;
    onSaved?: (saved: Branding) => unknown;
    onDraft?: (draft: Branding) => void;
  },
) {
  const start = p.queue ? p.queue.effective : p.initial;
  const [b, setB] = useState<Branding>(start);
  const [hold, setHold] = useState(String(start.admitHoldSeconds));
  const [inherit, setInherit] = useState<Set<Key>>(
    () =>
      new Set(
        p.queue ? (Object.keys(start) as Key[]).filter((k) => !(k in p.queue!.overrides)) : [],
      ),
  );
  const [fieldErrs, setFieldErrs] = useState<FieldError[]>([]);
  const a = useAction();
  useEffect(() => {
    const h = Number(hold);
    p.onDraft?.({ ...b, admitHoldSeconds: hold.trim() && h >= 10 && h <= 3600 ? h : NaN });
  }, [b, hold]);

  const put = <K extends Key>(k: K, v: Branding[K]) => setB({ ...b, [k]: v });
  const errOf = (k: Key) => fieldErrs.find((f) => f.path === k || f.path.startsWith(`${k}.`));
  /** The "inherit" box of a field (queue mode only): ticked, the service-wide value shows. */
  const inh = (k: Key) =>
    p.queue && (
      <InheritBox
        field={LABELS[k]}
        checked={inherit.has(k)}
        onChange={(on) => {
          const next = new Set(inherit);
          if (on) {
            next.add(k);
            put(k, p.queue!.service[k]);
            if (k === "admitHoldSeconds") setHold(String(p.queue!.service.admitHoldSeconds));
          } else next.delete(k);
          setInherit(next);
        }}
      />
    );
  const off = (k: Key) => inherit.has(k);

  const save = () =>
    a.run(async () => {
      setFieldErrs([]);
      const values: Branding = {
        ...b,
        admitHoldSeconds: hold.trim() === "" ? NaN : Number(hold),
      };
      try {
        let saved: Branding;
        if (p.queue) {
          const body: Record<string, unknown> = { queue: p.queue.queue };
          for (const k of Object.keys(values) as Key[]) body[k] = off(k) ? null : values[k];
          saved = (await api<QueueBranding>("PUT", "/api/admin/branding", body)).effective;
        } else saved = await api<Branding>("PUT", "/api/admin/branding", values);
        setB(saved);
        setHold(String(saved.admitHoldSeconds));
        await p.onSaved?.(saved);
        return p.queue
          ? `Branding of queue ${p.queue.queue} saved.`
          : "Branding saved for every queue (fields a queue overrides stay its own).";
      } catch (e) {
        if (e instanceof ApiError) setFieldErrs(e.fields);
        throw e;
      }
    });

  const text = (k: "title" | "logoUrl" | "redirectUrl") => (id: string) => {
    const common = {
      id,
      value: b[k],
      disabled: off(k),
      maxLength: k === "title" ? 120 : 2048,
      ...invalid(id, errOf(k)),
      onInput: (e: Event) => put(k, (e.target as HTMLInputElement).value),
    };
    return k === "title" ? <input type="text" {...common} /> : <input type="url" {...common} />;
  };

  return (
    <ActionForm act={a} class="branding-form" noValidate submit="Save branding" onSubmit={save}>
      <BField label="Title" err={errOf("title")} extra={inh("title")}>{text("title")}</BField>
      <BField
        label="Message"
        err={errOf("message")}
        hint="Shown under the title."
        extra={inh("message")}
      >
        {(id) => (
          <textarea
            id={id}
            disabled={off("message")}
            maxLength={2000}
            value={b.message}
            {...invalid(id, errOf("message"))}
            onInput={(e) => put("message", (e.target as HTMLTextAreaElement).value)}
          />
        )}
      </BField>
      <BField
        label="Logo URL"
        err={errOf("logoUrl")}
        hint="Empty, a path on this site (/logo.png) or an https:// URL."
        extra={inh("logoUrl")}
      >
        {text("logoUrl")}
      </BField>
      <ColorField
        label="Main colour"
        value={b.primaryColor}
        disabled={off("primaryColor")}
        extra={inh("primaryColor")}
        err={errOf("primaryColor")}
        onChange={(v) =>
          put("primaryColor", v)}
      />
      <ColorField
        label="Background colour"
        value={b.backgroundColor}
        disabled={off("backgroundColor")}
        extra={inh("backgroundColor")}
        err={errOf("backgroundColor")}
        onChange={(v) =>
          put("backgroundColor", v)}
      />
      <div class="branding-row">
        <Check
          label="Show how many people are waiting"
          checked={b.showWaitingCount}
          disabled={off("showWaitingCount")}
          onChange={(v) =>
            put("showWaitingCount", v)}
        />
        {inh("showWaitingCount")}
      </div>
      <div class="branding-row">
        <Check
          label="Click to enter: admitted visitors confirm with a button"
          checked={b.clickToEnter}
          disabled={off("clickToEnter")}
          onChange={(v) =>
            put("clickToEnter", v)}
        />
        {inh("clickToEnter")}
      </div>
      <BField
        label="Seconds an admitted visitor's place is held"
        err={errOf("admitHoldSeconds")}
        hint="10 to 3600. Unused places go to the next visitor."
        extra={inh("admitHoldSeconds")}
      >
        {(id) => (
          <input
            id={id}
            disabled={off("admitHoldSeconds")}
            type="number"
            inputMode="numeric"
            min="10"
            max="3600"
            step="1"
            value={hold}
            {...invalid(id, errOf("admitHoldSeconds"))}
            onInput={(e) => setHold((e.target as HTMLInputElement).value)}
          />
        )}
      </BField>
      <BField
        label="Where admitted visitors go"
        err={errOf("redirectUrl")}
        hint="Used when the waiting link names no return page. Empty: the site root (the demo page until an origin is set), a path on this site or an https:// URL."
        extra={inh("redirectUrl")}
      >
        {text("redirectUrl")}
      </BField>
    </ActionForm>
  );
}

/** aria-describedby (hint, and error when the server refused the field) + aria-invalid. */
function invalid(id: string, err: FieldError | undefined) {
  return err
    ? { "aria-invalid": true as const, "aria-describedby": `${id}-hint ${id}-err` }
    : { "aria-describedby": `${id}-hint` };
}

/** A labelled field with its hint and, when the server refused it, its error. */
function BField(
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
function ColorField(
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
function InheritBox(p: { field: string; checked: boolean; onChange: (v: boolean) => void }) {
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
