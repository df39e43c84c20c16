/**
 * The waiting room's plain notice pages: a refusal, an outage that retries by itself, and the
 * words for each join refusal a `/wait` load can meet. Never the JSON envelope: a visitor's
 * browser shows these, also without JS.
 */
import type { Context } from "hono";
import type { Services } from "../services.ts";
import { Document } from "../../components/Document.tsx";
import { Notice } from "../../components/Notice.tsx";
import { AppError, RateLimitedError, StoreBusyError } from "../../lib/errors.ts";
import { safeReturnPath } from "../../lib/destination.ts";
import { type Branding, DEFAULT_BRANDING } from "../../lib/branding.ts";
import { QUEUE_NAME_RE } from "../../lib/names.ts";
import { log, requestIdOf } from "../../lib/log.ts";
import { RoomClosedError } from "../../lib/room/closed.ts";
import { pageBranding, themeCss } from "../../lib/theme.ts";
import type { Assets } from "./assets.ts";
import { htmlPage } from "./html.tsx";
import { ENQUEUE_CODES, enqueueWords } from "./wait_check.tsx";
import { localTexts, pageLang, selfUrl } from "./lang.ts";
import { t, unitOf } from "../../lib/i18n/format.ts";
import type { MessageKey } from "../../lib/i18n/messages/en.ts";

/** Seconds before a page that hit a server error tries again by itself. */
const ERROR_RETRY = 10;

/**
 * How long a notice page waits for the branding read before it takes the look last read (or the
 * default): a read waits behind the commits stuck on a locked KV file, and the page that says the
 * store is busy must answer within the visitor's 3 s (it took 7 s in tests/store_busy_test.ts).
 */
const BRANDING_WAIT_MS = 200;

