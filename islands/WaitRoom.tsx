/// <reference lib="dom" />
import { useEffect, useRef, useState } from "preact/hooks";
import type { VisitorView } from "../lib/queue/types.ts";
import { progressShare, waitUrl } from "../client/format.ts";
import { followTimeslots } from "../client/timeslots.ts";
import {
  type CanNotify,
  HoldForm,
  liveWords,
  type Local,
  navigate,
  NotifyOffer,
  useAnnounced,
  useScript,
  useTurn,
  useUrlMemory,
} from "./wait_room_parts.tsx";
import { lotteryWaitRange } from "../lib/queue/wording.ts";
import { num, percentOf, t, waitText } from "../lib/i18n/format.ts";
import type { Lang } from "../lib/i18n/langs.ts";
import type { Catalogue } from "../lib/i18n/messages/en.ts";
import { rich } from "./rich.tsx";
import { ResumeForm } from "../components/ResumeForm.tsx";
import { MailOffer, MoveOffer } from "./ResumeOffer.tsx";
import { MAX_HOLD_EXTENSIONS } from "../lib/queue/types.ts";

/** Props of the waiting-room island: plain data, serialized into the page by the server. */
export interface WaitRoomProps {
  queue: string;
  /** The queue has priority lanes: the page offers a field for a priority code. */
  codes?: boolean;
  /** The visitor view from the engine, without the access token. */
  view: VisitorView;
  /** Server time of the render (unix ms), to correct the browser's clock. */
  serverNow: number;
  /** Position at first sight, for the progress bar (queue mode). */
  start: number | null;
  /** Where an admitted visitor goes. */
  destination: string;
  /** The accepted `?return=` path ("" when none), posted back by the no-JS enter form. */
  returnPath: string;
  embed: boolean;
  title: string;
  /** Tollgate's path prefix (`BASE_PATH`), "" or absent without one. */
  base?: string;
  /** The operator set up e-mail: the page offers "e-mail me when it's my turn". */
  mail?: boolean;
  /** The built QR code drawer (`qr.js`), loaded when a code for another device is shown. */
  qrSrc?: string;
  /** The page's language and its messages (the one catalogue, with the queue's wording). */
  lang: Lang;
  m: Catalogue;
}

