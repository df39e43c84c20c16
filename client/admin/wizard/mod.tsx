/// <reference lib="dom" />
/**
 * The first-run setup wizard, five steps: account, edge, bot challenge, queue, branding (then
 * Finish). Progress lives on the server (bootstrap's `claimed`, `GET /api/admin/setup`), so a
 * reload resumes at the first step not yet done; Back revisits a done step.
 */
import type { FunctionComponent } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, messageOf } from "../api.ts";
import type { ScreenProps } from "../boot.ts";
import { challengeDone, edgeDone, type SetupProgress, type StepProps } from "./types.ts";
import { AccountStep, pendingPhrase } from "./account.tsx";
import { EdgeStep } from "./edge.tsx";
import { ChallengeStep } from "./challenge.tsx";
import { QueueStep } from "./queue.tsx";
import { BrandingStep } from "./branding.tsx";

const STEPS: [string, FunctionComponent<StepProps>][] = [
  ["Account", AccountStep],
  ["Edge", EdgeStep],
  ["Bot challenge", ChallengeStep],
  ["Queue", QueueStep],
  ["Branding", BrandingStep],
];

/** The first step not yet done (the last one when all are). */
function firstOpen(claimed: boolean, p: SetupProgress | null): number {
  if (!claimed || pendingPhrase()) return 0;
  if (!edgeDone(p)) return 1;
  if (!challengeDone(p)) return 2;
  if (!p?.steps.queue) return 3;
  return 4;
}

export function Wizard(p: ScreenProps) {
  const [progress, setProgress] = useState<SetupProgress | null>(null);
  const [step, setStep] = useState<number | null>(
    p.boot.claimed && !pendingPhrase() ? null : 0,
  );
  const [error, setError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);

  const reload = async () => {
    try {
      const out = await api<SetupProgress>("GET", "/api/admin/setup");
      setProgress(out);
      setError(null);
      return out;
    } catch (e) {
      setError(messageOf(e));
      return null;
    }
  };
  useEffect(() => {
    if (!p.boot.claimed || !p.boot.signedIn) return;
    reload().then((out) => {
      if (out && !pendingPhrase()) setStep((s) => Math.max(s ?? 0, firstOpen(true, out)));
    });
  }, [p.boot.claimed, p.boot.signedIn]);
  const painted = useRef(false);
  useEffect(() => {
    // Focus the step's heading when the step changes (not on first paint), also when it changed
    // by itself (a claim's reload) and focus fell to the page.
    const lost = document.activeElement === document.body;
    if (painted.current && (moved.current || lost)) heading.current?.focus();
    if (step !== null) painted.current = true;
  }, [step]);

  const go = (i: number) => {
    moved.current = true;
    setStep(i);
  };

  if (error && step === null) {
    return (
      <div class="card" role="alert">
        <p>{error}</p>
        <button type="button" onClick={reload}>Try again</button>
      </div>
    );
  }
  if (step === null) return <p aria-busy="true">Loading your setup progress…</p>;
  const [title, Step] = STEPS[step];
  return (
    <div class="wizard">
      <h1>Set up Tollgate</h1>
      <nav aria-label="Setup steps">
        <ol class="wz-steps">
          {STEPS.map(([name], i) => (
            <li
              key={name}
              class={i === step ? "current" : i < step ? "past" : ""}
              aria-current={i === step ? "step" : undefined}
            >
              <span class="n" aria-hidden="true">{i + 1}</span> {name}
            </li>
          ))}
        </ol>
      </nav>
      <section class="card wz-step" aria-labelledby="wz-step-h">
        <h2 id="wz-step-h" ref={heading} tabIndex={-1}>
          Step {step + 1} of {STEPS.length}: {title}
        </h2>
        <Step
          key={step}
          boot={p.boot}
          progress={progress}
          reload={reload}
          next={() => go(Math.min(step + 1, STEPS.length - 1))}
          done={p.done}
        />
        {step > 0 && (
          <div class="actions wz-back">
            <button type="button" onClick={() => go(step - 1)}>Back</button>
          </div>
        )}
      </section>
      {error && <p class="status error" role="alert">{error}</p>}
    </div>
  );
}
