/// <reference lib="dom" />
/**
 * The island's check-in loop: one `GET /status` at each server-assigned `nextCheckAt` (a timer
 * to that absolute time, corrected for the browser's clock), never a fixed fast loop. A visitor
 * that is gone (404 `not_in_queue`, or a lost ticket) joins again with `POST /join`, but only
 * once in a row: when the ticket from that join is missing again at the next check, the browser
 * is not keeping our cookie (a cross-site iframe, blocked cookies) and every further join would
 * only add a new row at the back, so the loop stops and the page offers its own window. Errors
 * back off exponentially, and a 503 is retried after its `Retry-After`; when the browser comes
 * back online (a train tunnel, a phone's lost signal) a backing-off loop checks in at once, so a
 * place kept through the room's return grace is taken up without waiting out the backoff.
 */
import type { VisitorView } from "../lib/queue/types.ts";

/**
 * Why the loop cannot show a place: full room, no such queue, no cookie kept, or the place was
 * moved to another device (409 `place_moved`; the loop stops).
 */
export type Gone = "full" | "closed" | "cookies" | "moved";

/** What the loop uses from the browser; tests pass a fake clock, timers and fetch. */
export interface TimeslotDeps {
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  /** The browser's clock, unix ms (may be skewed; the loop corrects it). */
  now: () => number;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (id: unknown) => void;
  /** 0..1, spreads retries so many visitors do not come back at the same instant. */
  random: () => number;
  /** The page's visibility (the `document` in a browser). */
  visibility: {
    readonly hidden: boolean;
    addEventListener(type: "visibilitychange", fn: () => void): void;
    removeEventListener(type: "visibilitychange", fn: () => void): void;
  };
  /** Where the browser says it is back online (the `window`). */
  network: {
    addEventListener(type: "online", fn: () => void): void;
    removeEventListener(type: "online", fn: () => void): void;
  };
}

/** What the loop needs from the island. */
export interface TimeslotOptions {
  queue: string;
  /** Tollgate's path prefix ("" or absent without one). */
  base?: string;
  view: VisitorView;
  /** Server time minus browser time, in ms; refined by every answer. */
  offset: { current: number };
  onView: (view: VisitorView, rejoined: boolean) => void;
  onGone: (why: Gone) => void;
  /** Defaults to the browser's own. */
  deps?: Partial<TimeslotDeps>;
}

/** Lands just after the second the server gave, so the check-in counts as due. */
export const SLACK_MS = 100;
/** Never sooner than this after the last request, whatever the clocks say. */
export const MIN_DELAY_MS = 1000;
/** Error backoff: 2 s, 4 s, 8 s … up to a minute (before jitter). */
export const BACKOFF_BASE_MS = 2000;
export const BACKOFF_MAX_MS = 60_000;
/** The longest `Retry-After` honoured, so a bad header cannot park a visitor for hours. */
export const RETRY_AFTER_MAX_MS = 600_000;

/** The error envelope's code, or "" when the body is not one. */
async function errorCode(res: Response): Promise<string> {
  try {
    return (await res.json())?.error?.code ?? "";
  } catch {
    return "";
  }
}

/** `Retry-After` in ms (seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(res: Response, now: number): number | null {
  const h = res.headers.get("retry-after")?.trim();
  if (!h) return null;
  const ms = /^\d+$/.test(h) ? Number(h) * 1000 : Date.parse(h) - now;
  return Number.isFinite(ms) ? Math.min(RETRY_AFTER_MAX_MS, Math.max(0, ms)) : null;
}

/** The browser's clock, timers, fetch and visibility, with the caller's stand-ins over them. */
function depsOf(o: TimeslotOptions): TimeslotDeps {
  return {
    fetch: (input, init) => fetch(input, init),
    now: () => Date.now(),
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (id) => clearTimeout(id as number),
    random: Math.random,
    ...o.deps,
    // `document` only exists in a browser: touch it only when no stand-in was given.
    visibility: o.deps?.visibility ?? document,
    network: o.deps?.network ?? globalThis,
  };
}

/** Exponential backoff with jitter: half to all of the step after `failures` failures. */
function backoffMs(failures: number, random: number): number {
  const step = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** failures);
  return step * (0.5 + random / 2);
}

/**
 * Server time minus browser time from an answer: the server's own "now" in the view, else the
 * Date header; null when neither says.
 */
function clockOffset(res: Response, v: VisitorView | undefined, now: number): number | null {
  if (v?.nextCheckAt !== undefined && v.nextPollAfterMs !== undefined) {
    return v.nextCheckAt - v.nextPollAfterMs - now;
  }
  const date = Date.parse(res.headers.get("date") ?? "");
  // The header has whole seconds: its middle is the best guess.
  return Number.isFinite(date) ? date + 500 - now : null;
}