/** The live part of /wait: follows the server's timeslots and moves on at admission. */
export function WaitRoom(p: WaitRoomProps) {
  const [view, setView] = useState(p.view);
  const [start, setStart] = useState(p.start);
  const [local, setLocal] = useState<Local>(null);
  /** Counts rejoins (a code belongs to one place); and how to stop the check-in loop. */
  const [placeNo, setPlaceNo] = useState(0);
  const stopLoop = useRef<(() => void) | null>(null);
  const [now, setNow] = useState(p.serverNow);
  // A pre-queue visitor's arrival number, kept after the draw (the server shows it only before),
  // so the visitor can find its place in the published draw.
  const [arrival, setArrival] = useState(p.view.arrivalNumber ?? null);
  const [canNotify, setCanNotify] = useState<CanNotify>("no");
  /** Hold extensions left (the server's word once one was asked for) and what the last said. */
  const [extensions, setExtensions] = useState({ left: MAX_HOLD_EXTENSIONS, said: "" });
  const enterButton = useRef<HTMLButtonElement>(null);
  const script = useScript();
  /** What the live region says when a hold starts (fixed, so it is announced once). */
  const holdSaid = useRef<string | null>(null);
  const offset = useRef(p.serverNow - Date.now());

  useEffect(() => {
    if (typeof Notification !== "undefined") {
      setCanNotify(Notification.permission === "default" ? "ask" : "no");
    }
    return stopLoop.current = followTimeslots({
      queue: p.queue,
      base: p.base,
      view: p.view,
      offset,
      onView: (v, rejoined) => {
        if (rejoined) setStart(v.position ?? null);
        // A new place: a code shown for the old one is dead, so its panel starts afresh.
        if (rejoined) setPlaceNo((n) => n + 1);
        if (v.arrivalNumber !== undefined || rejoined) setArrival(v.arrivalNumber ?? null);
        // The same render as the new view: a hold countdown starts right, not from page load.
        setNow(Date.now() + offset.current);
        setLocal(null);
        setView(v);
      },
      onGone: (why) => setLocal(why),
    });
  }, []);

  useUrlMemory(start, arrival, setArrival);

  const admitted = view.status === "admitted" && !local;
  const holding = admitted && view.entered === false;
  useTurn(p, admitted, holding, enterButton, offset, setNow);
  // The title says where the visitor is: a place moved away or ended is no longer "in line".
  useEffect(() => {
    const key = local === "moved"
      ? "page.movedTitle"
      : local === "ended" || local === "expired"
      ? "page.endedTitle"
      : null;
    if (key) document.title = t(p.m, key, { title: p.title });
  }, [local]);

  const left = (view.enterBy ?? 0) - now;
  if (!holding) holdSaid.current = null;
  useEffect(() => {
    if (holding && view.enterBy && left <= 0) setLocal("expired");
  }, [holding, left]);

  async function enter(e: Event) {
    e.preventDefault();
    const res = await fetch(`${p.base ?? ""}/enter`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ queue: p.queue, visitorId: view.visitorId }),
    }).catch(() => null);
    if (res?.ok) return navigate(p.destination, p.embed);
    if (res?.status === 404) return setLocal("expired");
    (e.target as HTMLFormElement).submit();
  }

  /** "I need more time": the hold ends later (the server counts the extensions). */
  async function extend() {
    const res = await fetch(`${p.base ?? ""}/enter/extend`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ queue: p.queue, visitorId: view.visitorId }),
    }).catch(() => null);
    if (res?.ok) {
      const got = await res.json();
      setView({ ...view, enterBy: got.enterBy });
      setNow(Date.now() + offset.current);
      return setExtensions({ left: got.holdExtensionsLeft, said: p.m["resume.moreTimeAdded"] });
    }
    if (res?.status === 409) setExtensions({ left: 0, said: "" });
  }

  async function askNotify() {
    const got = await Notification.requestPermission();
    // Refused: say so (the button must not just vanish); dismissed: it can be asked again.
    setCanNotify(got === "granted" ? "on" : got === "denied" ? "refused" : "ask");
  }

  const top = p.embed ? "_top" : undefined;
  const back = waitUrl(p.queue, p.returnPath, false, null, p.base);
  const again = waitUrl(p.queue, p.returnPath, p.embed, null, p.base);
  const lottery = view.admissionMode === "lottery";
  const pending = view.drawPending === true;
  const position = view.position ?? 1;
  const waiting = !local && !admitted;
  const { m, lang } = p;
  const said = liveWords({
    m,
    lang,
    local,
    holding,
    admitted,
    pending,
    lottery,
    position,
    view,
    left,
    holdSaid,
  });
  // Changes of place are announced at most every 30 s; any other news (the turn) at once.
  // The exact place after a provisional one (0.8: a join is numbered at the next tick) is news.
  const line = view.positionExact === false ? "about" : "line";
  const kind = local ?? (admitted ? "turn" : pending ? "pre" : lottery ? "lottery" : line);
  const announced = useAnnounced(said, kind);

  // ONE live region, always first and always the same element: only its words change, so
  // screen readers announce "It's your turn" (a region that appears with its text is missed).
  return (
    <div class="panel">
      <p
        class={admitted ? "live turn" : waiting ? "live hint" : "live"}
        role="status"
        aria-live="polite"
        aria-atomic="true"
      >
        {announced}
      </p>
      {(local === "expired" || local === "ended") && (
        <p>
          <a class="button" href={again}>{m["wait.joinAgain"]}</a>
        </p>
      )}
      {local === "moved" && (
        <ResumeForm queue={p.queue} base={p.base} returnPath={p.returnPath} m={m} />
      )}
      {local === "cookies" && (
        <p>
          <a class="button" href={back} target="_blank" rel="noopener">
            {m["wait.ownWindow"]}
          </a>
        </p>
      )}
      {holding && (
        <HoldForm
          {...p}
          left={left}
          enterButton={enterButton}
          onSubmit={enter}
          // "I need more time" asks by script: without it, no warning pointing at a dead button.
          extend={script
            ? { left: extensions.left, said: extensions.said, onExtend: extend }
            : undefined}
        />
      )}
      {admitted && !holding && (
        <p>
          <a class="button" href={p.destination} target={top}>{m["wait.continue"]}</a>
        </p>
      )}
      {waiting && pending && (
        <PreQueue
          view={view}
          queue={p.queue}
          arrival={arrival}
          base={p.base ?? ""}
          m={m}
          lang={lang}
        />
      )}
      {waiting && !pending && (
        <Waiting
          view={view}
          lottery={lottery}
          position={position}
          start={start}
          m={m}
          lang={lang}
        />
      )}
      {waiting && !pending && arrival !== null && (
        <p class="hint">
          {rich(m, "wait.arrivalWas", { arrival: <strong>{num(lang, arrival)}</strong> })}{" "}
          <a
            href={`${p.base ?? ""}/draw/verify?queue=${
              encodeURIComponent(p.queue)
            }&arrival=${arrival}`}
            target={top}
          >
            {m["wait.checkDraw"]}
          </a>
        </p>
      )}
      {waiting && <NotifyOffer canNotify={canNotify} onAsk={askNotify} m={m} />}
      {/* The compact embed keeps to the line and its notification; the offers are the page's. */}
      {waiting && p.mail && !p.embed && (
        <MailOffer queue={p.queue} base={p.base ?? ""} returnPath={p.returnPath} m={m} />
      )}
      {waiting && p.codes && view.lane === undefined && !p.embed && (
        <CodeOffer queue={p.queue} base={p.base ?? ""} returnPath={p.returnPath} m={m} />
      )}
      {(waiting || holding) && !p.embed && (
        <MoveOffer
          key={placeNo}
          queue={p.queue}
          base={p.base ?? ""}
          qrSrc={p.qrSrc}
          returnPath={p.returnPath}
          onMoved={() => setLocal("moved")}
          // Ended (dropped, or left in another tab): said, and no new place taken behind the
          // visitor's back; "Join the line again" is theirs to press.
          onEnded={() => {
            stopLoop.current?.();
            setLocal("ended");
          }}
          m={m}
        />
      )}
    </div>
  );
}

