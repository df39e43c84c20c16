/// <reference lib="dom" />
/**
 * Step 5: what visitors see while they wait (the Branding tab's form), with a live preview
 * of the waiting page reloaded after each save; then Finish makes the edge link and the bot
 * challenge live together and opens the control room.
 */
import type { Branding } from "../../../lib/queue/types.ts";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { BrandingForm, loadBranding } from "../tabs/branding.tsx";
import { Status, useAction } from "../ui.tsx";
import type { StepProps } from "./types.ts";

export function BrandingStep(p: StepProps) {
  const [form, setForm] = useState<Branding | null>(null);
  const [preview, setPreview] = useState(0);
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
              setPreview((n) => n + 1);
            }}
          />
          <figure class="wz-preview">
            <figcaption>Preview of the waiting page ({queue})</figcaption>
            {
              /* The preview mode joins nobody and runs no script; the sandbox also keeps it from
                ever navigating this page. */
            }
            <iframe
              key={preview}
              src={`/wait?embed=1&preview=1&queue=${encodeURIComponent(queue)}`}
              title="Waiting page preview"
              sandbox="allow-same-origin"
            />
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
