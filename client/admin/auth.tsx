/// <reference lib="dom" />
/**
 * The screens outside the control room: sign-in (with the bot check once one is live), password
 * recovery with the phrase, accepting an invite, and accepting new terms of service.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, ApiError, basePath } from "./api.ts";
import type { Bootstrap, ScreenProps } from "./boot.ts";
import { solveBuiltin } from "./builtin.ts";
import { ChallengeWidget, useChallenge } from "./challenge.tsx";
import {
  ActionForm,
  Input,
  NewAccountFields,
  PhraseOnce,
  TosBox,
  UsernameInput,
} from "./forms.tsx";
import { Field, useAction } from "./ui.tsx";

/**
 * A public form whose call spends the bot-check token (the widget shows when one is live): on
 * failure the widget is reset; on success `then` gets the answer.
 */
function ChallengedForm<T>(
  p: {
    boot: Bootstrap;
    action: string;
    call: (challengeResponse: string | undefined) => Promise<T>;
    ok: string;
    then: (out: T) => void;
    submit: string;
    buttons?: ComponentChildren;
    children: ComponentChildren;
  },
) {
  const act = useAction();
  const ch = useChallenge();
  const submit = async () => {
    const out = await act.run(async () => {
      try {
        // The built-in check is solved at submit (each solution counts once).
        const builtin = p.boot.challengeRequired && p.boot.challengeKind === "builtin";
        try {
          return await p.call(builtin ? await solveBuiltin("signin") : ch.token ?? undefined);
        } catch (e) {
          // Too many failed sign-ins on this account: it asks for the built-in check even where
          // none is set up. Solve it once and try again.
          if (
            builtin || p.boot.challengeRequired || !(e instanceof ApiError) ||
            e.details.reason !== "account_failures"
          ) throw e;
          return await p.call(await solveBuiltin("signin"));
        }
      } catch (e) {
        if (p.boot.challengeRequired) ch.reset();
        throw e;
      }
    }, p.ok);
    if (out) p.then(out);
  };
  return (
    <ActionForm act={act} submit={p.submit} buttons={p.buttons} onSubmit={submit}>
      {p.children}
      {p.boot.challengeRequired && p.boot.challengeKind === "builtin" && (
        <p class="muted">A built-in bot check runs in this browser when you submit.</p>
      )}
      {p.boot.challengeRequired && p.boot.challengeSiteKey && (
        <ChallengeWidget
          siteKey={p.boot.challengeSiteKey}
          onToken={ch.onToken}
          resetKey={ch.resetKey}
          action={p.action}
        />
      )}
    </ActionForm>
  );
}

/** A screen that shows a fresh recovery phrase once. */
function PhraseScreen(p: { title: string; phrase: string; intro?: string; done: () => void }) {
  return (
    <section class="card auth">
      <h1>{p.title}</h1>
      <PhraseOnce phrase={p.phrase} intro={p.intro} onContinue={p.done} />
    </section>
  );
}

/** Sign-in: username, password, and the bot check once setup is complete. */
export function Login(p: ScreenProps) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  return (
    <section class="card auth" aria-labelledby="login-h">
      <h1 id="login-h">Sign in</h1>
      <ChallengedForm
        boot={p.boot}
        action="login"
        call={(challengeResponse) =>
          api("POST", "/api/admin/login", { username, password, challengeResponse })}
        ok="Signed in."
        then={() => p.done()}
        submit="Sign in"
        buttons={<a href={`${basePath()}/admin?recover`}>Forgot password?</a>}
      >
        <UsernameInput value={username} onValue={setUsername} />
        <Input
          label="Password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onValue={setPassword}
        />
      </ChallengedForm>
    </section>
  );
}

