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
import { WaitPage } from "../../components/WaitPage.tsx";
import type { WaitRoomProps } from "../../islands/WaitRoom.tsx";
import { destinationFor, safeReturnPath } from "../../lib/destination.ts";
import { joinWithAccess } from "../../lib/access/join.ts";
import { withUnconfirmedTicket } from "../../http/response.ts";
import { clearedCookie, isSecureRequest } from "../../http/cookies.ts";
import { pageLoad, visitEnded } from "./wait_visit.ts";
import { AppError } from "../../lib/errors.ts";
import type { JoinOutcome } from "../../lib/queue/join.ts";
import type { Branding } from "../../lib/branding.ts";
import { answerVisitor, requesterOfContext, ticketOf } from "../../http/hono.ts";
import { QueueName } from "../schemas.ts";
import type { Assets } from "./assets.ts";
import { htmlPage, scriptJson } from "./html.tsx";
import { CHECK_CODES, checkPage } from "./wait_check.tsx";
import { type Notices, refusalPage, waitNotices } from "./wait_notice.tsx";
import { previewPage } from "./wait_preview.tsx";
import { pageBranding, themeCss } from "../../lib/theme.ts";
import { resumePage, resumePageRoutes } from "./wait_resume.tsx";
import { CRAWLER_RETRY_AFTER } from "../../lib/crawlers/settings.ts";
import { localTexts, pageLang, selfUrl } from "./lang.ts";
import { SCRIPT_KEYS, scriptMessages } from "../../lib/i18n/catalogues.ts";
import { t } from "../../lib/i18n/format.ts";

/** Largest accepted `?start=` (the waiting-row cap's upper bound). */
const MAX_START = 50_000_000;

/** The origin of an absolute destination, for the CSP's form-action. */
function originOf(url: string): string[] {
  return /^https:\/\//.test(url) ? [new URL(url).origin] : [];
}

/** What a `/wait` load asks for, read from its query once. */
interface WaitRequest {
  queue: string;
  embed: boolean;
  returnPath: string;
  /** A link from the operator's site may carry an enqueue token (one place per person). */
  enqueueToken: string;
  /** A priority code (`?code=`, or the page's code field): the place goes into its lane. */
  priorityCode: string;
}

/**
 * HEAD (link checkers, monitors), and a browser's fetch of an image or favicon (pageLoad): Hono
 * runs the GET handler for a HEAD, but neither may join the queue or set a ticket. The page
 * exists; that is all it learns.
 */
function headAnswer(c: Context): Response {
  return c.body(null, 200, {
    "Content-Type": "text/html; charset=UTF-8",
    "Cache-Control": "no-store",
  });
}

/**
 * Joins or resumes the visitor, under the same access rules as POST /join (allowlisted in at
 * once, blocked country out); a refusal comes back as its page instead of an outcome.
 */
async function joinFromPage(
  c: Context,
  s: Services,
  assets: () => Promise<Assets>,
  n: Notices,
  r: WaitRequest,
): Promise<JoinOutcome | Response> {
  try {
    const ticket = await ticketOf(c, s.signer, r.queue);
    return await joinWithAccess(
      s,
      r.queue,
      ticket,
      undefined,
      requesterOfContext(c, s.config),
      {
        ...(r.enqueueToken ? { enqueueToken: r.enqueueToken } : {}),
        ...(r.priorityCode ? { priorityCode: r.priorityCode } : {}),
      },
    );
  } catch (e) {
    if (e instanceof AppError && CHECK_CODES.has(e.code)) {
      return checkPage(c, s, await assets(), r.queue, e.details, r.enqueueToken, r.embed);
    }
    // This browser's place was moved to another device: a code from there takes it back.
    if (e instanceof AppError && e.code === "place_moved") {
      return resumePage(c, s, await assets(), r.queue, "moved", { returnPath: r.returnPath });
    }
    return withUnconfirmedTicket(await refusalPage(c, n, e), e, c.req.raw);
  }
}

/** The server-rendered waiting page for a visitor still in line (or admitted inside an iframe). */
function waitingPage(
  c: Context,
  s: Services,
  a: Assets,
  r: WaitRequest,
  view: WaitRoomProps["view"],
  branding: Branding,
  destination: string,
  waitingStatus = 200,
): Response {
  const base = s.config.BASE_PATH ?? "";
  const { queue, embed, returnPath } = r;
  const now = s.clock.now();
  const { lang, m } = pageLang(c, branding.messages);
  const b = localTexts(pageBranding(branding), m, lang);
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
    mail: s.mail.enabled,
    codes: (s.engine.ctx.freshView(queue)?.lanes?.lanes.length ?? 0) > 0,
    qrSrc: a["qr.js"],
    lang,
    m: scriptMessages(m, SCRIPT_KEYS.wait),
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
  // The queue may answer its waiting page with 429 or 503, so that no cache or search engine
  // keeps it as the site's page; the retry comes at the next timeslot.
  const status = view.status === "waiting" ? waitingStatus : 200;
  if (status !== 200) c.header("Retry-After", String(refresh?.seconds ?? 5));
  return htmlPage(
    c,
    <Document
      title={view.status === "admitted" ? t(m, "page.turnTitle", { title: b.title }) : b.title}
      styleHref={a["style.css"]}
      themeCss={css}
      scriptSrc={a["wait.js"]}
      propsJson={a["wait.js"] ? scriptJson(island) : undefined}
      refresh={refresh}
      embed={embed}
      base={base}
      lang={lang}
      m={m}
      url={selfUrl(c, base)}
    >
      <WaitPage branding={b} island={island} />
    </Document>,
    status,
    { inlineStyle: css, embed, formOrigins: originOf(destination) },
  );
}

