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
import type { Branding } from "../../../lib/branding.ts";
import { BField, ColorField, InheritBox, invalid } from "./branding_fields.tsx";
import { ActionForm, Check } from "../forms.tsx";
import { useAction } from "../ui.tsx";
import {
  type BrandingSide,
  inheritedOf,
  putBranding,
  type QueueBranding,
} from "./branding_patch.ts";

export type { QueueBranding };
import { MessageFields } from "./branding_messages.tsx";
import type { Lang } from "../../../lib/i18n/langs.ts";

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
  messages: "Visitor messages",
};

/** What each group of fields needs from the form: values, setter, errors, inherit boxes. */
interface Kit {
  b: Branding;
  put: <K extends Key>(k: K, v: Branding[K]) => void;
  inh: (k: Key) => ComponentChildren;
  off: (k: Key) => boolean;
  text: (
    k: "title" | "logoUrl" | "redirectUrl",
  ) => (id: string, errId?: string) => ComponentChildren;
}

/** How the page looks: title, message, logo and colours. */
function LookFields(k: Kit) {
  return (
    <>
      <BField label="Title" name="title" extra={k.inh("title")}>{k.text("title")}</BField>
      <BField
        label="Message"
        name="message"
        hint="Shown under the title."
        extra={k.inh("message")}
      >
        {(id, errId) => (
          <textarea
            id={id}
            disabled={k.off("message")}
            maxLength={2000}
            value={k.b.message}
            {...invalid(id, errId)}
            onInput={(e) => k.put("message", (e.target as HTMLTextAreaElement).value)}
          />
        )}
      </BField>
      <BField
        label="Logo URL"
        name="logoUrl"
        hint="Empty, a path on this site (/logo.png) or an https:// URL."
        extra={k.inh("logoUrl")}
      >
        {k.text("logoUrl")}
      </BField>
      <ColorField
        label="Main colour"
        value={k.b.primaryColor}
        disabled={k.off("primaryColor")}
        extra={k.inh("primaryColor")}
        name="primaryColor"
        onChange={(v) => k.put("primaryColor", v)}
      />
      <ColorField
        label="Background colour"
        value={k.b.backgroundColor}
        disabled={k.off("backgroundColor")}
        extra={k.inh("backgroundColor")}
        name="backgroundColor"
        onChange={(v) => k.put("backgroundColor", v)}
      />
    </>
  );
}

/** How admission goes: the waiting count, click to enter, the hold, and where visitors go. */
function AdmissionFields(k: Kit & { hold: string; setHold: (v: string) => void }) {
  return (
    <>
      <div class="branding-row">
        <Check
          label="Show how many people are waiting"
          checked={k.b.showWaitingCount}
          disabled={k.off("showWaitingCount")}
          onChange={(v) => k.put("showWaitingCount", v)}
        />
        {k.inh("showWaitingCount")}
      </div>
      <div class="branding-row">
        <Check
          label="Click to enter: admitted visitors confirm with a button"
          checked={k.b.clickToEnter}
          disabled={k.off("clickToEnter")}
          onChange={(v) => k.put("clickToEnter", v)}
        />
        {k.inh("clickToEnter")}
      </div>
      <BField
        label="Seconds an admitted visitor's place is held"
        name="admitHoldSeconds"
        hint="10 to 3600. Unused places go to the next visitor."
        extra={k.inh("admitHoldSeconds")}
      >
        {(id, errId) => (
          <input
            id={id}
            disabled={k.off("admitHoldSeconds")}
            type="number"
            inputMode="numeric"
            min="10"
            max="3600"
            step="1"
            value={k.hold}
            {...invalid(id, errId)}
            onInput={(e) => k.setHold((e.target as HTMLInputElement).value)}
          />
        )}
      </BField>
      <BField
        label="Where admitted visitors go"
        name="redirectUrl"
        hint="Used when the waiting link names no return page. Empty: the site root (the demo page until an origin is set), a path on this site or an https:// URL."
        extra={k.inh("redirectUrl")}
      >
        {k.text("redirectUrl")}
      </BField>
    </>
  );
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
    /** The language of the visitor messages being edited (the preview's language too). */
    lang?: Lang;
    onLang?: (l: Lang) => void;
  },
) {
  const start = p.queue ? p.queue.effective : p.initial;
  const [b, setB] = useState<Branding>(start);
  const [hold, setHold] = useState(String(start.admitHoldSeconds));
  const [inherit, setInherit] = useState<Set<Key>>(() =>
    p.queue ? inheritedOf(p.queue) : new Set()
  );
  // What the form was loaded with, or last saved: a save sends only the fields changed since.
  const [base, setBase] = useState<BrandingSide>(() => ({ values: start, inherited: inherit }));
  const a = useAction();
  useEffect(() => {
    const h = Number(hold);
    p.onDraft?.({ ...b, admitHoldSeconds: hold.trim() && h >= 10 && h <= 3600 ? h : NaN });
  }, [b, hold]);

  const put = <K extends Key>(k: K, v: Branding[K]) => setB({ ...b, [k]: v });
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
      const values: Branding = {
        ...b,
        admitHoldSeconds: hold.trim() === "" ? NaN : Number(hold),
      };
      const stored = await putBranding(
        p.queue?.queue,
        { values, inherited: inherit },
        base,
        LABELS,
      );
      if (!stored) return "Nothing to save: no field changed.";
      const saved = stored.values;
      setB(saved);
      setHold(String(saved.admitHoldSeconds));
      setInherit(new Set(stored.inherited));
      setBase(stored);
      await p.onSaved?.(saved);
      return p.queue
        ? `Branding of queue ${p.queue.queue} saved.`
        : "Branding saved for every queue (fields a queue overrides stay its own).";
    });

  const text = (k: "title" | "logoUrl" | "redirectUrl") => (id: string, errId?: string) => {
    const common = {
      id,
      value: b[k],
      disabled: off(k),
      maxLength: k === "title" ? 120 : 2048,
      ...invalid(id, errId),
      onInput: (e: Event) => put(k, (e.target as HTMLInputElement).value),
    };
    return k === "title" ? <input type="text" {...common} /> : <input type="url" {...common} />;
  };

  const kit: Kit = { b, put, inh, off, text };
  return (
    <ActionForm act={a} class="branding-form" noValidate submit="Save branding" onSubmit={save}>
      <LookFields {...kit} />
      <AdmissionFields {...kit} hold={hold} setHold={setHold} />
      {p.onLang && (
        <MessageFields
          value={b.messages ?? {}}
          disabled={off("messages")}
          extra={inh("messages")}
          lang={p.lang ?? "en"}
          onLang={p.onLang}
          onChange={(v) => put("messages", v)}
        />
      )}
    </ActionForm>
  );
}
