/**
 * `GET /wait`: the built-in waiting room. Every load joins the queue, or resumes the visitor by
 * its `tg_ticket` (which is a status check: a due timeslot renews it), sets the cookies exactly
 * like the API, and renders the page server-side; the island then follows the timeslots. Without
 * JS the page refreshes itself at the next timeslot, and an admitted visitor is redirected.
 * `POST /wait/enter` is the no-JS click-to-enter confirmation.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { Services } from "../services.ts";
import { waitUrl } from "../../client/format.ts";
import { Document } from "../../components/Document.tsx";
import { Notice } from "../../components/Notice.tsx";
import { WaitPage } from "../../components/WaitPage.tsx";
import type { WaitRoomProps } from "../../islands/WaitRoom.tsx";
import { parseBrandingDraft } from "../../lib/branding.ts";
import { destinationFor, safeReturnPath } from "../../lib/destination.ts";
import { joinWithAccess } from "../../lib/access/join.ts";
import { AppError, RateLimitedError } from "../../lib/errors.ts";
import type { JoinOutcome } from "../../lib/queue/join.ts";
import { DEFAULT_BRANDING } from "../../lib/queue/types.ts";
import { answerVisitor, requesterOfContext, ticketOf } from "../../http/hono.ts";
import { QueueName } from "../schemas.ts";
import type { Assets } from "./assets.ts";
import { htmlPage, scriptJson } from "./html.tsx";
import { CHECK_CODES, checkPage, ENQUEUE_CODES, enqueueWords } from "./wait_check.tsx";
import { pageBranding, themeCss } from "../../lib/theme.ts";

/** Largest accepted `?start=` (the waiting-row cap's upper bound). */
const MAX_START = 50_000_000;
/** Seconds before a page that hit a server error tries again by itself. */
const ERROR_RETRY = 10;

/** The origin of an absolute destination, for the CSP's form-action. */
function originOf(url: string): string[] {
  return /^https:\/\//.test(url) ? [new URL(url).origin] : [];
}

