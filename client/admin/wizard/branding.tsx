/// <reference lib="dom" />
/**
 * Step 5: what visitors see while they wait (the Branding tab's form), with a preview of the
 * waiting page that follows the form as it is typed; then Finish makes the edge and bot-check
 * choices live together and opens the control room (the default branding is fine as it is).
 */
import type { Branding } from "../../../lib/queue/types.ts";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { BrandingForm, BrandingPreview, loadBranding } from "../tabs/branding.tsx";
import { Status, useAction } from "../ui.tsx";
import type { StepProps } from "./types.ts";

export function BrandingStep(p: StepProps) {
  const [form, setForm] = useState<Branding | null>(null);
  const [draft, setDraft] = useState<Branding | null>(null);
  const load = useAction(), finish = useAction();
  const queue = p.progress?.steps.queueName ?? localStorage.getItem("tg-admin-queue") ??
    "default";
  const saved = !!p.progress?.steps.branding;

  useEffect(() => {
    load.run(async () => {
      setForm(await loadBranding());
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
            onSaved={async () => {
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
                // Unsaved branding means the defaults (or what was saved before) are fine.
                if (!saved) await api("POST", "/api/admin/setup/step", { step: "branding" });
                return await api("POST", "/api/admin/setup");
              }, "Setup complete.");
              if (out) p.done();
            }}
          >
            Finish setup
          </button>
          {!saved && (
            <span class="muted">Unsaved changes above are not kept; the saved branding is.</span>
          )}
        </div>
        <Status s={finish.status} />
      </div>
    </div>
  );
}
