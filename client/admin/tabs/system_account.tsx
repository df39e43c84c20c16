/// <reference lib="dom" />
/**
 * Your own account in the System tab: change the password, make a new recovery phrase (shown
 * once), and how a factory reset works (only with TOKEN_SECRET, so there is no button here).
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ActionForm, confirmedRun, Input } from "../forms.tsx";
import { CopyButton, OnceValue, Section, useAction } from "../ui.tsx";

/** The signed-in admin's current password, asked before a change to the account. */
function CurrentPassword(p: { value: string; onValue: (v: string) => void }) {
  return (
    <Input
      label="Current password"
      name="currentPassword"
      type="password"
      required
      autocomplete="current-password"
      value={p.value}
      onValue={p.onValue}
    />
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
      <ActionForm act={act} submit="Change password" onSubmit={save}>
        <CurrentPassword value={current} onValue={setCurrent} />
        <Input
          label="New password"
          name="newPassword"
          hint="At least 12 characters; a few unrelated words work well."
          type="password"
          required
          autocomplete="new-password"
          value={next}
          onValue={setNext}
        />
        <Input
          label="New password again"
          name="confirmPassword"
          type="password"
          required
          autocomplete="new-password"
          value={again}
          onValue={setAgain}
        />
      </ActionForm>
    </Section>
  );
}

export function RecoverySection() {
  const [current, setCurrent] = useState("");
  const [phrase, setPhrase] = useState<string | null>(null);
  const act = useAction();
  const make = () =>
    confirmedRun(
      act,
      "Make a new recovery phrase? Your current phrase stops working at once.",
      "Make new phrase",
      () => {
        setPhrase(null);
        return api<{ recoveryPhrase: string }>("POST", "/api/admin/recovery/regenerate", {
          currentPassword: current,
        });
      },
      "New recovery phrase made. Write it down and keep it offline: it is shown only this once.",
      (r) => {
        setPhrase(r.recoveryPhrase);
        setCurrent("");
      },
    );
  return (
    <Section title="Recovery phrase" id="recovery">
      <p class="muted">
        The 12 words reset your password if you forget it. Make a new one if the old one may have
        been seen.
      </p>
      <ActionForm act={act} submit="Make a new recovery phrase" onSubmit={make}>
        <CurrentPassword value={current} onValue={setCurrent} />
      </ActionForm>
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
