/// <reference lib="dom" />
/**
 * The waiting-room island's steps: what its live region says, the URL that keeps a reload's
 * progress, the turn (focus, countdown, moving on), and the hold and notification controls.
 */
import type { RefObject } from "preact";
import { useEffect } from "preact/hooks";
import type { VisitorView } from "../lib/queue/types.ts";
import { countdown } from "../client/format.ts";
import { type Gone, notifyTurn } from "../client/timeslots.ts";
import { RESUME_WORDS } from "../lib/resume/words.ts";

/** Local outcomes the server view does not carry. */
export type Local = "expired" | Gone | null;

/** What the live region says for each local outcome. */
const LOCAL_WORDS: Record<Exclude<Local, null>, string> = {
  expired: "Your turn has passed: the place was held for you, but not entered in time.",
  full: "The waiting room is full right now. This page tries again by itself in a moment.",
  closed: "This waiting room is not available.",
  cookies: "This page cannot keep your place here, because the browser does not keep the " +
    "waiting room's cookie in this frame. Open the waiting room in its own window to wait.",
  moved: RESUME_WORDS.moved,
};

/** Sends the browser on: the whole window when embedded (a link remains if that is refused). */
export function navigate(url: string, embed: boolean): void {
  if (embed && globalThis.top && globalThis.top !== globalThis.self) {
    try {
      globalThis.top.location.href = new URL(url, location.href).href;
      return;
    } catch { /* cross-origin without a click: the "Continue" link stays */ }
    return;
  }
  location.assign(url);
}

/** Keeps the progress baseline (and the arrival number) in the URL, so a reload keeps them. */
export function useUrlMemory(
  start: number | null,
  arrival: number | null,
  setArrival: (v: number | null) => void,
): void {
  useEffect(() => {
    const url = new URL(location.href);
    if (arrival === null && url.searchParams.has("arrival")) {
      const kept = Number(url.searchParams.get("arrival"));
      if (Number.isSafeInteger(kept) && kept > 0) setArrival(kept);
    }
    const want = { start, arrival };
    let changed = false;
    for (const [k, v] of Object.entries(want)) {
      if (v === null || url.searchParams.get(k) === String(v)) continue;
      url.searchParams.set(k, String(v));
      changed = true;
    }
    if (changed) history.replaceState(history.state, "", url);
  }, [start, arrival]);
}

/**
 * At the turn: the title and a notification say so; a hold focuses its button and ticks the
 * countdown; an entered visitor moves on now, or when it looks at the tab again.
 */
export function useTurn(
  p: { title: string; destination: string; embed: boolean },
  admitted: boolean,
  holding: boolean,
  enterButton: RefObject<HTMLButtonElement | null>,
  offset: RefObject<number>,
  setNow: (v: number) => void,
): void {
  useEffect(() => {
    if (!admitted) return;
    document.title = `✅ It's your turn — ${p.title}`;
    if (document.hidden) notifyTurn(p.title);
    if (holding) {
      // The one thing to do now gets the focus (keyboard and screen-reader users land on it).
      enterButton.current?.focus();
      // Only the countdown ticks each second; nothing is fetched on this timer.
      const t = setInterval(() => setNow(Date.now() + offset.current), 1000);
      return () => clearInterval(t);
    }
    // Entered: go on now, or as soon as the visitor looks at the tab again.
    if (!document.hidden) return navigate(p.destination, p.embed);
    const onVisible = () => !document.hidden && navigate(p.destination, p.embed);
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, [admitted, holding]);
}

/** A hold left, in words for the live region ("2 minutes", "45 seconds"). */
function spoken(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s >= 120) return `${Math.round(s / 60)} minutes`;
  return s >= 60 ? `about a minute` : `${s} seconds`;
}

/**
 * The live region's words. A hold's are fixed when it starts (kept in `holdSaid`), so the
 * countdown does not make screen readers announce it again each second.
 */
export function liveWords(w: {
  local: Local;
  holding: boolean;
  admitted: boolean;
  pending: boolean;
  lottery: boolean;
  position: number;
  view: VisitorView;
  left: number;
  holdSaid: { current: string | null };
}): string {
  return w.local
    ? LOCAL_WORDS[w.local]
    : w.holding
    ? (w.holdSaid.current ??= `It's your turn! Your place is held for ${
      spoken(w.left)
    }: press Enter now.`)
    : w.admitted
    ? "It's your turn! Taking you in…"
    : w.pending
    ? "You are in the pre-queue. This page checks for you and moves on by itself."
    : w.lottery
    ? "You are in the lottery. This page checks for you and moves on by itself."
    : `You are number ${w.position}${
      w.view.waiting !== undefined ? ` of ${w.view.waiting}` : ""
    } in line. This page checks for you and moves on by itself.`;
}

/** A hold warns this long before it ends (WCAG 2.2.1 asks for at least 20 s). */
export const HOLD_WARN_MS = 30_000;

/**
 * The hold: the enter form (posts without JS too), the countdown and, near the end, "I need more
 * time" (`extend`: extensions left, or what the last try said). The alert region is on the page
 * from the hold's start, so its warning is announced when the words come.
 */
export function HoldForm(p: {
  queue: string;
  returnPath: string;
  base?: string;
  embed: boolean;
  left: number;
  enterButton: RefObject<HTMLButtonElement | null>;
  onSubmit: (e: Event) => void;
  extend?: { left: number; said: string; onExtend: () => void };
}) {
  const warn = p.extend !== undefined && p.left > 0 && p.left <= HOLD_WARN_MS;
  return (
    <>
      {p.extend && (
        <p class="hold-warning" role="alert">
          {warn ? (p.extend.left > 0 ? RESUME_WORDS.holdWarning : RESUME_WORDS.noMoreTime) : ""}
          {p.extend.said && ` ${p.extend.said}`}
        </p>
      )}
      {warn && p.extend!.left > 0 && (
        <p>
          <button type="button" class="button secondary" onClick={p.extend!.onExtend}>
            {RESUME_WORDS.moreTime}
          </button>
        </p>
      )}
      <form
        method="post"
        action={`${p.base ?? ""}/wait/enter`}
        target={p.embed ? "_top" : undefined}
        onSubmit={p.onSubmit}
      >
        <input type="hidden" name="queue" value={p.queue} />
        <input type="hidden" name="return" value={p.returnPath} />
        <button type="submit" class="button" ref={p.enterButton}>Enter now</button>
      </form>
      <p class="hint">
        Your place is held for <span class="countdown">{countdown(p.left)}</span>.
      </p>
    </>
  );
}

/** Whether the browser may notify at the turn: not offered, to ask, on, or refused. */
export type CanNotify = "no" | "ask" | "on" | "refused";

/** The notification offer while waiting, or what became of it. */
export function NotifyOffer(p: { canNotify: CanNotify; onAsk: () => void }) {
  if (p.canNotify === "ask") {
    return <button type="button" class="button secondary" onClick={p.onAsk}>Notify me</button>;
  }
  if (p.canNotify === "on") return <p class="hint">We'll notify you when it's your turn.</p>;
  if (p.canNotify === "refused") {
    return (
      <p class="hint" role="status">
        Notifications are blocked for this site, so we can't notify you. Keep this page open: it
        moves on by itself.
      </p>
    );
  }
  return null;
}
