/// <reference lib="dom" />
/**
 * Step 1: claim the service as its first admin. The operator proves they run it with the setup
 * secret (TOKEN_SECRET, sent as a bearer header), picks a username and password, accepts the
 * terms; the recovery phrase comes back once and must be confirmed as saved before going on.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ActionForm, Input, NewAccountFields, PhraseOnce, TosBox } from "../forms.tsx";
import { useAction } from "../ui.tsx";
import type { StepProps } from "./types.ts";

export function AccountStep(p: StepProps) {
  const [secret, setSecret] = useState("");
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [tos, setTos] = useState(false);
  const [phrase, setPhrase] = useState<string | null>(null);
  const a = useAction();

  if (phrase) return <PhraseOnce phrase={phrase} onContinue={p.done} />;
  if (p.boot.claimed) {
    return (
      <>
        <p>
          The first admin account exists{p.boot.me
            ? ` (you are signed in as ${p.boot.me.username})`
            : ""}.
        </p>
        <div class="actions">
          <button type="button" class="primary" onClick={p.next}>Continue</button>
        </div>
      </>
    );
  }
  return (
    <ActionForm
      act={a}
      submit="Create account"
      onSubmit={async () => {
        const out = await a.run(
          () =>
            api<{ recoveryPhrase: string }>(
              "POST",
              "/api/admin/claim",
              { username, password, acceptedTosVersion: p.boot.tosVersion },
              { authorization: `Bearer ${secret.trim()}` },
            ),
          "Account created.",
        );
        if (out) setPhrase(out.recoveryPhrase);
      }}
    >
      <p>
        Create the first admin account. To prove you run this service, enter its setup secret: the
        TOKEN_SECRET you configured when deploying it.
      </p>
      <Input
        label="Setup secret (TOKEN_SECRET)"
        type="password"
        autocomplete="off"
        required
        value={secret}
        onValue={setSecret}
      />
      <NewAccountFields {...{ username, setUsername, password, setPassword }} />
      <TosBox boot={p.boot} checked={tos} onChange={setTos} />
    </ActionForm>
  );
}