/** The waiting-room page and its no-JS enter form. */
export function waitRoutes(s: Services, assets: () => Promise<Assets>) {
  const app = new Hono();
  const base = s.config.BASE_PATH ?? "";
  const n = waitNotices(s, assets);
  const { notice, failure } = n;

  // Whatever else escapes a handler here: a page too (Hono uses a sub-app's own error handler).
  app.onError((e, c) => failure(c, e));

  app.get("/wait", async (c) => {
    const q = c.req.query("queue");
    if (q !== undefined && !QueueName.safeParse(q).success) {
      return notice(c, 400, "notice.badRequest", "notice.badQueueLink");
    }
    if (c.req.method === "HEAD" || !pageLoad(c)) return headAnswer(c);
    const r: WaitRequest = {
      // Without ?queue=: the default queue; none at all gives the unknown-queue page.
      queue: q ?? (await s.engine.defaultQueue()) ?? "default",
      embed: c.req.query("embed") === "1",
      returnPath: safeReturnPath(c.req.query("return")) ?? "",
      enqueueToken: c.req.query("enqueueToken") ?? "",
      priorityCode: (c.req.query("code") ?? "").slice(0, 64),
    };
    // The admin's branding preview: sample figures, no join (see wait_preview.tsx).
    if (c.req.query("preview") === "1" && await s.isAdminSession(c)) {
      return previewPage(c, s, assets, notice, r.queue, r.embed);
    }
    // A resume link (code, QR code, turn e-mail): asks before moving, never joins (wait_resume.tsx).
    const resume = c.req.query("resume");
    if (resume !== undefined) {
      // No form for a queue that does not exist (deleted since the link was made, or mistyped).
      if (!(await s.engine.queueNames()).includes(r.queue)) {
        return notice(c, 404, "notice.notFound", "notice.notFoundText");
      }
      return resumePage(c, s, await assets(), r.queue, "confirm", {
        code: resume.slice(0, 32),
        returnPath: r.returnPath,
      });
    }
    // Before queueing: a verified search engine crawler gets what the queue's rules say.
    const crawler = await s.crawlers.decide(
      r.queue,
      requesterOfContext(c, s.config).ip,
      c.req.header("user-agent") ?? null,
    );
    if (crawler === "503") {
      return notice(c, 503, "notice.moment", "notice.momentText", CRAWLER_RETRY_AFTER);
    }
    if (crawler === "pass") {
      const to = await destinationFor(s, await s.engine.ctx.branding(r.queue), r.returnPath);
      return c.redirect(to, 302);
    }
    // The visitor's session here just ended (the site released it, or it ended early): said,
    // with a new place one press away, rather than taken behind the visitor's back.
    if (await visitEnded(c, s, r.queue)) {
      const secure = isSecureRequest(c.req.raw);
      c.header("Set-Cookie", clearedCookie("tg_ended", secure));
      c.header("Set-Cookie", clearedCookie("tg_access", secure), { append: true });
      const again = {
        href: waitUrl(r.queue, r.returnPath, r.embed, null, base),
        label: "wait.joinAgain",
      } as const;
      return notice(c, 200, "notice.visitEnded", "notice.visitEndedText", undefined, false, again);
    }
    const out = await joinFromPage(c, s, assets, n, r);
    // A refusal's page (a 503 of a busy store among them) answers without the mail read: a read
    // waits behind the commits stuck on a locked KV file (7 s in tests/store_busy_test.ts).
    if (out instanceof Response) return out;
    await s.mail.refresh(); // whether the page offers the turn e-mail (read once a second)
    answerVisitor(c, s, r.queue, out);
    const branding = await s.engine.ctx.branding(r.queue);
    const destination = await destinationFor(s, branding, r.returnPath);
    const { accessToken, ...view } = out.view;
    // Admitted and entered: straight on (in an iframe the page offers a link to the top window).
    if (accessToken && !r.embed) return c.redirect(destination, 303);
    const { queueStatusCode } = await s.crawlers.settings.get(r.queue);
    return waitingPage(c, s, await assets(), r, view, branding, destination, queueStatusCode);
  });

  app.route("/", resumePageRoutes(s, assets, notice));

  app.post("/wait/enter", async (c) => {
    const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
    const queue = typeof form.queue === "string" ? form.queue : "";
    if (!QueueName.safeParse(queue).success) {
      return notice(c, 400, "notice.badRequest", "notice.badQueueForm");
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
