/// <reference lib="dom" />
/**
 * Step 3: the bot challenge that will guard sign-in: the built-in check (no third party; solved
 * once here to record the step), or a Turnstile widget for the edge hostname, solved once here
 * (the token is checked with the pending widget's secret). Turnstile needs the Cloudflare link.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ChallengeWidget, useChallenge } from "../challenge.tsx";
import { solveBuiltin } from "../builtin.ts";
import { Status, useAction } from "../ui.tsx";
import { challengeDone, type StepProps } from "./types.ts";

/** What the widget's hostname list accepts (so an IP or `localhost` is not sent). */
const HOSTNAME_RE =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export function ChallengeStep(p: StepProps) {
  const c = p.progress?.challenge;
  const edgeHost = p.progress?.edge.hostname ?? null;
  const prov = useAction(), ver = useAction();
  const ch = useChallenge();
  const [verified, setVerified] = useState(false);
  const done = verified || challengeDone(p.progress);
  const here = location.hostname.toLowerCase();

  const verify = async (token: string | null) => {
    ch.onToken(token);
    if (!token) return;
    const out = await ver.run(async () => {
      const r = await api("POST", "/api/admin/setup/challenge/verify", { response: token });
      await p.reload();
      return r;
    }, "Challenge verified: sign-in will be protected by it.");
    if (out) setVerified(true);
    else ch.reset(); // a token works once: show a fresh challenge
  };

  const noEdge = !!p.progress?.edge.none || !p.progress?.edge.token;
  return (
    <div class="wz-challenge">
      <p>
        Sign-in, invites and password recovery will ask for a bot check. Pick one and prove it works
        once here.
      </p>
      <BuiltinPart {...p} />
      <fieldset class="wz-part" disabled={noEdge}>
        <legend>Cloudflare Turnstile</legend>
        <p>
          {noEdge
            ? "Needs the Cloudflare link of the edge step (its API token creates the widget)."
            : `Create the widget for ${edgeHost ?? "your hostname"}, then solve it once below.`}
        </p>
        <div class="actions">
          <button
            type="button"
            class={c?.provisioned ? "" : "primary"}
            disabled={prov.busy}
            onClick={() =>
              prov.run(async () => {
                const extra = here !== edgeHost && HOSTNAME_RE.test(here) ? [here] : [];
                const out = await api<{ siteKey: string; reused: boolean; warning?: string }>(
                  "POST",
                  "/api/admin/setup/challenge/provision",
                  extra.length ? { domains: extra } : {},
                );
                setVerified(false);
                await p.reload();
                return (out.reused ? "The widget already exists." : "Widget created.") +
                  (out.warning ? ` ${out.warning}` : "");
              })}
          >
            {c?.provisioned ? "Create the widget again" : "Create the widget"}
          </button>
        </div>
        <Status s={prov.status} />
        {c?.provisioned && c.siteKey && (
          <div class="wz-solve">
            <h3>Solve the check</h3>
            <p class="muted">Widget for {c.domains.join(", ")}.</p>
            {done ? <p class="status ok">Verified.</p> : (
              <ChallengeWidget
                siteKey={c.siteKey}
                onToken={verify}
                resetKey={ch.resetKey}
                action="setup"
              />
            )}
            <Status s={ver.status} />
          </div>
        )}
      </fieldset>
      {!c?.provisioned && !c?.builtin && p.progress?.live.challenge && (
        <p class="status ok">A bot challenge is already live.</p>
      )}
      <div class="actions">
        <button type="button" class="primary" disabled={!done} onClick={p.next}>Continue</button>
      </div>
    </div>
  );
}

/** The built-in check: one solved puzzle records it as the challenge step. */
function BuiltinPart(p: StepProps) {
  const act = useAction();
  const chosen = !!p.progress?.challenge.builtin;
  return (
    <fieldset class={`wz-part${chosen ? " done" : ""}`}>
      <legend>
        Built-in check
        {chosen && <span class="wz-done">Chosen</span>}
      </legend>
      <p>
        A short proof-of-work puzzle the browser solves by itself: no third party, no account.
      </p>
      <div class="actions">
        <button
          type="button"
          class={chosen ? "" : "primary"}
          disabled={act.busy}
          onClick={() =>
            act.run(async () => {
              const solution = await solveBuiltin("setup");
              await api("POST", "/api/admin/setup/challenge/builtin", { solution });
              await p.reload();
            }, "Built-in check solved: sign-in will be protected by it.")}
        >
          Use the built-in check
        </button>
      </div>
      <Status s={act.status} />
    </fieldset>
  );
}