/** Password recovery with the phrase; the answer's NEW phrase is shown once. */
export function Recover(p: ScreenProps) {
  const [username, setUsername] = useState("");
  const [phrase, setPhrase] = useState("");
  const [password, setPassword] = useState("");
  const [fresh, setFresh] = useState<string | null>(null);
  if (fresh) {
    return (
      <PhraseScreen
        title="Password reset"
        phrase={fresh}
        intro="Your old phrase no longer works. This new one is shown this once: store it safely."
        done={p.done}
      />
    );
  }
  return (
    <section class="card auth" aria-labelledby="recover-h">
      <h1 id="recover-h">Reset your password</h1>
      <p>Enter your username, the 12 words of your recovery phrase and a new password.</p>
      <ChallengedForm
        boot={p.boot}
        action="recover"
        call={(challengeResponse) =>
          api<{ recoveryPhrase: string }>("POST", "/api/admin/password/recover", {
            username,
            recoveryPhrase: phrase.trim().replace(/\s+/g, " "),
            newPassword: password,
            challengeResponse,
          })}
        ok="Password reset."
        then={(out) => setFresh(out.recoveryPhrase)}
        submit="Reset password"
        buttons={<a href={`${basePath()}/admin`}>Back to sign-in</a>}
      >
        <UsernameInput value={username} onValue={setUsername} />
        <Field label="Recovery phrase" name="recoveryPhrase" hint="12 words, separated by spaces">
          {(id, errId) => (
            <textarea
              id={id}
              aria-invalid={errId ? true : undefined}
              aria-describedby={errId}
              required
              rows={3}
              autocomplete="off"
              spellcheck={false}
              value={phrase}
              onInput={(e) => setPhrase(e.currentTarget.value)}
            />
          )}
        </Field>
        <Input
          label="New password"
          name="newPassword"
          hint="At least 12 characters"
          type="password"
          autocomplete="new-password"
          required
          value={password}
          onValue={setPassword}
        />
      </ChallengedForm>
    </section>
  );
}

/** Accepting an invite (`/admin?invite=<token>`): a new admin with its own phrase. */
export function InviteAccept(p: ScreenProps & { token: string }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [tos, setTos] = useState(false);
  const [phrase, setPhrase] = useState<string | null>(null);
  if (phrase) return <PhraseScreen title="Welcome aboard" phrase={phrase} done={p.done} />;
  return (
    <section class="card auth" aria-labelledby="invite-h">
      <h1 id="invite-h">Join this Tollgate</h1>
      <p>You were invited to administer this waiting room. Choose your username and password.</p>
      <ChallengedForm
        boot={p.boot}
        action="invite"
        call={(challengeResponse) =>
          api<{ recoveryPhrase: string }>("POST", "/api/admin/invites/accept", {
            token: p.token,
            username,
            password,
            acceptedTosVersion: p.boot.tosVersion,
            challengeResponse,
          })}
        ok="Account created."
        then={(out) => setPhrase(out.recoveryPhrase)}
        submit="Create my account"
      >
        <NewAccountFields {...{ username, setUsername, password, setPassword }} />
        <TosBox boot={p.boot} checked={tos} onChange={setTos} />
      </ChallengedForm>
    </section>
  );
}

/** The terms changed since this admin accepted them: accept again to go on. */
export function TosAccept(p: ScreenProps) {
  const [tos, setTos] = useState(false);
  const a = useAction();
  return (
    <section class="card auth" aria-labelledby="tos-h">
      <h1 id="tos-h">Updated terms of service</h1>
      <p>
        The terms changed since you last accepted them
        {p.boot.acceptedTosVersion ? ` (version ${p.boot.acceptedTosVersion})` : ""}. Accept the
        current version to continue.
      </p>
      <ActionForm
        act={a}
        submit="Continue"
        onSubmit={async () => {
          const out = await a.run(
            () => api("POST", "/api/admin/tos/accept", { acceptedTosVersion: p.boot.tosVersion }),
            "Accepted.",
          );
          if (out) p.done();
        }}
      >
        <TosBox boot={p.boot} checked={tos} onChange={setTos} />
      </ActionForm>
    </section>
  );
}
