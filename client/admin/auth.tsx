/// <reference lib="dom" />
/**
 * The screens outside the control room: sign-in (with the bot check once one is live), password
 * recovery with the phrase, accepting an invite, and accepting new terms of service. The pieces
 * the setup wizard shares (terms box, recovery phrase shown once) are exported too.
 */
import { useState } from "preact/hooks";
import { api } from "./api.ts";
import type { Bootstrap, ScreenProps } from "./boot.ts";
import { ChallengeWidget, useChallenge } from "./challenge.tsx";
import { CopyButton, Field, Status, useAction, useId } from "./ui.tsx";

/** The terms summary and its "I accept" checkbox (required to submit). */
export function TosBox(
  p: { boot: Bootstrap; checked: boolean; onChange: (v: boolean) => void },
) {
  const id = useId("tos");
  return (
    <div class="tos">
      <h3>Terms of service (version {p.boot.tosVersion})</h3>
      <p class="tos-text">{p.boot.tosSummary}</p>
      <div class="field inline">
        <input
          id={id}
          type="checkbox"
          required
          checked={p.checked}
          onChange={(e) => p.onChange(e.currentTarget.checked)}
        />
        <label for={id}>I accept the terms of service</label>
      </div>
    </div>
  );
}

/**
 * A recovery phrase shown this once: the words, a copy button, and an "I saved it" checkbox that
 * must be ticked before `onContinue` can run.
 */
export function PhraseOnce(
  p: { phrase: string; onContinue: () => void; continueLabel?: string; intro?: string },
) {
  const [saved, setSaved] = useState(false);
  const id = useId("saved");
  return (
    <div class="phrase-once">
      <h2 id="phrase-h" tabIndex={-1}>Your recovery phrase</h2>
      <p>
        {p.intro ??
          "It is shown this once. Write it down or store it in a password manager: it is the only " +
            "way back in if you forget your password."}
      </p>
      <div class="once">
        <code class="phrase" data-copy={p.phrase} aria-label="Recovery phrase">{p.phrase}</code>
        <CopyButton text={p.phrase} label="Copy phrase" />
      </div>
      <div class="field inline">
        <input
          id={id}
          type="checkbox"
          checked={saved}
          onChange={(e) => setSaved(e.currentTarget.checked)}
        />
        <label for={id}>I saved my recovery phrase</label>
      </div>
      <div class="actions">
        <button type="button" class="primary" disabled={!saved} onClick={p.onContinue}>
          {p.continueLabel ?? "Continue"}
        </button>
      </div>
    </div>
  );
}

/** The bot check of a public form, when one is live (else nothing). */
function FormChallenge(
  p: { boot: Bootstrap; ch: ReturnType<typeof useChallenge>; action: string },
) {
  if (!p.boot.challengeRequired || !p.boot.challengeSiteKey) return null;
  return (
    <ChallengeWidget
      siteKey={p.boot.challengeSiteKey}
      onToken={p.ch.onToken}
      resetKey={p.ch.resetKey}
      action={p.action}
    />
  );
}

/** Runs a public call that spends the challenge token; on failure the widget is reset. */
function useChallengedAction(boot: Bootstrap) {
  const act = useAction();
  const ch = useChallenge();
  const submit = <T,>(fn: (challengeResponse: string | undefined) => Promise<T>, ok: string) =>
    act.run(async () => {
      try {
        return await fn(ch.token ?? undefined);
      } catch (e) {
        if (boot.challengeRequired) ch.reset();
        throw e;
      }
    }, ok);
  return { ...act, ch, submit };
}

/** Sign-in: username, password, and the bot check once setup is complete. */
export function Login(p: ScreenProps) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const a = useChallengedAction(p.boot);
  return (
    <section class="card auth" aria-labelledby="login-h">
      <h1 id="login-h">Sign in</h1>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const out = await a.submit(
            (challengeResponse) =>
              api("POST", "/api/admin/login", { username, password, challengeResponse }),
            "Signed in.",
          );
          if (out) p.done();
        }}
      >
        <Field label="Username">
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
        <Field label="Password">
          {(id) => (
            <input
              id={id}
              type="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        <FormChallenge boot={p.boot} ch={a.ch} action="login" />
        <div class="actions">
          <button type="submit" disabled={a.busy}>Sign in</button>
          <a href="/admin?recover">Forgot password?</a>
        </div>
        <Status s={a.status} />
      </form>
    </section>
  );
}

