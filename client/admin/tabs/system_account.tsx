/// <reference lib="dom" />
/**
 * Your own account in the System tab: change the password, make a new recovery phrase (shown
 * once), and how a factory reset works (only with TOKEN_SECRET, so there is no button here).
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { confirmAction, CopyButton, Field, OnceValue, Section, Status, useAction } from "../ui.tsx";

/** A password input bound to a state value. */
function Secret(
  p: { label: string; hint?: string; value: string; set: (v: string) => void; auto: string },
) {
  return (
    <Field label={p.label} hint={p.hint}>
      {(id) => (
        <input
          id={id}
          type="password"
          required
          autoComplete={p.auto}
          value={p.value}
          onInput={(e) => p.set((e.target as HTMLInputElement).value)}
        />
      )}
    </Field>
  );
}

export function PasswordSection() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [again, setAgain] = useState("");
  const act = useAction();
  const save = async () => {
    if (next !== again) {
      act.setStatus({ kind: "error", text: "The new passwords do not match." });
      return;
    }
    const r = await act.run(
      () =>
        api("PUT", "/api/admin/password", {
          currentPassword: current,
          newPassword: next,
          confirmPassword: again,
        }),
      "Password changed. Your other sessions were signed out.",
    );
    if (r) {
      setCurrent("");
      setNext("");
      setAgain("");
    }
  };
  return (
    <Section title="Your password" id="password">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save();
        }}
      >
        <Secret
          label="Current password"
          value={current}
          set={setCurrent}
          auto="current-password"
        />
        <Secret
          label="New password"
          hint="At least 12 characters; a few unrelated words work well."
          value={next}
          set={setNext}
          auto="new-password"
        />
        <Secret
          label="New password again"
          value={again}
          set={setAgain}
          auto="new-password"
        />
        <div class="actions">
          <button type="submit" disabled={act.busy}>Change password</button>
        </div>
        <Status s={act.status} />
      </form>
    </Section>
  );
}

export function RecoverySection() {
  const [current, setCurrent] = useState("");
  const [phrase, setPhrase] = useState<string | null>(null);
  const act = useAction();
  const make = async () => {
    const ok = await confirmAction(
      "Make a new recovery phrase? Your current phrase stops working at once.",
      "Make new phrase",
    );
    if (!ok) return;
    setPhrase(null);
    const r = await act.run(
      () =>
        api<{ recoveryPhrase: string }>("POST", "/api/admin/recovery/regenerate", {
          currentPassword: current,
        }),
      "New recovery phrase made. Write it down and keep it offline: it is shown only this once.",
    );
    if (r) {
      setPhrase(r.recoveryPhrase);
      setCurrent("");
    }
  };
  return (
    <Section title="Recovery phrase" id="recovery">
      <p class="muted">
        The 12 words reset your password if you forget it. Make a new one if the old one may have
        been seen.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          make();
        }}
      >
        <Secret
          label="Current password"
          value={current}
          set={setCurrent}
          auto="current-password"
        />
        <div class="actions">
          <button type="submit" disabled={act.busy}>Make a new recovery phrase</button>
        </div>
        <Status s={act.status} />
      </form>
      {phrase && <OnceValue value={phrase} label="New recovery phrase" />}
    </Section>
  );
}

export function ResetSection() {
  const cmd =
    `curl -X POST -H "Authorization: Bearer $TOKEN_SECRET" ${location.origin}/api/admin/reset`;
  return (
    <Section title="Factory reset" id="reset">
      <p>
        A reset removes every admin, the Cloudflare link, the bot challenge, pending setup, the
        origin and webhook settings; the service must then be claimed again and the setup wizard
        runs. Queues, branding and the audit log stay. It needs the service's{" "}
        <code>TOKEN_SECRET</code>, so this page offers no button. Where the secret is in{" "}
        <code>$TOKEN_SECRET</code>, run:
      </p>
      <div class="once">
        <code data-copy={cmd} aria-label="Reset command">{cmd}</code>
        <CopyButton text={cmd} label="Copy command" />
      </div>
    </Section>
  );
}
