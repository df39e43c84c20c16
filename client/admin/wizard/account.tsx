/// <reference lib="dom" />
/**
 * Step 1: claim the service as its first admin. The operator proves they run it with the setup
 * secret (TOKEN_SECRET, sent as a bearer header), picks a username and password, accepts the
 * terms; the recovery phrase comes back once and must be confirmed as saved before going on.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { PhraseOnce, TosBox } from "../auth.tsx";
import { Field, Status, useAction } from "../ui.tsx";
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
    <form
      onSubmit={async (e) => {
        e.preventDefault();
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
      <Field label="Setup secret (TOKEN_SECRET)">
        {(id) => (
          <input
            id={id}
            type="password"
            autocomplete="off"
            required
            value={secret}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Username" hint="3 to 32 letters, digits, '.', '_' or '-'">
        {(id) => (
          <input
            id={id}
            autocomplete="username"
            required
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Password" hint="At least 12 characters">
        {(id) => (
          <input
            id={id}
            type="password"
            autocomplete="new-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        )}
      </Field>
      <TosBox boot={p.boot} checked={tos} onChange={setTos} />
      <div class="actions">
        <button type="submit" disabled={a.busy}>Create account</button>
      </div>
      <Status s={a.status} />
    </form>
  );
}
