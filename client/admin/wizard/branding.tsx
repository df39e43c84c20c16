/// <reference lib="dom" />
/**
 * Step 5: what visitors see while they wait (title, message, logo, colours), with a live preview
 * of the waiting page reloaded after each save; then Finish makes the edge link and the bot
 * challenge live together and opens the control room.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { Field, Status, useAction } from "../ui.tsx";
import type { StepProps } from "./types.ts";

interface BrandingForm {
  title: string;
  message: string;
  logoUrl: string;
  primaryColor: string;
  backgroundColor: string;
  showWaitingCount: boolean;
}

/** `#abc` -> `#aabbcc` (a colour input takes only the long form). */
const longHex = (c: string) =>
  /^#[0-9a-f]{3}$/i.test(c) ? "#" + [...c.slice(1)].map((x) => x + x).join("") : c;

export function BrandingStep(p: StepProps) {
  const [form, setForm] = useState<BrandingForm | null>(null);
  const [preview, setPreview] = useState(0);
  const load = useAction(), save = useAction(), finish = useAction();
  const queue = p.progress?.steps.queueName ?? localStorage.getItem("tg-admin-queue") ??
    "default";
  const saved = !!p.progress?.steps.branding;

  useEffect(() => {
    load.run(async () => {
      const { branding: b } = await api<{ branding: BrandingForm }>("GET", "/api/admin/state");
      setForm({
        title: b.title,
        message: b.message,
        logoUrl: b.logoUrl,
        primaryColor: longHex(b.primaryColor),
        backgroundColor: longHex(b.backgroundColor),
        showWaitingCount: b.showWaitingCount,
      });
      return "";
    });
  }, []);
  const set = <K extends keyof BrandingForm>(k: K, v: BrandingForm[K]) =>
    setForm((f) => f && { ...f, [k]: v });

  return (
    <div class="wz-branding">
      <p>This is what visitors see while they wait. You can change it later in the control room.</p>
      <Status s={load.status} />
      {form && (
        <div class="wz-brand-grid">
          <form
            onSubmit={async (e) => {
              e.preventDefault();
              await save.run(async () => {
                await api("PUT", "/api/admin/branding", {
                  ...form,
                  title: form.title.trim(),
                  message: form.message.trim(),
                  logoUrl: form.logoUrl.trim(),
                });
                await api("POST", "/api/admin/setup/step", { step: "branding" });
                await p.reload();
                setPreview((n) => n + 1);
              }, "Branding saved. The preview shows it.");
            }}
          >
            <Field label="Title">
              {(id) => (
                <input
                  id={id}
                  maxLength={120}
                  value={form.title}
                  onInput={(e) => set("title", e.currentTarget.value)}
                />
              )}
            </Field>
            <Field label="Message">
              {(id) => (
                <textarea
                  id={id}
                  maxLength={2000}
                  rows={3}
                  value={form.message}
                  onInput={(e) => set("message", e.currentTarget.value)}
                />
              )}
            </Field>
            <Field label="Logo URL" hint="https://… or a path on this site; empty for none">
              {(id) => (
                <input
                  id={id}
                  value={form.logoUrl}
                  onInput={(e) => set("logoUrl", e.currentTarget.value)}
                />
              )}
            </Field>
            <div class="wz-colors">
              <Field label="Main colour">
                {(id) => (
                  <input
                    id={id}
                    type="color"
                    value={form.primaryColor}
                    onInput={(e) => set("primaryColor", e.currentTarget.value)}
                  />
                )}
              </Field>
              <Field label="Background colour">
                {(id) => (
                  <input
                    id={id}
                    type="color"
                    value={form.backgroundColor}
                    onInput={(e) => set("backgroundColor", e.currentTarget.value)}
                  />
                )}
              </Field>
            </div>
            <div class="field inline">
              <input
                id="wz-count"
                type="checkbox"
                checked={form.showWaitingCount}
                onChange={(e) => set("showWaitingCount", e.currentTarget.checked)}
              />
              <label for="wz-count">Show how many people are waiting</label>
            </div>
            <div class="actions">
              <button type="submit" disabled={save.busy}>Save branding</button>
            </div>
            <Status s={save.status} />
          </form>
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
          Finishing makes the edge link and the bot challenge live together. From then on, sign-in
          asks for the bot check.
        </p>
        <div class="actions">
          <button
            type="button"
            class="primary"
            disabled={!saved || finish.busy}
            onClick={async () => {
              const out = await finish.run(
                () => api("POST", "/api/admin/setup"),
                "Setup complete.",
              );
              if (out) p.done();
            }}
          >
            Finish setup
          </button>
          {!saved && <span class="muted">Save the branding first.</span>}
        </div>
        <Status s={finish.status} />
      </div>
    </div>
  );
}
