/// <reference lib="dom" />
/**
 * The way back to a recovery phrase the wizard no longer has (the tab that showed it closed
 * before "I saved it" was ticked): a new phrase, for the password, replaces the old one.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ActionForm, Input } from "../forms.tsx";
import { useAction } from "../ui.tsx";

/** "Did not save the phrase? Generate a new one": `onPhrase` gets it, to show once. */
export function NewPhrase(p: { onPhrase: (phrase: string) => void }) {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const a = useAction();
  if (!open) {
    return (
      <p class="muted">
        Did not save the recovery phrase?{" "}
        <button type="button" class="link" onClick={() => setOpen(true)}>
          Generate a new phrase
        </button>{" "}
        (the old one stops working).
      </p>
    );
  }
  return (
    <ActionForm
      act={a}
      submit="Generate a new phrase"
      onSubmit={async () => {
        const out = await a.run(
          () =>
            api<{ recoveryPhrase: string }>("POST", "/api/admin/recovery/regenerate", {
              currentPassword: password,
            }),
          "",
        );
        if (out) p.onPhrase(out.recoveryPhrase);
      }}
    >
      <Input
        label="Your password"
        name="currentPassword"
        type="password"
        autocomplete="current-password"
        required
        value={password}
        onValue={setPassword}
      />
    </ActionForm>
  );
}