/** The branding of notice pages: read, unless the store does not answer at once. */
async function noticeBranding(s: Services, q: string): Promise<Branding> {
  const ctx = s.engine.ctx;
  let timer: number | undefined;
  const late = new Promise<undefined>((r) => timer = setTimeout(r, BRANDING_WAIT_MS));
  try {
    const read = ctx.branding(q).catch(() => undefined);
    return (await Promise.race([read, late])) ?? ctx.lastBranding(q) ?? DEFAULT_BRANDING;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A notice page: a heading and a line (message keys, in the visitor's language), optionally
 * retrying by itself after `retrySeconds` (which the text may name as `{seconds}`).
 */
export type NoticeFn = (
  c: Context,
  status: number,
  heading: MessageKey,
  /** A catalogue text, or the operator's own words (a closed room's). */
  text: MessageKey | { own: string },
  retrySeconds?: number,
  showMessage?: boolean,
  /** A way on: a link styled as the page's button (e.g. "Join the line again"). */
  action?: { href: string; label: MessageKey },
) => Promise<Response>;

/** The two notice pages the waiting room's routes share. */
export interface Notices {
  notice: NoticeFn;
  /** Any other failure: a refusal says so; a server error or overload retries by itself. */
  failure: (c: Context, e: unknown) => Promise<Response>;
}

/** Builds the notice pages for these services and assets (one set per route factory). */
export function waitNotices(s: Services, assets: () => Promise<Assets>): Notices {
  const base = s.config.BASE_PATH ?? "";

  const notice: NoticeFn = async (
    c,
    status,
    headingKey,
    textKey,
    retrySeconds,
    showMessage,
    action,
  ) => {
    const a = await assets();
    // The queue's own look ("Room full", "Not open yet" keep it); the page that says the store
    // is down must not need the store: default branding then.
    const q = c.req.query("queue") ?? "";
    const branding = await noticeBranding(s, QUEUE_NAME_RE.test(q) ? q : "");
    const { lang, m } = pageLang(c, branding.messages);
    const b = localTexts(pageBranding(branding), m, lang);
    const heading = m[headingKey];
    const text = typeof textKey === "string"
      ? t(m, textKey, { seconds: unitOf(lang, retrySeconds ?? 0, "second") })
      : textKey.own;
    // A relative URL: behind a proxy the request URL may name an internal host.
    const url = new URL(c.req.url);
    // With the page script, it reloads (a meta refresh only for no-JS visitors).
    const retry = retrySeconds
      ? {
        seconds: retrySeconds,
        url: base + url.pathname + url.search,
        always: !a["wait.js"],
        byScript: Boolean(a["wait.js"]),
      }
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
        scriptSrc={retry ? a["wait.js"] : undefined}
        embed={c.req.query("embed") === "1"}
        base={base}
        lang={lang}
        m={m}
        url={selfUrl(c, base)}
      >
        <Notice heading={heading}>
          <p>{text}</p>
          {showMessage && b.message && <p class="message">{b.message}</p>}
          {action && (
            <p>
              <a class="button" href={action.href}>{m[action.label]}</a>
            </p>
          )}
        </Notice>
      </Document>,
      status,
      { inlineStyle: css, embed: c.req.query("embed") === "1" },
    );
  };

  const failure = async (c: Context, e: unknown) => {
    // A Host that is no host: no page can be drawn for it (errorResponse answers 400, unlogged).
    if (!URL.canParse(c.req.url)) throw e;
    // STORE_FAILURE=open: a visitor the proxy sent here just before the store went down goes
    // back to the page it asked for, which the proxy now lets through (for the open bound).
    const back = safeReturnPath(c.req.query("return"));
    if (
      back && s.storeFailure.policy === "open" &&
      (!(e instanceof AppError) || e instanceof StoreBusyError) &&
      await s.storeFailure.verdict("wait") === "open"
    ) {
      c.header("Cache-Control", "no-store");
      return c.redirect(back, 303);
    }
    if (e instanceof AppError && e.status < 500 && e.status !== 429) {
      // The error's own message is English for operators; the visitor gets its own words.
      return e.status === 403
        ? notice(c, e.status, "notice.denied", "notice.deniedText")
        : notice(c, e.status, "notice.badLink", "notice.badLinkText");
    }
    if (!(e instanceof AppError)) {
      // As the JSON answers' errors are logged (http/response.ts): with ts and the request id.
      log("error", "unhandled", {
        requestId: requestIdOf(c.req.raw),
        path: c.req.path,
        error: String(e),
      });
    }
    const wait = e instanceof RateLimitedError ? Math.max(1, e.retryAfterSeconds) : ERROR_RETRY;
    return notice(
      c,
      e instanceof AppError ? e.status : 503,
      "notice.moment",
      "notice.momentText",
      wait,
    );
  };

  return { notice, failure };
}

/** The page for a refused `/wait` join (other than a check): each refusal in its own words. */
export function refusalPage(c: Context, n: Notices, e: unknown): Promise<Response> {
  const { notice } = n;
  if (e instanceof AppError && ENQUEUE_CODES.has(e.code)) {
    const [heading, text] = enqueueWords(e.code);
    return notice(c, e.status, heading, text);
  }
  if (e instanceof AppError && e.code === "priority_code_invalid") {
    return notice(c, 403, "notice.code", "notice.codeText");
  }
  if (e instanceof AppError && e.code === "geo_blocked") {
    return notice(c, 403, "notice.geo", "notice.geoText");
  }
  if (e instanceof AppError && e.code === "unknown_queue") {
    return notice(c, 404, "notice.notFound", "notice.notFoundText");
  }
  if (e instanceof AppError && e.code === "not_open") {
    // Never says when: a fixed retry, and only the operator's own message may announce it.
    return notice(c, 503, "notice.notOpen", "notice.notOpenText", 60, true);
  }
  if (e instanceof RateLimitedError) {
    const wait = Math.max(1, Math.ceil(e.retryAfterSeconds));
    return notice(c, 429, "notice.rate", "notice.rateText", wait);
  }
  if (e instanceof RoomClosedError) {
    // The operator's own text on the room's branding; the page checks again by itself.
    const own = String(e.details.message || "");
    return notice(
      c,
      503,
      "notice.closed",
      own ? { own } : "notice.closedText",
      e.retryAfterSeconds,
    );
  }
  if (e instanceof AppError && e.code === "queue_full") {
    return notice(c, 503, "notice.full", "notice.fullText", 30);
  }
  return n.failure(c, e);
}
