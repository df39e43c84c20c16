/// <reference lib="dom" />
/**
 * The check before joining (/wait while the queue's bot challenge is on): solves the built-in
 * proof-of-work challenge in a Web Worker, with a progress bar and one announced progress line,
 * and/or shows the Turnstile widget; then joins with the answers and reloads /wait, which finds
 * the new ticket and shows the place in line. Without JavaScript the page says the check needs it.
 *
 * The same check moves a place (`resume`): while a queue is over its budget of wrong resume codes,
 * the resume form must carry a solved challenge; the island sends the form again with it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { PowChallenge } from "../lib/challenge/pow.ts";
import { solve } from "./pow_solver.ts";
import { percentOf, t } from "../lib/i18n/format.ts";
import type { Lang } from "../lib/i18n/langs.ts";
import type { Catalogue } from "../lib/i18n/messages/en.ts";

/** Props of the check island: plain data from the server. */
export interface JoinCheckProps {
  queue: string;
  /** The built-in challenge to solve; null when only Turnstile is asked for. */
  challenge: PowChallenge | null;
  /** Turnstile's site key and script, when its widget is asked for. */
  turnstile: { siteKey: string; scriptUrl: string } | null;
  /** The enqueue token of the link ("" when none), sent with the join. */
  enqueueToken: string;
  /** The solver's worker bundle. */
  workerUrl?: string;
  /** Where to go once joined (this /wait page, which then resumes by the new ticket). */
  next: string;
  /** Tollgate's path prefix (`BASE_PATH`): the join and the status go under it ("" without). */
  base: string;
  /** Set when the check is for a resume form (`action`, its code, the page asked for). */
  resume?: { action: string; code: string; ret?: string };
  /** The page's language and its messages. */
  lang: Lang;
  m: Catalogue;
}

type TurnstileApi = {
  render(el: HTMLElement, o: { sitekey: string; callback: (t: string) => void }): string;
};

/** Loads Turnstile's script once and renders its widget into `el`; resolves with its token. */
function turnstileToken(
  el: HTMLElement,
  siteKey: string,
  scriptUrl: string,
  m: Catalogue,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const g = globalThis as unknown as { turnstile?: TurnstileApi };
    const render = () => g.turnstile!.render(el, { sitekey: siteKey, callback: resolve });
    if (g.turnstile) return void render();
    const s = document.createElement("script");
    s.src = `${scriptUrl}${scriptUrl.includes("?") ? "&" : "?"}render=explicit`;
    s.onload = render;
    s.onerror = () => reject(new Error(m["check.errWidget"]));
    document.head.appendChild(s);
  });
}

/** A rough share done after `tried` tries of a challenge expecting `difficulty` (never 100%). */
function shareDone(tried: number, difficulty: number): number {
  return Math.min(0.99, 1 - Math.exp(-tried / Math.max(1, difficulty)));
}

/** Joins with what the check produced, and the enqueue token the link carried. */
function joinWithProofs(
  p: JoinCheckProps,
  proof: { challenge: string; nonce: string } | undefined,
  turnstileResponse: string | undefined,
): Promise<Response> {
  return fetch(`${p.base}/join`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      queue: p.queue,
      ...(proof ? { proof } : {}),
      ...(turnstileResponse ? { turnstileResponse } : {}),
      ...(p.enqueueToken ? { enqueueToken: p.enqueueToken } : {}),
    }),
  });
}

/**
 * Sends the resume form again, with the solution as the JSON text of `proof`: the server moves
 * the place and goes on to /wait, or answers the form's page (a wrong code) or this check again.
 */
function submitResume(
  p: JoinCheckProps & { resume: { action: string; code: string; ret?: string } },
  proof: { challenge: string; nonce: string } | undefined,
): void {
  const f = document.createElement("form");
  f.method = "post";
  f.action = p.resume.action;
  const fields: Record<string, string> = { queue: p.queue, code: p.resume.code };
  fields.proof = JSON.stringify(proof ?? null);
  if (p.resume.ret) fields.return = p.resume.ret; // the page asked for, kept across the check
  for (const [name, value] of Object.entries(fields)) {
    const i = document.createElement("input");
    i.type = "hidden";
    i.name = name;
    i.value = value;
    f.appendChild(i);
  }
  document.body.appendChild(f);
  f.submit();
}

/**
 * The ticket must come back before the page reloads: in a frame whose cookies the browser does
 * not keep, a reload would ask for the check again, and again.
 */
async function ticketKept(p: JoinCheckProps, m: Catalogue): Promise<void> {
  const url = `${p.base}/status?queue=${encodeURIComponent(p.queue)}`;
  const back = await fetch(url, { cache: "no-store" });
  if (back.status === 401) throw new Error(m["check.errCookies"]);
}

/** A refused solution comes with a fresh challenge to solve; any other refusal is an error. */
async function freshChallenge(res: Response, m: Catalogue): Promise<PowChallenge> {
  const body = await res.json().catch(() => null);
  const err = body?.error;
  if (err?.code === "challenge_failed" && err.details?.challenge) return err.details.challenge;
  // The envelope's message is English for operators: the visitor gets the status in its words.
  throw new Error(t(m, "check.errStatus", { status: res.status }));
}

/** The check island. */
export function JoinCheck(p: JoinCheckProps) {
  const { m, lang } = p;
  const [said, setSaid] = useState(m["check.checking"]);
  const [share, setShare] = useState(0);
  const [failed, setFailed] = useState(false);
  const widget = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let stop = () => {};
    let quarter = 0;
    let live = true;
    const pass = async (ch: PowChallenge | null): Promise<void> => {
      const tsToken = p.turnstile && widget.current
        ? turnstileToken(widget.current, p.turnstile.siteKey, p.turnstile.scriptUrl, m)
        : Promise.resolve(undefined);
      let proof: { challenge: string; nonce: string } | undefined;
      if (ch) {
        const run = solve(ch, p.workerUrl, (tried) => {
          if (!live) return;
          const f = shareDone(tried, ch.difficulty);
          setShare(f);
          // The live line changes only at each quarter, so screen readers are not flooded.
          const q = Math.floor(f * 4);
          if (q > quarter) {
            quarter = q;
            setSaid(t(m, "check.progress", { percent: percentOf(m, lang, q / 4) }));
          }
        });
        stop = run.stop;
        proof = { challenge: ch.challenge, nonce: await run.done };
      }
      const turnstileResponse = await tsToken;
      if (!live) return;
      setShare(1);
      if (p.resume) {
        setSaid(m["check.doneResume"]);
        return submitResume({ ...p, resume: p.resume }, proof);
      }
      setSaid(m["check.done"]);
      const res = await joinWithProofs(p, proof, turnstileResponse);
      if (res.ok) {
        await ticketKept(p, m);
        return location.replace(p.next);
      }
      const next = await freshChallenge(res, m);
      quarter = 0;
      setSaid(m["check.again"]);
      return pass(next);
    };
    pass(p.challenge).catch((e) => {
      if (!live) return;
      setFailed(true);
      setSaid(t(m, "check.failed", { reason: e.message }));
    });
    return () => {
      live = false;
      stop();
    };
  }, []);

  return (
    <div class="panel check">
      <p class={failed ? "live" : "live hint"} role="status" aria-live="polite" aria-atomic="true">
        {said}
      </p>
      {p.challenge && !failed && (
        <progress max={100} value={Math.round(share * 100)} aria-label={m["check.progressLabel"]} />
      )}
      {p.turnstile && <div ref={widget} class="turnstile" />}
      {failed && (
        <p>
          <a href={p.next}>{m["check.reload"]}</a>
        </p>
      )}
    </div>
  );
}
