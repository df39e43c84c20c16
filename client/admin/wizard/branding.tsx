/// <reference lib="dom" />
/**
 * Step 5: what visitors see while they wait (the Branding tab's form), with a preview of the
 * waiting page that follows the form as it is typed; then Finish makes the edge and bot-check
 * choices live together and opens the control room (the default branding is fine as it is).
 */
import type { Branding } from "../../../lib/branding.ts";
import { useEffect, useState } from "preact/hooks";
import { api, messageOf } from "../api.ts";
import { BrandingForm, BrandingPreview, loadBranding } from "../tabs/branding.tsx";
import { Status, useAction } from "../ui.tsx";
import type { StepProps } from "./types.ts";

/** A draft as the API takes it (an unreadable hold is sent as null and refused by name). */
const brandingBody = (d: Branding) => ({
  ...d,
  admitHoldSeconds: Number.isFinite(d.admitHoldSeconds) ? d.admitHoldSeconds : null,
});

/** Whether the form holds edits not saved yet (`draft` as typed, `saved` as stored). */
const unsaved = (draft: Branding | null, saved: Branding | null) =>
  !!draft && !!saved &&
  (Object.keys(saved) as (keyof Branding)[]).some((k) => !Object.is(draft[k], saved[k]));

export function BrandingStep(p: StepProps) {
  const [form, setForm] = useState<Branding | null>(null);
  const [saved, setSaved] = useState<Branding | null>(null);
  const [draft, setDraft] = useState<Branding | null>(null);
  const load = useAction(), finish = useAction();
  const queue = p.progress?.steps.queueName ?? localStorage.getItem("tg-admin-queue") ??
    "default";
  const stepDone = !!p.progress?.steps.branding;
  const dirty = unsaved(draft, saved);

  useEffect(() => {
    load.run(async () => {
      const b = await loadBranding();
      setForm(b);
      setSaved(b);
      return "";
    });
  }, []);

  return (
    <div class="wz-branding">
      <p>This is what visitors see while they wait. You can change it later in the control room.</p>
      <Status s={load.status} />
      {form && (
        <div class="wz-brand-grid">
          <BrandingForm
            initial={form}
            onSaved={async (b) => {
              setSaved(b);
              await api("POST", "/api/admin/setup/step", { step: "branding" });
              await p.reload();
            }}
            onDraft={setDraft}
          />
          <figure class="wz-preview">
            <figcaption>Preview of the waiting page ({queue}), as you type</figcaption>
            <BrandingPreview queue={queue} draft={draft} />
          </figure>
        </div>
      )}
      <div class="wz-finish">
        <h3>Finish</h3>
        <p>
          Finishing makes your edge and bot-check choices live together. From then on, sign-in asks
          for the bot check.
        </p>
        <div class="actions">
          <button
            type="button"
            class="primary"
            disabled={finish.busy}
            onClick={async () => {
              const out = await finish.run(async () => {
                // What was typed is kept: saved first (a refusal stops Finish and says why).
                if (dirty && draft) {
                  try {
                    setSaved(
                      await api<Branding>("PUT", "/api/admin/branding", brandingBody(draft)),
                    );
                  } catch (e) {
                    throw new Error(
                      `Your branding changes could not be saved, so setup did not finish: ` +
                        `${messageOf(e)} Fix them above, or reload the page to drop them.`,
                    );
                  }
                }
                if (!stepDone || dirty) {
                  await api("POST", "/api/admin/setup/step", { step: "branding" });
                }
                return await api("POST", "/api/admin/setup");
              }, "Setup complete.");
              if (out) p.done();
            }}
          >
            Finish setup
          </button>
          {dirty && (
            <span class="muted" data-testid="unsaved-branding">
              Your unsaved branding changes are saved when you finish.
            </span>
          )}
        </div>
        <Status s={finish.status} />
      </div>
    </div>
  );
}
