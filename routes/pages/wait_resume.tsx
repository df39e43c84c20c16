/**
 * The pages of moving a place to this browser: `/wait?resume=CODE` (the link a code, a QR code or
 * the turn e-mail carries) asks before it moves anything, and `POST /wait/resume` moves it, sets
 * the cookies and goes on to `/wait`. A browser whose place moved away sees the same form. Plain
 * HTML forms, so all of it works without JS; a link prefetcher moves nothing.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { Services } from "../services.ts";
import { waitUrl } from "../../client/format.ts";
import { Document } from "../../components/Document.tsx";
import { Notice } from "../../components/Notice.tsx";
import { ResumeForm } from "../../components/ResumeForm.tsx";
import { answerVisitor, clientIpOf, ticketOf } from "../../http/hono.ts";
import { AppError, RateLimitedError } from "../../lib/errors.ts";
import { DEFAULT_BRANDING } from "../../lib/queue/types.ts";
import { normalizeResumeCode } from "../../lib/resume/code.ts";
import { redeemCode } from "../../lib/resume/resume.ts";
import { RESUME_WORDS as W } from "../../lib/resume/words.ts";
import { pageBranding, themeCss } from "../../lib/theme.ts";
import { QueueName } from "../schemas.ts";
import { expectedOrigin } from "../admin/session.ts";
import type { Assets } from "./assets.ts";
import { htmlPage } from "./html.tsx";

/** Which page: a link's confirmation, or a browser whose place moved away. */
export type ResumePageKind = "confirm" | "moved";

/** The resume form page of `queue` (`error`: why the last try failed). */
export async function resumePage(
  c: Context,
  s: Services,
  a: Assets,
  queue: string,
  kind: ResumePageKind,
  opts: { code?: string; error?: string; status?: number } = {},
): Promise<Response> {
  const base = s.config.BASE_PATH ?? "";
  const b = pageBranding(await s.engine.ctx.branding(queue).catch(() => DEFAULT_BRANDING));
  const css = themeCss(b);
  const embed = c.req.query("embed") === "1";
  const heading = kind === "moved" ? W.moved : W.confirmMove;
  return htmlPage(
    c,
    <Document title={b.title} styleHref={a["style.css"]} themeCss={css} embed={embed} base={base}>
      <Notice heading={b.title}>
        <p class="live" role="status">{heading}</p>
        {opts.error && <p class="error" role="alert">{opts.error}</p>}
        {kind === "moved" && <p class="hint">{W.haveCode}</p>}
        <ResumeForm queue={queue} code={opts.code} base={base} />
      </Notice>
    </Document>,
    opts.status ?? (kind === "moved" ? 409 : 200),
    { inlineStyle: css, embed },
  );
}

/** `POST /wait/resume`: moves the place, then on to the waiting page. */
export function resumePageRoutes(s: Services, assets: () => Promise<Assets>) {
  const app = new Hono();
  const base = s.config.BASE_PATH ?? "";
  app.post("/wait/resume", async (c) => {
    // A form on another site must not swap this browser's ticket for someone else's place (the
    // visitor's own place would be lost to it): a browser's Origin must be ours.
    const origin = c.req.header("origin");
    if (origin !== undefined && origin !== expectedOrigin(s, c)) {
      return c.text("Forbidden: this form must be sent from the waiting room's own page", 403);
    }
    const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
    const queue = typeof form.queue === "string" ? form.queue : "";
    const code = typeof form.code === "string" ? form.code.slice(0, 32) : "";
    if (!QueueName.safeParse(queue).success) return c.text("Bad request: queue", 400);
    try {
      const current = await ticketOf(c, s.signer, queue);
      const out = await redeemCode(s, queue, code, clientIpOf(c, s.config), current);
      answerVisitor(c, s, queue, out);
      return c.redirect(waitUrl(queue, "", false, null, base), 303);
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      const error = e instanceof RateLimitedError ? W.tooMany : W.badCode;
      if (e instanceof RateLimitedError) c.header("Retry-After", String(e.retryAfterSeconds));
      const shown = normalizeResumeCode(code) ?? code;
      return resumePage(c, s, await assets(), queue, "confirm", {
        code: shown,
        error,
        status: e.status,
      });
    }
  });
  return app;
}
