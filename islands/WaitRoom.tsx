/// <reference lib="dom" />
import { useEffect, useRef, useState } from "preact/hooks";
import type { VisitorView } from "../lib/queue/types.ts";
import { percent, placeText, progressShare, waitUrl, waitWords } from "../client/format.ts";
import { followTimeslots } from "../client/timeslots.ts";
import {
  type CanNotify,
  HoldForm,
  liveWords,
  type Local,
  navigate,
  NotifyOffer,
  useTurn,
  useUrlMemory,
} from "./wait_room_parts.tsx";
import {
  LOTTERY_VISITOR_WORDS,
  lotteryWaitRange,
  PREQUEUE_VISITOR_WORDS,
} from "../lib/queue/wording.ts";
import { ResumeForm } from "../components/ResumeForm.tsx";
import { MailOffer, MoveOffer } from "./ResumeOffer.tsx";
import { RESUME_WORDS } from "../lib/resume/words.ts";
import { MAX_HOLD_EXTENSIONS } from "../lib/queue/types.ts";

/** Props of the waiting-room island: plain data, serialized into the page by the server. */
export interface WaitRoomProps {
  queue: string;
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
}

/** The live part of /wait: follows the server's timeslots and moves on at admission. */
export function WaitRoom(p: WaitRoomProps) {
  const [view, setView] = useState(p.view);
  const [start, setStart] = useState(p.start);
  const [local, setLocal] = useState<Local>(null);
  const [now, setNow] = useState(p.serverNow);
  // A pre-queue visitor's arrival number, kept after the draw (the server shows it only before),
  // so the visitor can find its place in the published draw.
  const [arrival, setArrival] = useState(p.view.arrivalNumber ?? null);
  const [canNotify, setCanNotify] = useState<CanNotify>("no");
  /** Hold extensions left (the server's word once one was asked for) and what the last said. */
  const [extensions, setExtensions] = useState({ left: MAX_HOLD_EXTENSIONS, said: "" });
  const enterButton = useRef<HTMLButtonElement>(null);
  /** What the live region says when a hold starts (fixed, so it is announced once). */
  const holdSaid = useRef<string | null>(null);
  const offset = useRef(p.serverNow - Date.now());

  useEffect(() => {
    if (typeof Notification !== "undefined") {
      setCanNotify(Notification.permission === "default" ? "ask" : "no");
    }
    return followTimeslots({
      queue: p.queue,
      base: p.base,
      view: p.view,
      offset,
      onView: (v, rejoined) => {
        if (rejoined) setStart(v.position ?? null);
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
      return setExtensions({ left: got.holdExtensionsLeft, said: RESUME_WORDS.moreTimeAdded });
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
  const said = liveWords({
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
        {said}
      </p>
      {local === "expired" && (
        <p>
          <a class="button" href={again}>Join the line again</a>
        </p>
      )}
      {local === "moved" && <ResumeForm queue={p.queue} base={p.base} />}
      {local === "cookies" && (
        <p>
          <a class="button" href={back} target="_blank" rel="noopener">
            Open the waiting room in its own window
          </a>
        </p>
      )}
      {holding && (
        <HoldForm
          {...p}
          left={left}
          enterButton={enterButton}
          onSubmit={enter}
          extend={{ left: extensions.left, said: extensions.said, onExtend: extend }}
        />
      )}
      {admitted && !holding && (
        <p>
          <a class="button" href={p.destination} target={top}>Continue</a>
        </p>
      )}
      {waiting && pending && (
        <PreQueue view={view} queue={p.queue} arrival={arrival} base={p.base ?? ""} />
      )}
      {waiting && !pending && (
        <Waiting view={view} lottery={lottery} position={position} start={start} />
      )}
      {waiting && !pending && arrival !== null && (
        <p class="hint">
          Your pre-queue arrival number was <strong>#{arrival}</strong>.{" "}
          <a
            href={`${p.base ?? ""}/draw/verify?queue=${
              encodeURIComponent(p.queue)
            }&arrival=${arrival}`}
            target={top}
          >
            Check the opening draw
          </a>
        </p>
      )}
      {waiting && <NotifyOffer canNotify={canNotify} onAsk={askNotify} />}
      {waiting && p.mail && <MailOffer queue={p.queue} base={p.base ?? ""} />}
      {(waiting || holding) && (
        <MoveOffer
          queue={p.queue}
          base={p.base ?? ""}
          qrSrc={p.qrSrc}
          onMoved={() => setLocal("moved")}
        />
      )}
    </div>
  );
}

/** A pre-queue visitor before the opening draw: how it works, its arrival number, the estimate. */
function PreQueue(p: { view: VisitorView; queue: string; arrival: number | null; base: string }) {
  const { view } = p;
  return (
    <>
      <p class="label">How you get in</p>
      <p class="lottery">{PREQUEUE_VISITOR_WORDS}</p>
      {p.arrival !== null && (
        <p class="arrival">
          Your arrival number: <strong>#{p.arrival}</strong>{" "}
          (keep it to find your place in the published draw)
        </p>
      )}
      {view.drawCommitment && (
        <p class="hint commitment">
          The draw's secret was fixed before anyone joined; its fingerprint is{" "}
          <code>{view.drawCommitment.slice(0, 16)}…</code>.{" "}
          <a
            href={`${p.base}/draw/verify?queue=${encodeURIComponent(p.queue)}${
              p.arrival !== null ? `&arrival=${p.arrival}` : ""
            }`}
          >
            How to check the draw
          </a>
        </p>
      )}
      <progress aria-label="Waiting for the opening draw" />
      <p class="eta">
        Expected wait after the opening, for a random place:{" "}
        <strong>{waitWords(view.estimatedWaitSeconds)}</strong>
      </p>
    </>
  );
}

/** The place in line (or the lottery), progress and estimate of a waiting visitor. */
function Waiting(
  p: { view: VisitorView; lottery: boolean; position: number; start: number | null },
) {
  const { view, position, start } = p;
  const share = start ? Math.round(progressShare(start, position) * 100) : 0;
  if (p.lottery) {
    // No single estimate: the wait is a fresh draw at every admission, so show its spread.
    const range = lotteryWaitRange(view.estimatedWaitSeconds ?? NaN);
    return (
      <>
        <p class="label">How you get in</p>
        <p class="lottery">{LOTTERY_VISITOR_WORDS}</p>
        {view.lotteryOdds !== undefined && (
          <p class="odds">
            {view.waiting} waiting · your chance at the next draw:{" "}
            <strong>{percent(view.lotteryOdds)}</strong>
          </p>
        )}
        <progress aria-label="Waiting for the draw" />
        {view.estimatedWaitSeconds !== undefined && (
          <p class="eta">
            At the current pace, half of those waiting now get in within{" "}
            <strong>{waitWords(range.half)}</strong>, nine in ten within{" "}
            <strong>{waitWords(range.most)}</strong>.
          </p>
        )}
      </>
    );
  }
  return (
    <>
      <p class="label">Your place in line</p>
      <p class="place">{placeText(position, view.waiting)}</p>
      <progress max={100} value={share} aria-label="Progress through the line">
        {share}%
      </progress>
      {view.estimatedWaitSeconds !== undefined && (
        <p class="eta">
          Estimated wait: <strong>{waitWords(view.estimatedWaitSeconds)}</strong>
        </p>
      )}
    </>
  );
}
