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

/** The codes a /wait join answers with this page (the rest are the page's other notices). */
export const CHECK_CODES = new Set(["challenge_required", "challenge_failed"]);
/** Enqueue-token refusals: a plain page pointing back to the operator's site. */
export const ENQUEUE_CODES = new Set([
  "enqueue_token_required",
  "enqueue_token_invalid",
  "enqueue_token_unavailable",
]);

/** Renders the check page for a refused join's `details` (a challenge and/or a site key). */
export async function checkPage(
  c: Context,
  s: Services,
  a: Assets,
  queue: string,
  details: Record<string, unknown>,
  enqueueToken: string,
  embed: boolean,
): Promise<Response> {
  const b = pageBranding(await s.engine.ctx.branding(queue));
  const url = new URL(c.req.url);
  const ts = details.turnstile as { siteKey: string } | null | undefined;
  const props: JoinCheckProps = {
    queue,
    challenge: (details.challenge as PowChallenge | null | undefined) ?? null,
    turnstile: ts ? { siteKey: ts.siteKey, scriptUrl: s.config.TURNSTILE_SCRIPT_URL } : null,
    enqueueToken,
    workerUrl: a["pow_worker.js"],
    next: url.pathname + url.search,
  };
  const css = themeCss(b);
  return htmlPage(
    c,
    <Document
      title={`One moment — ${b.title}`}
      styleHref={a["style.css"]}
      themeCss={css}
      scriptSrc={a["wait.js"]}
      propsJson={a["wait.js"] ? scriptJson({ check: props }) : undefined}
      embed={embed}
    >
      <section class="card" aria-labelledby="tg-title">
        {b.logoUrl && <img class="logo" src={b.logoUrl} alt="" />}
        <h1 id="tg-title">{b.title}</h1>
        <noscript>
          <p class="live">
            Before you join the line, this page checks that you are a person and not a script. The
            check needs JavaScript: please turn it on and reload this page.
          </p>
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

/** The words of an enqueue-token refusal on /wait. */
export function enqueueWords(code: string): [string, string] {
  if (code === "enqueue_token_unavailable") {
    return ["Not available right now", "This waiting room cannot check its links right now."];
  }
  return [
    "Please use the link from the site",
    code === "enqueue_token_required"
      ? "This waiting room is joined through a personal link from the site that sent you here. " +
        "Go back to the site and follow its link to the line."
      : "The link that brought you here is not valid (it may have expired). Go back to the site " +
        "and follow its link to the line again.",
  ];
}