/** Password recovery with the phrase; the answer's NEW phrase is shown once. */
export function Recover(p: ScreenProps) {
  const [username, setUsername] = useState("");
  const [phrase, setPhrase] = useState("");
  const [password, setPassword] = useState("");
  const [fresh, setFresh] = useState<string | null>(null);
  const a = useChallengedAction(p.boot);
  if (fresh) {
    return (
      <section class="card auth">
        <h1>Password reset</h1>
        <PhraseOnce
          phrase={fresh}
          intro="Your old phrase no longer works. This new one is shown this once: store it safely."
          onContinue={p.done}
        />
      </section>
    );
  }
  return (
    <section class="card auth" aria-labelledby="recover-h">
      <h1 id="recover-h">Reset your password</h1>
      <p>Enter your username, the 12 words of your recovery phrase and a new password.</p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const out = await a.submit(
            (challengeResponse) =>
              api<{ recoveryPhrase: string }>("POST", "/api/admin/password/recover", {
                username,
                recoveryPhrase: phrase.trim().replace(/\s+/g, " "),
                newPassword: password,
                challengeResponse,
              }),
            "Password reset.",
          );
          if (out) setFresh(out.recoveryPhrase);
        }}
      >
        <Field label="Username">
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
        <Field label="Recovery phrase" hint="12 words, separated by spaces">
          {(id) => (
            <textarea
              id={id}
              required
              rows={3}
              autocomplete="off"
              spellcheck={false}
              value={phrase}
              onInput={(e) => setPhrase(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="New password" hint="At least 12 characters">
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
        <FormChallenge boot={p.boot} ch={a.ch} action="recover" />
        <div class="actions">
          <button type="submit" disabled={a.busy}>Reset password</button>
          <a href="/admin">Back to sign-in</a>
        </div>
        <Status s={a.status} />
      </form>
    </section>
  );
}

/** Accepting an invite (`/admin?invite=<token>`): a new admin with its own phrase. */
export function InviteAccept(p: ScreenProps & { token: string }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [tos, setTos] = useState(false);
  const [phrase, setPhrase] = useState<string | null>(null);
  const a = useChallengedAction(p.boot);
  if (phrase) {
    return (
      <section class="card auth">
        <h1>Welcome aboard</h1>
        <PhraseOnce phrase={phrase} onContinue={p.done} />
      </section>
    );
  }
  return (
    <section class="card auth" aria-labelledby="invite-h">
      <h1 id="invite-h">Join this Tollgate</h1>
      <p>You were invited to administer this waiting room. Choose your username and password.</p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const out = await a.submit(
            (challengeResponse) =>
              api<{ recoveryPhrase: string }>("POST", "/api/admin/invites/accept", {
                token: p.token,
                username,
                password,
                acceptedTosVersion: p.boot.tosVersion,
                challengeResponse,
              }),
            "Account created.",
          );
          if (out) setPhrase(out.recoveryPhrase);
        }}
      >
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
        <FormChallenge boot={p.boot} ch={a.ch} action="invite" />
        <div class="actions">
          <button type="submit" disabled={a.busy}>Create my account</button>
        </div>
        <Status s={a.status} />
      </form>
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
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const out = await a.run(
            () => api("POST", "/api/admin/tos/accept", { acceptedTosVersion: p.boot.tosVersion }),
            "Accepted.",
          );
          if (out) p.done();
        }}
      >
        <TosBox boot={p.boot} checked={tos} onChange={setTos} />
        <div class="actions">
          <button type="submit" disabled={a.busy}>Continue</button>
        </div>
        <Status s={a.status} />
      </form>
    </section>
  );
}
