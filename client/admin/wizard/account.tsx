/// <reference lib="dom" />
/**
 * Step 1: claim the service as its first admin. The operator proves they run it with the setup
 * secret (TOKEN_SECRET, sent as a bearer header), picks a username and password, accepts the
 * terms; the recovery phrase comes back once and must be confirmed as saved before going on.
 */
import { useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { ActionForm, Input, NewAccountFields, PhraseOnce, TosBox } from "../forms.tsx";
import { NewPhrase } from "./new_phrase.tsx";
import { useAction } from "../ui.tsx";
import type { StepProps } from "./types.ts";

const PHRASE_KEY = "tg-unconfirmed-phrase";

/** The recovery phrase of a claim whose "I saved it" was not ticked yet (this tab only). */
export const pendingPhrase = (): string | null => sessionStorage.getItem(PHRASE_KEY);

const WRONG_SECRET = "That is not this service's setup secret. Use the TOKEN_SECRET it runs " +
  "with: set in its environment, or, when it was generated on a first local start, printed " +
  "then and kept in data/token-secret.";

export function AccountStep(p: StepProps) {
  const [secret, setSecret] = useState("");
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [tos, setTos] = useState(false);
  const [phrase, setPhrase] = useState<string | null>(pendingPhrase);
  const a = useAction();

  if (phrase) {
    return (
      <PhraseOnce
        phrase={phrase}
        onContinue={() => {
          sessionStorage.removeItem(PHRASE_KEY);
          // After a reload the account was already known as claimed: just go on.
          if (p.boot.claimed) p.next();
          else p.done();
        }}
      />
    );
  }
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
        <NewPhrase
          onPhrase={(v) => {
            sessionStorage.setItem(PHRASE_KEY, v);
            setPhrase(v);
          }}
        />
      </>
    );
  }
  return (
    <ActionForm
      act={a}
      submit="Create account"
      onSubmit={async () => {
        const out = await a.run(async () => {
          try {
            return await api<{ recoveryPhrase: string }>(
              "POST",
              "/api/admin/claim",
              { username, password, acceptedTosVersion: p.boot.tosVersion },
              { authorization: `Bearer ${secret.trim()}` },
            );
          } catch (e) {
            if (e instanceof ApiError && e.status === 401) {
              // Said by the secret's field (and cleared as soon as it is edited).
              throw new ApiError(401, "unauthorized", WRONG_SECRET, {
                fields: [{ path: "setupSecret", message: WRONG_SECRET }],
              });
            }
            throw e;
          }
        }, "Account created.");
        if (out) {
          // Kept in this tab until "I saved it" is ticked: a reload must not lose the only copy.
          sessionStorage.setItem(PHRASE_KEY, out.recoveryPhrase);
          setPhrase(out.recoveryPhrase);
        }
      }}
    >
      <p>
        Create the first admin account. To prove you run this service, enter its setup secret: the
        TOKEN_SECRET you configured when deploying it, or, if it was generated on the first local
        start, the one printed then and kept in <code>data/token-secret</code>.
      </p>
      <Input
        label="Setup secret (TOKEN_SECRET)"
        name="setupSecret"
        type="password"
        autocomplete="off"
        required
        value={secret}
        onValue={(v) => {
          setSecret(v);
          // A refusal of the secret no longer holds once it is changed.
          if (a.status?.fields?.some((f) => f.path === "setupSecret")) a.setStatus(null);
        }}
      />
      <NewAccountFields {...{ username, setUsername, password, setPassword }} />
      <TosBox boot={p.boot} checked={tos} onChange={setTos} />
    </ActionForm>
  );
}
