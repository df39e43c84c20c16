/// <reference lib="dom" />
/**
 * The Branding tab: the service-wide branding, or the picked queue's own overrides field by field
 * (each field can inherit), with a preview of the picked queue's waiting page that follows the
 * form as it is typed (the preview mode renders a `draft` without saving it).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Branding } from "../../../lib/branding.ts";
import { api, basePath, messageOf } from "../api.ts";
import type { TabProps } from "../boot.ts";
import { Radios } from "../forms.tsx";
import { Section } from "../ui.tsx";
import { BrandingForm, type QueueBranding } from "./branding_form.tsx";
import type { Lang } from "../../../lib/i18n/langs.ts";

export { BrandingForm };

/** The stored service-wide branding. */
export async function loadBranding(): Promise<Branding> {
  return await api<Branding>("GET", "/api/admin/branding");
}

/**
 * The waiting page of `queue` in preview mode, showing `draft` (the unsaved form); the frame is
 * reloaded a moment after the last edit, not on every key.
 */
export function BrandingPreview(
  p: { queue: string; draft: Branding | null; class?: string; lang?: Lang },
) {
  const base = `${basePath()}/wait?embed=1&preview=1&queue=${encodeURIComponent(p.queue)}` +
    (p.lang ? `&lang=${p.lang}` : "");
  const [src, setSrc] = useState(base);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    clearTimeout(timer.current);
    const next = p.draft ? `${base}&draft=${encodeURIComponent(JSON.stringify(p.draft))}` : base;
    timer.current = setTimeout(() => setSrc(next), 250);
    return () => clearTimeout(timer.current);
  }, [p.queue, p.lang, JSON.stringify(p.draft)]);
  return (
    <iframe
      class={p.class}
      src={src}
      title="Waiting page preview"
      // The preview runs no script; the sandbox also keeps it from navigating this page.
      sandbox="allow-same-origin"
    />
  );
}

export function BrandingTab({ queue }: TabProps) {
  // The queue picked at the top is the one edited; every queue at once is an explicit choice.
  const [scope, setScope] = useState<"all" | "queue">("queue");
  const [svc, setSvc] = useState<Branding | null>(null);
  const [qb, setQb] = useState<QueueBranding | null>(null);
  const [draft, setDraft] = useState<Branding | null>(null);
  const [loadErr, setLoadErr] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [lang, setLang] = useState<Lang>("en");

  useEffect(() => {
    Promise.all([
      loadBranding(),
      api<QueueBranding>("GET", `/api/admin/branding?queue=${encodeURIComponent(queue)}`),
    ]).then(([s, q]) => {
      setSvc(s);
      setQb(q);
    }).catch((e) => setLoadErr(messageOf(e)));
  }, [version]);

  if (loadErr) return <p class="status error" role="alert">{loadErr}</p>;
  if (!svc || !qb) return <p>Loading…</p>;
  const own = Object.keys(qb.overrides).length;

  return (
    <div class="branding">
      <Section title="Waiting page look" id="brand-form">
        <Radios
          legend="Edit the branding of"
          name="brand-scope"
          options={[
            ["queue", `Queue ${queue} only (${own ? `${own} own field(s)` : "inherits all"})`],
            ["all", "All queues (each queue's own fields stay its own)"],
          ]}
          value={scope}
          onChange={(v) => {
            setScope(v);
            setDraft(null);
          }}
        />
        <BrandingForm
          key={scope}
          initial={svc}
          queue={scope === "queue" ? qb : undefined}
          onDraft={setDraft}
          onSaved={() => setVersion((n) => n + 1)}
          lang={lang}
          onLang={setLang}
        />
      </Section>
      <Section title="Preview" id="brand-preview">
        <p class="muted">
          The waiting page of queue {queue}{" "}
          as visitors see it, background included, with sample figures. It follows the form as you
          type; nothing is saved until you press Save (the preview does not join the queue).
        </p>
        <BrandingPreview
          class="branding-preview"
          queue={queue}
          lang={lang}
          // Editing all queues: this queue's own fields still win in what its visitors see.
          draft={draft && scope === "all" ? { ...draft, ...qb.overrides } : draft}
        />
      </Section>
    </div>
  );
}
