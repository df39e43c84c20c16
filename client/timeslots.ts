/// <reference lib="dom" />
/**
 * The island's check-in loop: one `GET /status` at each server-assigned `nextCheckAt` (a timer
 * to that absolute time, corrected for the browser's clock), never a fixed fast loop. A visitor
 * that is gone (404 `not_in_queue`, or a lost ticket) joins again with `POST /join`.
 */
import type { VisitorView } from "../lib/queue/types.ts";

/** What the loop needs from the island. */
export interface TimeslotOptions {
  queue: string;
  view: VisitorView;
  /** Server time minus browser time, in ms; refined by every answer. */
  offset: { current: number };
  onView: (view: VisitorView, rejoined: boolean) => void;
  onGone: (why: "full" | "closed") => void;
}

/** Lands just after the second the server gave, so the check-in counts as due. */
const SLACK_MS = 100;
/** Never sooner than this after the last request, whatever the clocks say. */
const MIN_DELAY_MS = 1000;

async function errorCode(res: Response): Promise<string> {
  try {
    return (await res.json())?.error?.code ?? "";
  } catch {
    return "";
  }
}

/** Starts following the timeslots; returns the function that stops it. */
export function followTimeslots(o: TimeslotOptions): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dueAt = Infinity;
  let failures = 0;
  let stopped = false;
  const serverNow = () => Date.now() + o.offset.current;

  const later = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(check, Math.max(MIN_DELAY_MS, ms));
  };
  const plan = (v: VisitorView) => {
    if (v.status !== "waiting") return (dueAt = Infinity);
    dueAt = v.nextCheckAt ?? serverNow() + (v.nextPollAfterMs ?? 5000);
    later(dueAt - serverNow() + SLACK_MS);
  };
  const retry = () => later(Math.min(60_000, 5000 * 2 ** failures++));

  async function call(path: string, init?: RequestInit): Promise<Response> {
    return await fetch(path, { cache: "no-store", ...init });
  }

  async function check() {
    clearTimeout(timer);
    dueAt = Infinity;
    try {
      let res = await call(`/status?queue=${encodeURIComponent(o.queue)}`);
      let rejoined = false;
      if (res.status === 404 || res.status === 401) {
        if (await errorCode(res) === "unknown_queue") return o.onGone("closed");
        res = await call("/join", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ queue: o.queue }),
        });
        rejoined = true;
      }
      if (res.status === 503) {
        o.onGone("full");
        return later(30_000);
      }
      if (res.status === 404) return o.onGone("closed");
      if (!res.ok) return retry();
      const v: VisitorView = await res.json();
      failures = 0;
      if (v.nextCheckAt !== undefined && v.nextPollAfterMs !== undefined) {
        // The server's "now" for this answer: its slot minus the delay it gave.
        o.offset.current = v.nextCheckAt - v.nextPollAfterMs - Date.now();
      }
      if (stopped) return;
      o.onView(v, rejoined);
      plan(v);
    } catch {
      retry();
    }
  }

  // A background tab's timers may fire late: check as soon as it is looked at again.
  const onVisible = () => {
    if (!document.hidden && serverNow() >= dueAt) void check();
  };
  document.addEventListener("visibilitychange", onVisible);
  plan(o.view);
  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", onVisible);
  };
}

/** Shows a browser notification that it is the visitor's turn, when allowed. */
export function notifyTurn(title: string): void {
  if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
  try {
    const n = new Notification("It's your turn", { body: title, tag: "tollgate-turn" });
    n.onclick = () => {
      globalThis.focus();
      n.close();
    };
  } catch { /* some browsers only allow notifications from a service worker */ }
}