/** The waiting-room page and its no-JS enter form. */
export function waitRoutes(s: Services, assets: () => Promise<Assets>) {
  const app = new Hono();
  const base = s.config.BASE_PATH ?? "";

  const notice = async (
    c: Context,
    status: number,
    heading: string,
    text: string,
    retrySeconds?: number,
    showMessage = false,
  ) => {
    const a = await assets();
    // The page that says the store is down must not need the store: default branding then.
    const b = pageBranding(await s.engine.ctx.branding("").catch(() => DEFAULT_BRANDING));
    // A relative URL: behind a proxy the request URL may name an internal host.
    const url = new URL(c.req.url);
    const retry = retrySeconds
      ? { seconds: retrySeconds, url: base + url.pathname + url.search, always: true }
      : undefined;
    if (retrySeconds) c.header("Retry-After", String(retrySeconds));
    const css = themeCss(b);
    return htmlPage(
      c,
      <Document
        title={heading}
        styleHref={a["style.css"]}
        themeCss={css}
        refresh={retry}
        embed={c.req.query("embed") === "1"}
        base={base}
      >
        <Notice heading={heading}>
          <p>{text}</p>
          {showMessage && b.message && <p class="message">{b.message}</p>}
        </Notice>
      </Document>,
      status,
      { inlineStyle: css, embed: c.req.query("embed") === "1" },
    );
  };

  /**
   * Any other failure as a plain page, never the JSON envelope: a refusal (403, e.g. a geo
   * block) says so; a server error or overload retries by itself, also without JS.
   */
  const failure = (c: Context, e: unknown) => {
    if (e instanceof AppError && e.status < 500 && e.status !== 429) {
      const heading = e.status === 403 ? "Access denied" : "Something is wrong with this link";
      return notice(c, e.status, heading, e.message);
    }
    if (!(e instanceof AppError)) {
      console.error(JSON.stringify({
        level: "error",
        msg: "unhandled",
        path: c.req.path,
        error: String(e),
      }));
    }
    const wait = e instanceof RateLimitedError ? Math.max(1, e.retryAfterSeconds) : ERROR_RETRY;
    return notice(
      c,
      e instanceof AppError ? e.status : 503,
      "Please wait a moment",
      `The waiting room could not answer just now. This page tries again by itself in ${wait} ` +
        `second${wait === 1 ? "" : "s"}.`,
      wait,
    );
  };

  // Whatever else escapes a handler here: a page too (Hono uses a sub-app's own error handler).
  app.onError((e, c) => failure(c, e));

  app.get("/wait", async (c) => {
    const q = c.req.query("queue");
    if (q !== undefined && !QueueName.safeParse(q).success) {
      return notice(c, 400, "Bad request", "The queue name in this link is not valid.");
    }
    // HEAD (link checkers, monitors): Hono runs this GET handler for it, but a HEAD must not
    // join the queue or set a ticket. The page exists; that is all it learns.
    if (c.req.method === "HEAD") {
      return c.body(null, 200, {
        "Content-Type": "text/html; charset=UTF-8",
        "Cache-Control": "no-store",
      });
    }
    // Without ?queue=: the default queue; none at all gives the unknown-queue page below.
    const queue = q ?? (await s.engine.defaultQueue()) ?? "default";
    const embed = c.req.query("embed") === "1";
    const returnPath = safeReturnPath(c.req.query("return")) ?? "";
    // The admin's branding preview: the page as a waiter sees it, with sample figures, without
    // joining (the admin's browser must not become a visitor) and without the island.
    if (c.req.query("preview") === "1" && await s.isAdminSession(c)) {
      return previewPage(c, queue, embed);
    }
    // A link from the operator's site may carry an enqueue token (one place per person).
    const enqueueToken = c.req.query("enqueueToken") ?? "";
    let out: JoinOutcome;
    try {
      // The access rules apply here as on POST /join: allowlisted in at once, blocked country out.
      const ticket = await ticketOf(c, s.signer, queue);
      out = await joinWithAccess(
        s,
        queue,
        ticket,
        undefined,
        requesterOfContext(c, s.config),
        enqueueToken ? { enqueueToken } : {},
      );
    } catch (e) {
      if (e instanceof AppError && CHECK_CODES.has(e.code)) {
        return checkPage(c, s, await assets(), queue, e.details, enqueueToken, embed);
      }
      if (e instanceof AppError && ENQUEUE_CODES.has(e.code)) {
        const [heading, text] = enqueueWords(e.code);
        return notice(c, e.status, heading, text);
      }
      if (e instanceof AppError && e.code === "geo_blocked") {
        return notice(c, 403, "Not available in your country", e.message);
      }
      if (e instanceof AppError && e.code === "unknown_queue") {
        return notice(c, 404, "Not found", "There is no waiting room here.");
      }
      if (e instanceof AppError && e.code === "not_open") {
        // Never says when: a fixed retry, and only the operator's own message may announce it.
        return notice(
          c,
          503,
          "Not open yet",
          "This waiting room is not open yet. This page checks again by itself every minute.",
          60,
          true,
        );
      }
      if (e instanceof RateLimitedError) {
        const wait = Math.max(1, Math.ceil(e.retryAfterSeconds));
        return notice(
          c,
          429,
          "Too many new places from your network",
          `Many people on your network joined this waiting room in the last minute. This page tries again by itself in ${wait} seconds.`,
          wait,
        );
      }
      if (e instanceof AppError && e.code === "queue_full") {
        return notice(
          c,
          503,
          "The waiting room is full",
          "Too many people are waiting right now. This page tries again by itself in 30 seconds.",
          30,
        );
      }
      return failure(c, e);
    }
    answerVisitor(c, s, queue, out);
    const branding = await s.engine.ctx.branding(queue);
    const destination = await destinationFor(s, branding, returnPath);
    const { accessToken, ...view } = out.view;
    // Admitted and entered: straight on (in an iframe the page offers a link to the top window).
    if (accessToken && !embed) return c.redirect(destination, 303);

    const now = s.clock.now();
    const a = await assets();
    const b = pageBranding(branding);
    const startRaw = c.req.query("start");
    const seen = startRaw && /^\d{1,8}$/.test(startRaw) ? Math.min(MAX_START, +startRaw) : 0;
    const start = view.position === undefined ? null : Math.max(seen, view.position);
    const island: WaitRoomProps = {
      queue,
      view,
      serverNow: now,
      start,
      destination,
      returnPath,
      embed,
      title: b.title,
      base,
    };
    const refresh = view.status === "waiting" && view.nextCheckAt !== undefined
      ? {
        seconds: Math.max(1, Math.ceil((view.nextCheckAt - now) / 1000)),
        url: waitUrl(queue, returnPath, embed, start, base),
        // Without the built bundle nothing would follow the timeslots: refresh for everyone.
        always: !a["wait.js"],
      }
      : undefined;
    const css = themeCss(b);
    return htmlPage(
      c,
      <Document
        title={view.status === "admitted" ? `✅ It's your turn — ${b.title}` : b.title}
        styleHref={a["style.css"]}
        themeCss={css}
        scriptSrc={a["wait.js"]}
        propsJson={a["wait.js"] ? scriptJson(island) : undefined}
        refresh={refresh}
        embed={embed}
        base={base}
      >
        <WaitPage branding={b} island={island} />
      </Document>,
      200,
      { inlineStyle: css, embed, formOrigins: originOf(destination) },
    );
  });

  /** A waiting page with sample figures for the admin's preview: no join, no cookie, no script. */
  const previewPage = async (c: Context, queue: string, embed: boolean) => {
    const settings = await s.engine.ctx.readSettings(queue);
    if (!settings) return notice(c, 404, "Not found", "There is no waiting room here.");
    const a = await assets();
    // `draft`: the admin's form as typed, so the preview follows it before a save.
    const branding = {
      ...await s.engine.ctx.branding(queue),
      ...parseBrandingDraft(c.req.query("draft")),
    };
    const b = pageBranding(branding);
    const fifo = settings.mode === "queue";
    const view: WaitRoomProps["view"] = {
      queue,
      visitorId: "preview",
      status: "waiting",
      admissionMode: settings.mode,
      estimatedWaitSeconds: 240,
      ...(fifo ? { position: 128 } : {}),
      ...(branding.showWaitingCount
        ? { waiting: 1500, ...(fifo ? { ahead: 127, behind: 1372 } : {}) }
        : {}),
    };
    const island: WaitRoomProps = {
      queue,
      view,
      serverNow: s.clock.now(),
      start: view.position ?? null,
      destination: "/",
      returnPath: "",
      embed,
      title: b.title,
      base,
    };
    const css = themeCss(b);
    return htmlPage(
      c,
      <Document
        title={`Preview — ${b.title}`}
        styleHref={a["style.css"]}
        themeCss={css}
        embed={embed}
        base={base}
      >
        <WaitPage branding={b} island={island} />
      </Document>,
      200,
      { inlineStyle: css, embed },
    );
  };

  app.post("/wait/enter", async (c) => {
    const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
    const queue = typeof form.queue === "string" ? form.queue : "";
    if (!QueueName.safeParse(queue).success) {
      return notice(c, 400, "Bad request", "The queue name in this form is not valid.");
    }
    const returnPath = safeReturnPath(typeof form.return === "string" ? form.return : "") ?? "";
    const back = waitUrl(queue, returnPath, false, null, base);
    const ticket = await ticketOf(c, s.signer, queue);
    if (!ticket || ticket.queue !== queue) return c.redirect(back, 303);
    try {
      const out = await s.engine.enter(queue, ticket, ticket.sub);
      answerVisitor(c, s, queue, out);
    } catch (e) {
      // Still waiting (409), hold expired or gone (404), bad ticket (401): back to the line,
      // where the page tells the visitor where it stands.
      if (e instanceof AppError && e.status < 500) return c.redirect(back, 303);
      return failure(c, e);
    }
    return c.redirect(
      await destinationFor(s, await s.engine.ctx.branding(queue), returnPath),
      303,
    );
  });

  return app;
}
