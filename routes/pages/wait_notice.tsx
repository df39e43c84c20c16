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
import { DEFAULT_BRANDING } from "../../lib/queue/types.ts";
import { QUEUE_NAME_RE } from "../../lib/names.ts";
import { CLOSED_DEFAULT_TEXT, RoomClosedError } from "../../lib/room/closed.ts";
import { pageBranding, themeCss } from "../../lib/theme.ts";
import type { Assets } from "./assets.ts";
import { htmlPage } from "./html.tsx";
import { ENQUEUE_CODES, enqueueWords } from "./wait_check.tsx";

/** Seconds before a page that hit a server error tries again by itself. */
const ERROR_RETRY = 10;

/** A notice page: a heading and a line, optionally retrying by itself after `retrySeconds`. */
export type NoticeFn = (
  c: Context,
  status: number,
  heading: string,
  text: string,
  retrySeconds?: number,
  showMessage?: boolean,
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

  const notice: NoticeFn = async (c, status, heading, text, retrySeconds, showMessage = false) => {
    const a = await assets();
    // The queue's own look ("Room full", "Not open yet" keep it); the page that says the store
    // is down must not need the store: default branding then.
    const q = c.req.query("queue") ?? "";
    const b = pageBranding(
      await s.engine.ctx.branding(QUEUE_NAME_RE.test(q) ? q : "").catch(() => DEFAULT_BRANDING),
    );
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

  const failure = async (c: Context, e: unknown) => {
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

  return { notice, failure };
}

/** The page for a refused `/wait` join (other than a check): each refusal in its own words. */
export function refusalPage(c: Context, n: Notices, e: unknown): Promise<Response> {
  const { notice } = n;
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
  if (e instanceof RoomClosedError) {
    // The operator's own text on the room's branding; the page checks again by itself.
    const text = String(e.details.message || "") || CLOSED_DEFAULT_TEXT;
    return notice(c, 503, "Closed right now", text, e.retryAfterSeconds);
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
  return n.failure(c, e);
}