/** A pre-queue visitor before the opening draw: how it works, its arrival number, the estimate. */
function PreQueue(
  p: {
    view: VisitorView;
    queue: string;
    arrival: number | null;
    base: string;
    m: Catalogue;
    lang: Lang;
  },
) {
  const { view, m, lang } = p;
  return (
    <>
      <p class="label">{m["wait.howYouGetIn"]}</p>
      <p class="lottery">{m["wait.prequeueWords"]}</p>
      {p.arrival !== null && (
        <p class="arrival">
          {rich(m, "wait.arrivalNumber", { arrival: <strong>{num(lang, p.arrival)}</strong> })}
        </p>
      )}
      {view.drawCommitment && (
        <p class="hint commitment">
          {rich(m, "wait.commitment", {
            fingerprint: <code dir="ltr">{view.drawCommitment.slice(0, 16)}…</code>,
          })}{" "}
          <a
            href={`${p.base}/draw/verify?queue=${encodeURIComponent(p.queue)}${
              p.arrival !== null ? `&arrival=${p.arrival}` : ""
            }`}
          >
            {m["wait.howToCheck"]}
          </a>
        </p>
      )}
      <progress aria-label={m["wait.openingProgress"]} />
      <p class="eta">
        {rich(m, "wait.prequeueEta", {
          wait: <strong>{waitText(m, lang, view.estimatedWaitSeconds)}</strong>,
        })}
      </p>
    </>
  );
}

/** The place in line (or the lottery), progress and estimate of a waiting visitor. */
function Waiting(
  p: {
    view: VisitorView;
    lottery: boolean;
    position: number;
    start: number | null;
    m: Catalogue;
    lang: Lang;
  },
) {
  const { view, position, start, m, lang } = p;
  const share = start ? Math.round(progressShare(start, position) * 100) : 0;
  if (p.lottery) {
    // No single estimate: the wait is a fresh draw at every admission, so show its spread.
    const range = lotteryWaitRange(view.estimatedWaitSeconds ?? NaN);
    return (
      <>
        <p class="label">{m["wait.howYouGetIn"]}</p>
        <p class="lottery">{m["wait.lotteryWords"]}</p>
        {view.lotteryOdds !== undefined && (
          <p class="odds">
            {rich(m, "wait.odds", {
              waiting: num(lang, view.waiting ?? 0),
              chance: <strong>{percentOf(m, lang, view.lotteryOdds)}</strong>,
            })}
          </p>
        )}
        <progress aria-label={m["wait.drawProgress"]} />
        {view.estimatedWaitSeconds !== undefined && (
          <p class="eta">
            {rich(m, "wait.lotteryEta", {
              half: <strong>{waitText(m, lang, range.half)}</strong>,
              most: <strong>{waitText(m, lang, range.most)}</strong>,
            })}
          </p>
        )}
      </>
    );
  }
  return (
    <>
      <p class="label">{m["wait.placeLabel"]}</p>
      {view.lane !== undefined && <p class="lane">{t(m, "wait.inLane", { lane: view.lane })}</p>}
      <p class="place">
        {/* A join not numbered by the tick yet (0.8): its place is an estimate, said as one. */}
        {view.positionExact === false
          ? t(m, "wait.placeAbout", { position: num(lang, position) })
          : view.waiting !== undefined
          ? t(m, "wait.placeOf", {
            position: num(lang, position),
            waiting: num(lang, view.waiting),
          })
          : t(m, "wait.place", { position: num(lang, position) })}
      </p>
      <progress max={100} value={share} aria-label={m["wait.lineProgress"]}>
        {percentOf(m, lang, share / 100)}
      </progress>
      {view.estimatedWaitSeconds !== undefined && (
        <p class="eta">
          {rich(m, "wait.eta", {
            wait: <strong>{waitText(m, lang, view.estimatedWaitSeconds)}</strong>,
          })}
        </p>
      )}
    </>
  );
}

/**
 * "Have a priority code?": a plain GET form back to this page with `?code=` (works without
 * JavaScript); the join puts the place into the code's lane, or a page says why it cannot.
 */
function CodeOffer(
  p: { queue: string; base: string; returnPath: string; m: Catalogue },
) {
  const { m } = p;
  return (
    <details class="mail">
      <summary>{m["wait.codeOffer"]}</summary>
      <form method="get" action={`${p.base}/wait`}>
        <input type="hidden" name="queue" value={p.queue} />
        {p.returnPath && <input type="hidden" name="return" value={p.returnPath} />}
        <label>
          {m["wait.codeLabel"]}
          <input name="code" required maxLength={64} autocomplete="off" spellcheck={false} />
        </label>
        <button type="submit" class="button">{m["wait.codeUse"]}</button>
      </form>
    </details>
  );
}
