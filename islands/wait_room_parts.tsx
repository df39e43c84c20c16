/// <reference lib="dom" />
/**
 * The waiting-room island's steps: what its live region says, the URL that keeps a reload's
 * progress, the turn (focus, countdown, moving on), and the hold and notification controls.
 */
import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { VisitorView } from "../lib/queue/types.ts";
import { announceDelay, countdown } from "../client/format.ts";
import { type Gone, notifyTurn } from "../client/timeslots.ts";
import { num, spokenLeft, t } from "../lib/i18n/format.ts";
import type { Catalogue, MessageKey } from "../lib/i18n/messages/en.ts";
import { rich } from "./rich.tsx";

/** Local outcomes the server view does not carry ("ended": /resume/held said the place ended). */
export type Local = "expired" | "ended" | Gone | null;

/** What the live region says for each local outcome. */
const LOCAL_WORDS: Record<Exclude<Local, null | "moved">, MessageKey> = {
  expired: "live.expired",
  ended: "live.ended",
  full: "live.full",
  closed: "live.closed",
  cookies: "live.cookies",
};

/**
 * What the live region says now: a new kind of news (the turn, a refusal) at once; a changed
 * place in line at most once every 30 s, the latest one, so a moving line is not read out at
 * every check-in.
 */
export function useAnnounced(said: string, kind: string): string {
  const [shown, setShown] = useState(said);
  const last = useRef({ kind, at: Date.now() });
  useEffect(() => {
    if (said === shown) return;
    const wait = announceDelay(last.current, kind, Date.now());
    const show = () => {
      last.current = { kind, at: Date.now() };
      setShown(said);
    };
    if (wait <= 0) return show();
    const timer = setTimeout(show, wait);
    return () => clearTimeout(timer);
  }, [said, kind]);
  return shown;
}

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
  p: { title: string; destination: string; embed: boolean; m: Catalogue },
  admitted: boolean,
  holding: boolean,
  enterButton: RefObject<HTMLButtonElement | null>,
  offset: RefObject<number>,
  setNow: (v: number) => void,
): void {
  useEffect(() => {
    if (!admitted) return;
    document.title = t(p.m, "page.turnTitle", { title: p.title });
    if (document.hidden) notifyTurn(p.m["notify.title"], p.title);
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

/**
 * The live region's words. A hold's are fixed when it starts (kept in `holdSaid`), so the
 * countdown does not make screen readers announce it again each second.
 */
export function liveWords(w: {
  m: Catalogue;
  lang: string;
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
  const { m, lang } = w;
  return w.local === "moved"
    ? m["resume.moved"]
    : w.local
    ? m[LOCAL_WORDS[w.local]]
    : w.holding
    ? (w.holdSaid.current ??= t(m, "live.hold", { time: spokenLeft(m, lang, w.left) }))
    : w.admitted
    ? m["live.admitted"]
    : w.pending
    ? m["live.prequeue"]
    : w.lottery
    ? m["live.lottery"]
    : w.view.positionExact === false
    ? t(m, "live.positionAbout", { position: num(lang, w.position) })
    : w.view.waiting !== undefined
    ? t(m, "live.positionOf", {
      position: num(lang, w.position),
      waiting: num(lang, w.view.waiting),
    })
    : t(m, "live.position", { position: num(lang, w.position) });
}

/**
 * False when rendered on the server (the page a visitor without JavaScript keeps), true once the
 * script runs: controls that only the script can serve appear then, never as dead buttons.
 */
export function useScript(): boolean {
  const [on, setOn] = useState(false);
  useEffect(() => setOn(true), []);
  return on;
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
  m: Catalogue;
}) {
  const { m } = p;
  const warn = p.extend !== undefined && p.left > 0 && p.left <= HOLD_WARN_MS;
  const warning = p.extend && p.extend.left > 0
    ? t(m, "resume.holdWarning", { button: m["resume.moreTime"] })
    : m["resume.noMoreTime"];
  return (
    <>
      {p.extend && (
        <p class="hold-warning" role="alert">
          {warn ? warning : ""}
          {p.extend.said && ` ${p.extend.said}`}
        </p>
      )}
      {warn && p.extend!.left > 0 && (
        <p>
          <button type="button" class="button secondary" onClick={p.extend!.onExtend}>
            {m["resume.moreTime"]}
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
        <button type="submit" class="button" ref={p.enterButton}>{p.m["wait.enterNow"]}</button>
      </form>
      <p class="hint">
        {rich(p.m, "wait.heldFor", {
          countdown: <span class="countdown" dir="ltr">{countdown(p.left)}</span>,
        })}
      </p>
    </>
  );
}

/** Whether the browser may notify at the turn: not offered, to ask, on, or refused. */
export type CanNotify = "no" | "ask" | "on" | "refused";

/** The notification offer while waiting, or what became of it. */
export function NotifyOffer(p: { canNotify: CanNotify; onAsk: () => void; m: Catalogue }) {
  if (p.canNotify === "ask") {
    return (
      <button type="button" class="button secondary" onClick={p.onAsk}>
        {p.m["wait.notifyMe"]}
      </button>
    );
  }
  if (p.canNotify === "on") return <p class="hint">{p.m["wait.notifyOn"]}</p>;
  if (p.canNotify === "refused") {
    return <p class="hint" role="status">{p.m["wait.notifyBlocked"]}</p>;
  }
  return null;
}
