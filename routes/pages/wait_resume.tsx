/**
 * The pages of moving a place to this browser: `/wait?resume=CODE` (the link a code, a QR code or
 * the turn e-mail carries) asks before it moves anything, and `POST /wait/resume` moves it, sets
 * the cookies and goes on to `/wait`. A browser whose place moved away sees the same form. Plain
 * HTML forms, so all of it works without JS; a link prefetcher moves nothing. The pages speak the
 * visitor's language, as the waiting page does.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { Services } from "../services.ts";
import { waitUrl } from "../../client/format.ts";
import { safeReturnPath, withReturn } from "../../lib/destination.ts";
import { Document } from "../../components/Document.tsx";
import { Notice } from "../../components/Notice.tsx";
import { ResumeForm } from "../../components/ResumeForm.tsx";
import { answerVisitor, clientIpOf, ticketOf } from "../../http/hono.ts";
import { AppError, RateLimitedError } from "../../lib/errors.ts";
import { DEFAULT_BRANDING } from "../../lib/branding.ts";
import { normalizeResumeCode } from "../../lib/resume/code.ts";
import { redeemCode } from "../../lib/resume/resume.ts";
import { pageBranding, themeCss } from "../../lib/theme.ts";
import { QueueName } from "../schemas.ts";
import { expectedOrigin } from "../admin/session.ts";
import { siteOf } from "../resume.ts";
import type { Assets } from "./assets.ts";
import type { NoticeFn } from "./wait_notice.tsx";
import { CHECK_CODES, checkPage } from "./wait_check.tsx";
import { htmlPage } from "./html.tsx";
import { localTexts, pageLang, selfUrl } from "./lang.ts";
import { t } from "../../lib/i18n/format.ts";

/** Which page: a link's confirmation, or a browser whose place moved away. */
export type ResumePageKind = "confirm" | "moved";

/** Why the last try failed: a wrong code, or too many of them. */
export type ResumeError = "resume.badCode" | "resume.tooMany";

/** The resume form page of `queue` (`error`: why the last try failed). */
export async function resumePage(
  c: Context,
  s: Services,
  a: Assets,
  queue: string,
  kind: ResumePageKind,
  opts: { code?: string; error?: ResumeError; status?: number; returnPath?: string } = {},
): Promise<Response> {
  const base = s.config.BASE_PATH ?? "";
  const branding = await s.engine.ctx.branding(queue).catch(() => DEFAULT_BRANDING);
  const { lang, m } = pageLang(c, branding.messages);
  const b = localTexts(pageBranding(branding), m, lang);
  const css = themeCss(b);
  const embed = c.req.query("embed") === "1";
  const heading = kind === "moved" ? m["resume.moved"] : m["resume.confirmMove"];
  // The language menu reloads this page; after a refused form post that is the link's page.
  const url = c.req.method === "GET" ? selfUrl(c, base) : withReturn(
    `${base}/wait?queue=${encodeURIComponent(queue)}&resume=${encodeURIComponent(opts.code ?? "")}`,
    opts.returnPath ?? "",
  );
  return htmlPage(
    c,
    <Document
      // Where the visitor is: asked to move a place here, or its place moved away.
      title={t(m, kind === "moved" ? "page.movedTitle" : "page.moveTitle", { title: b.title })}
      styleHref={a["style.css"]}
      themeCss={css}
      embed={embed}
      base={base}
      lang={lang}
      m={m}
      url={url}
    >
      <Notice heading={b.title}>
        <p class="live" role="status">{heading}</p>
        {opts.error && <p class="error" role="alert">{m[opts.error]}</p>}
        {kind === "moved" && <p class="hint">{m["resume.haveCode"]}</p>}
        <ResumeForm
          queue={queue}
          code={opts.code}
          base={base}
          returnPath={opts.returnPath}
          m={m}
        />
      </Notice>
    </Document>,
    opts.status ?? (kind === "moved" ? 409 : 200),
    { inlineStyle: css, embed },
  );
}

/** The enqueue token a check page sends with a join: none for a resume. */
const NO_TOKEN = "";

/** The form's `proof` (the JSON text the check island sends), or undefined when none. */
function proofOf(field: unknown): unknown {
  if (typeof field !== "string" || field === "") return undefined;
  try {
    return JSON.parse(field.slice(0, 1024)) ?? undefined;
  } catch {
    return field; // refused by the check as malformed, with a fresh challenge
  }
}

/** `POST /wait/resume`: moves the place, then on to the waiting page. */
export function resumePageRoutes(
  s: Services,
  assets: () => Promise<Assets>,
  notice: NoticeFn,
) {
  const app = new Hono();
  const base = s.config.BASE_PATH ?? "";
  app.post("/wait/resume", async (c) => {
    // A form on another site must not swap this browser's ticket for someone else's place (the
    // visitor's own place would be lost to it): a browser's Origin must be ours. Ours is also the
    // https:// one a TLS proxy forwards (the resume link names it, siteOf): without PUBLIC_URL the
    // request URL says http:// and every visitor's move was refused.
    const origin = c.req.header("origin");
    const ours = [expectedOrigin(s, c), new URL(siteOf(c, s)).origin];
    if (origin !== undefined && !ours.includes(origin)) {
      // i18n-ok: a refusal for another site's form, not a visitor's page
      return c.text("Forbidden: this form must be sent from the waiting room's own page", 403);
    }
    const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
    const queue = typeof form.queue === "string" ? form.queue : "";
    const code = typeof form.code === "string" ? form.code.slice(0, 32) : "";
    const proof = proofOf(form.proof);
    // The page the visitor asked for (the link carried it): the moved place still lands there.
    const returnPath = safeReturnPath(typeof form.return === "string" ? form.return : "") ?? "";
    if (!QueueName.safeParse(queue).success) {
      return notice(c, 400, "notice.badRequest", "notice.badQueueForm");
    }
    try {
      const current = await ticketOf(c, s.signer, queue);
      const out = await redeemCode(s, queue, code, clientIpOf(c, s.config), current, proof);
      answerVisitor(c, s, queue, out);
      return c.redirect(waitUrl(queue, returnPath, false, null, base), 303);
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      // A queue deleted since the link was made: its own page, not the form again.
      if (e.code === "unknown_queue") {
        return notice(c, 404, "notice.notFound", "notice.notFoundText");
      }
      const shown = normalizeResumeCode(code) ?? code;
      // Too many wrong codes in the queue: a check page solves the challenge and sends it again
      // (no enqueue token: a resume needs none).
      if (CHECK_CODES.has(e.code)) {
        const embed = c.req.query("embed") === "1";
        const resume = { code: shown, returnPath };
        return checkPage(c, s, await assets(), queue, e.details, NO_TOKEN, embed, resume);
      }
      const error = e instanceof RateLimitedError ? "resume.tooMany" : "resume.badCode";
      if (e instanceof RateLimitedError) c.header("Retry-After", String(e.retryAfterSeconds));
      return resumePage(c, s, await assets(), queue, "confirm", {
        code: shown,
        error,
        status: e.status,
        returnPath,
      });
    }
  });
  return app;
}