/**
 * The status call, and when the place is lost (404, 401) a join again: the answer, or why the
 * loop cannot go on (no such queue; the last join's ticket did not come back).
 */
async function statusOrJoin(
  call: (path: string, init?: RequestInit) => Promise<Response>,
  queue: string,
  afterRejoin: boolean,
): Promise<{ res: Response; rejoined: boolean } | "closed" | "cookies"> {
  const res = await call(`/status?queue=${encodeURIComponent(queue)}`);
  if (res.status !== 404 && res.status !== 401) return { res, rejoined: false };
  if (await errorCode(res) === "unknown_queue") return "closed";
  // The ticket the last join set did not come back: joining again cannot help.
  if (res.status === 401 && afterRejoin) return "cookies";
  const joined = await call("/join", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ queue }),
  });
  return { res: joined, rejoined: true };
}

/** Starts following the timeslots; returns the function that stops it. */
export function followTimeslots(o: TimeslotOptions): () => void {
  const d = depsOf(o);
  let timer: unknown;
  let dueAt = Infinity;
  let failures = 0;
  let stopped = false;
  /** The last answer was a successful join after a lost ticket. */
  let afterRejoin = false;
  const serverNow = () => d.now() + o.offset.current;

  const later = (ms: number) => {
    d.clearTimeout(timer);
    if (!stopped) timer = d.setTimeout(check, Math.max(MIN_DELAY_MS, ms));
  };
  const plan = (v: VisitorView) => {
    if (v.status !== "waiting") return (dueAt = Infinity);
    dueAt = v.nextCheckAt ?? serverNow() + (v.nextPollAfterMs ?? 5000);
    later(dueAt - serverNow() + SLACK_MS);
  };
  /** Exponential backoff with jitter (half to all of the step), or the server's Retry-After. */
  const retry = (serverAsked: number | null = null) => {
    // Every failure counts toward the backoff, also one the server gave a Retry-After for.
    const n = failures++;
    later(serverAsked ?? backoffMs(n, d.random()));
  };
  const stop = () => {
    stopped = true;
    d.clearTimeout(timer);
    d.visibility.removeEventListener("visibilitychange", onVisible);
    d.network.removeEventListener("online", onOnline);
  };

  const learnClock = (res: Response, v?: VisitorView) => {
    const offset = clockOffset(res, v, d.now());
    if (offset !== null) o.offset.current = offset;
  };

  async function call(path: string, init?: RequestInit): Promise<Response> {
    return await d.fetch((o.base ?? "") + path, { cache: "no-store", ...init });
  }

  async function check() {
    d.clearTimeout(timer);
    dueAt = Infinity;
    if (stopped) return;
    try {
      const got = await statusOrJoin(call, o.queue, afterRejoin);
      if (typeof got === "string") {
        if (got === "cookies") stop();
        return o.onGone(got);
      }
      const { res, rejoined } = got;
      afterRejoin = rejoined && res.ok;
      if (res.status === 503) {
        learnClock(res);
        if (await errorCode(res) === "queue_full") o.onGone("full");
        return retry(retryAfterMs(res, serverNow()));
      }
      if (res.status === 404) return o.onGone("closed");
      if (res.status === 409 && await errorCode(res) === "place_moved") {
        stop();
        return o.onGone("moved");
      }
      if (!res.ok) {
        await res.body?.cancel();
        return retry(res.status === 429 ? retryAfterMs(res, serverNow()) : null);
      }
      const v: VisitorView = await res.json();
      failures = 0;
      learnClock(res, v);
      if (stopped) return;
      o.onView(v, rejoined);
      plan(v);
    } catch {
      retry();
    }
  }

  // A background tab's timers may fire late: check as soon as it is looked at again.
  function onVisible() {
    if (!d.visibility.hidden && serverNow() >= dueAt) void check();
  }
  // Back online after failed check-ins: check now, not when the backoff ends (up to a minute).
  function onOnline() {
    if (failures > 0 || serverNow() >= dueAt) void check();
  }
  d.visibility.addEventListener("visibilitychange", onVisible);
  d.network.addEventListener("online", onOnline);
  plan(o.view);
  return stop;
}

/** Shows a browser notification that it is the visitor's turn, when allowed. */
export function notifyTurn(heading: string, title: string): void {
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  try {
    const n = new Notification(heading, { body: title, tag: "tollgate-turn" });
    n.onclick = () => {
      globalThis.focus();
      n.close();
    };
  } catch { /* some browsers only allow notifications from a service worker */ }
}
