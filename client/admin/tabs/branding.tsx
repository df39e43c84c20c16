/// <reference lib="dom" />
/**
 * The Branding tab: every field of the service-wide branding record (BrandingInput in
 * lib/branding.ts), saved with `PUT /api/admin/branding`. A failing field is named in the form's
 * status and marked on the field itself. The waiting page of the picked queue is previewed in an
 * iframe that reloads after each successful save.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Branding } from "../../../lib/queue/types.ts";
import { api, ApiError, basePath, type FieldError, messageOf } from "../api.ts";
import type { TabProps } from "../boot.ts";
import { ActionForm, Check } from "../forms.tsx";
import { Section, useAction, useId } from "../ui.tsx";

type Key = keyof Branding;

/** `#rgb` -> `#rrggbb` for the colour picker (which only takes the long form). */
function longHex(c: string): string {
  if (/^#[0-9a-f]{6}$/i.test(c)) return c.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(c)) return "#" + [...c.slice(1)].map((x) => x + x).join("");
  return "#000000";
}

/** The stored branding (`GET /api/admin/state`). */
export async function loadBranding(): Promise<Branding> {
  return (await api<{ branding: Branding }>("GET", "/api/admin/state")).branding;
}

export function BrandingTab({ queue }: TabProps) {
  const [b, setB] = useState<Branding | null>(null);
  const [loadErr, setLoadErr] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    loadBranding().then(setB).catch((e) => setLoadErr(messageOf(e)));
  }, []);

  if (loadErr) return <p class="status error" role="alert">{loadErr}</p>;
  if (!b) return <p>Loading…</p>;

  return (
    <div class="branding">
      <Section title="Waiting page look" id="brand-form">
        <BrandingForm initial={b} onSaved={() => setReload((n) => n + 1)} />
      </Section>
      <Section title="Preview" id="brand-preview">
        <p class="muted">
          The waiting page of queue {queue}{" "}
          as visitors see it when embedded, with sample figures (the preview does not join the
          queue).
        </p>
        <iframe
          key={reload}
          class="branding-preview"
          src={`${basePath()}/wait?embed=1&preview=1&queue=${encodeURIComponent(queue)}`}
          title="Waiting page preview"
        />
      </Section>
    </div>
  );
}

/**
 * Every field of the branding record, saved with `PUT /api/admin/branding`; after a save,
 * `onSaved` runs (within the save: its failure is the form's error) before the success is shown.
 * Shared by the Branding tab and the wizard's branding step.
 */
export function BrandingForm(
  p: { initial: Branding; onSaved?: (saved: Branding) => unknown },
) {
  const [b, setB] = useState<Branding>(p.initial);
  const [hold, setHold] = useState(String(p.initial.admitHoldSeconds));
  const [fieldErrs, setFieldErrs] = useState<FieldError[]>([]);
  const a = useAction();

  const put = <K extends Key>(k: K, v: Branding[K]) => setB({ ...b, [k]: v });
  const errOf = (k: Key) => fieldErrs.find((f) => f.path === k || f.path.startsWith(`${k}.`));

  const save = () =>
    a.run(async () => {
      setFieldErrs([]);
      try {
        const saved = await api<Branding>("PUT", "/api/admin/branding", {
          ...b,
          admitHoldSeconds: hold.trim() === "" ? NaN : Number(hold),
        });
        setB(saved);
        setHold(String(saved.admitHoldSeconds));
        await p.onSaved?.(saved);
        return "Branding saved. The preview shows it.";
      } catch (e) {
        if (e instanceof ApiError) setFieldErrs(e.fields);
        throw e;
      }
    });

  const text = (k: "title" | "logoUrl" | "redirectUrl") => (id: string) => {
    const common = {
      id,
      value: b[k],
      maxLength: k === "title" ? 120 : 2048,
      ...invalid(id, errOf(k)),
      onInput: (e: Event) => put(k, (e.target as HTMLInputElement).value),
    };
    return k === "title" ? <input type="text" {...common} /> : <input type="url" {...common} />;
  };

  return (
    <ActionForm act={a} class="branding-form" noValidate submit="Save branding" onSubmit={save}>
      <BField label="Title" err={errOf("title")}>{text("title")}</BField>
      <BField label="Message" err={errOf("message")} hint="Shown under the title.">
        {(id) => (
          <textarea
            id={id}
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
      >
        {text("logoUrl")}
      </BField>
      <ColorField
        label="Main colour"
        value={b.primaryColor}
        err={errOf("primaryColor")}
        onChange={(v) =>
          put("primaryColor", v)}
      />
      <ColorField
        label="Background colour"
        value={b.backgroundColor}
        err={errOf("backgroundColor")}
        onChange={(v) =>
          put("backgroundColor", v)}
      />
      <Check
        label="Show how many people are waiting"
        checked={b.showWaitingCount}
        onChange={(v) =>
          put("showWaitingCount", v)}
      />
      <Check
        label="Click to enter: admitted visitors confirm with a button"
        checked={b.clickToEnter}
        onChange={(v) =>
          put("clickToEnter", v)}
      />
      <BField
        label="Seconds an admitted visitor's place is held"
        err={errOf("admitHoldSeconds")}
        hint="10 to 3600. Unused places go to the next visitor."
      >
        {(id) => (
          <input
            id={id}
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
    children: (id: string) => ComponentChildren;
  },
) {
  const id = useId("brand");
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      {p.children(id)}
      {p.hint && <small id={`${id}-hint`}>{p.hint}</small>}
      {p.err && <small id={`${id}-err`} class="branding-err">{p.err.message}</small>}
    </div>
  );
}

/** A colour as hex text (what is saved) beside a colour picker that edits the same value. */
function ColorField(
  p: { label: string; value: string; err?: FieldError; onChange: (v: string) => void },
) {
  const id = useId("brand");
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <div class="branding-color">
        <input
          type="color"
          aria-label={`${p.label} picker`}
          value={longHex(p.value)}
          onInput={(e) => p.onChange((e.target as HTMLInputElement).value)}
        />
        <input
          id={id}
          type="text"
          size={9}
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
