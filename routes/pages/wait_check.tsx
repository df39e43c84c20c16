/**
 * The /wait page while a join needs a check first (the queue's bot challenge is on): the check
 * island solves the built-in challenge and/or shows Turnstile, then joins and comes back. Without
 * JavaScript it says the check needs it. A refused enqueue token gets a plain page saying so.
 */
import type { Context } from "hono";
import type { Services } from "../services.ts";
import { Document } from "../../components/Document.tsx";
import type { JoinCheckProps } from "../../islands/JoinCheck.tsx";
import { JoinCheck } from "../../islands/JoinCheck.tsx";
import type { PowChallenge } from "../../lib/challenge/pow.ts";
import { pageBranding, themeCss } from "../../lib/theme.ts";
import type { Assets } from "./assets.ts";
import { htmlPage, scriptJson } from "./html.tsx";
import { localTexts, pageLang, selfUrl } from "./lang.ts";
import { SCRIPT_KEYS, scriptMessages } from "../../lib/i18n/catalogues.ts";
import { t } from "../../lib/i18n/format.ts";
import type { MessageKey } from "../../lib/i18n/messages/en.ts";

/** The codes a /wait join answers with this page (the rest are the page's other notices). */
export const CHECK_CODES = new Set(["challenge_required", "challenge_failed"]);
/** Enqueue-token refusals: a plain page pointing back to the operator's site. */
export const ENQUEUE_CODES = new Set([
  "enqueue_token_required",
  "enqueue_token_invalid",
  "enqueue_token_unavailable",
]);

/**
 * Renders the check page for a refused join's `details` (a challenge and/or a site key), or with
 * `resume` for a refused resume form's (the island sends the form again with the solution).
 */
export async function checkPage(
  c: Context,
  s: Services,
  a: Assets,
  queue: string,
  details: Record<string, unknown>,
  enqueueToken: string,
  embed: boolean,
  resume?: { code: string; returnPath?: string },
): Promise<Response> {
  const base = s.config.BASE_PATH ?? "";
  const branding = await s.engine.ctx.branding(queue);
  const { lang, m } = pageLang(c, branding.messages);
  const b = localTexts(pageBranding(branding), m, lang);
  const url = new URL(c.req.url);
  const ts = details.turnstile as { siteKey: string } | null | undefined;
  const props: JoinCheckProps = {
    queue,
    challenge: (details.challenge as PowChallenge | null | undefined) ?? null,
    turnstile: ts ? { siteKey: ts.siteKey, scriptUrl: s.config.TURNSTILE_SCRIPT_URL } : null,
    enqueueToken,
    workerUrl: a["pow_worker.js"],
    next: resume
      ? `${base}/wait?queue=${encodeURIComponent(queue)}&resume=${encodeURIComponent(resume.code)}`
      : `${base}${url.pathname}${url.search}`,
    ...(resume
      ? { resume: { action: `${base}/wait/resume`, code: resume.code, ret: resume.returnPath } }
      : {}),
    base,
    lang,
    m: scriptMessages(m, SCRIPT_KEYS.check),
  };
  const css = themeCss(b);
  return htmlPage(
    c,
    <Document
      title={t(m, "check.title", { title: b.title })}
      styleHref={a["style.css"]}
      themeCss={css}
      scriptSrc={a["wait.js"]}
      propsJson={a["wait.js"] ? scriptJson({ check: props }) : undefined}
      embed={embed}
      base={base}
      lang={lang}
      m={m}
      url={resume ? props.next : selfUrl(c, base)}
    >
      <section class="card" aria-labelledby="tg-title">
        {b.logoUrl && <img class="logo" src={b.logoUrl} alt="" />}
        <h1 id="tg-title">{b.title}</h1>
        <noscript>
          <p class="live">{m["check.noscript"]}</p>
        </noscript>
        <div id="tg-check">
          <JoinCheck {...props} />
        </div>
      </section>
    </Document>,
    200,
    {
      inlineStyle: css,
      embed,
      widgetOrigin: ts ? new URL(s.config.TURNSTILE_SCRIPT_URL).origin : undefined,
    },
  );
}

/** The messages of an enqueue-token refusal on /wait: heading and text. */
export function enqueueWords(code: string): [MessageKey, MessageKey] {
  if (code === "enqueue_token_unavailable") {
    return ["enqueue.unavailable", "enqueue.unavailableText"];
  }
  return [
    "enqueue.useLink",
    code === "enqueue_token_required" ? "enqueue.required" : "enqueue.invalid",
  ];
}
