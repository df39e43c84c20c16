/// <reference lib="dom" />
/**
 * The control room: a queue picker and seven tabs (ARIA tabs: arrow keys move between them, the
 * URL hash keeps the open one across reloads).
 */
import type { FunctionComponent } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, messageOf } from "./api.ts";
import type { ScreenProps, TabProps } from "./boot.ts";
import { LiveTab } from "./tabs/live.tsx";
import { AdmissionTab } from "./tabs/admission.tsx";
import { BrandingTab } from "./tabs/branding.tsx";
import { AccessTab } from "./tabs/access.tsx";
import { EdgeTab } from "./tabs/edge.tsx";
import { TeamTab } from "./tabs/team.tsx";
import { SystemTab } from "./tabs/system.tsx";
import { leaveUnsaved } from "./unsaved.ts";

const TABS: [string, string, FunctionComponent<TabProps>][] = [
  ["live", "Live", LiveTab],
  ["admission", "Admission", AdmissionTab],
  ["branding", "Branding", BrandingTab],
  ["access", "Access", AccessTab],
  ["edge", "Edge", EdgeTab],
  ["team", "Team", TeamTab],
  ["system", "System", SystemTab],
];

const fromHash = () => {
  const h = location.hash.slice(1);
  return TABS.some(([id]) => id === h) ? h : "live";
};

export function ControlRoom({ boot }: ScreenProps) {
  const [tab, setTab] = useState(fromHash);
  const [queues, setQueues] = useState<string[] | null>(null);
  // The queue picked last time, used only once the list confirms it still exists (a deleted
  // queue's tabs would poll its figures and traffic into 404s).
  const [queue, setQueue] = useState("");
  const [gone, setGone] = useState<string | null>(null);
  const [listErr, setListErr] = useState<string | null>(null);
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  useEffect(() => {
    const onHash = () => setTab(fromHash());
    addEventListener("hashchange", onHash);
    // `gone`: a call found the queue deleted elsewhere (the Live tab's own deletes say so there).
    const loadQueues = (gone = false) =>
      api<{ queues: { queue: string }[] }>("GET", "/api/admin/queues").then((r) => {
        const names = r.queues.map((q) => q.queue);
        setQueues(names);
        setQueue((q) => {
          const want = q || localStorage.getItem("tg-admin-queue") || "";
          const pick = names.includes(want)
            ? want
            : names.includes("default")
            ? "default"
            : names[0] ?? "";
          if (pick !== want) localStorage.removeItem("tg-admin-queue");
          // The queue on screen went away: say so, rather than switch queues without a word.
          if (gone && q && pick !== q) setGone(q);
          return pick;
        });
        setListErr(null);
      }).catch((e) => {
        // Without the list no tab can open: say why, and try again shortly (a restart, a blip).
        setListErr(messageOf(e));
        if (live) retry = setTimeout(() => loadQueues(gone), 3000);
      });
    let live = true;
    let retry: ReturnType<typeof setTimeout> | undefined;
    loadQueues();
    // Queues created or deleted in the Live tab's queues card.
    const changed = () => loadQueues();
    const goneElsewhere = () => loadQueues(true);
    addEventListener("tg-queues-changed", changed);
    addEventListener("tg-queue-gone", goneElsewhere);
    return () => {
      live = false;
      clearTimeout(retry);
      removeEventListener("hashchange", onHash);
      removeEventListener("tg-queues-changed", changed);
      removeEventListener("tg-queue-gone", goneElsewhere);
    };
  }, []);
  const open = async (id: string, focus = false) => {
    if (id !== tab && !(await leaveUnsaved())) return;
    setTab(id);
    history.replaceState(null, "", `#${id}`);
    if (focus) refs.current[TABS.findIndex(([t]) => t === id)]?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    const i = TABS.findIndex(([t]) => t === tab);
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (step) open(TABS[(i + step + TABS.length) % TABS.length][0], true);
    else if (e.key === "Home") open(TABS[0][0], true);
    else if (e.key === "End") open(TABS[TABS.length - 1][0], true);
    else return;
    e.preventDefault();
  };
  const Current = TABS.find(([t]) => t === tab)![2];
  return (
    <div class="control">
      <div class="queue-pick">
        <label for="queue-pick">Queue</label>
        <select
          id="queue-pick"
          value={queue}
          onChange={async (e) => {
            const select = e.target as HTMLSelectElement;
            const q = select.value;
            if (!(await leaveUnsaved())) {
              select.value = queue;
              return;
            }
            setQueue(q);
            setGone(null);
            localStorage.setItem("tg-admin-queue", q);
          }}
        >
          {(queues ?? []).map((q) => <option key={q} value={q}>{q}</option>)}
        </select>
      </div>
      {gone && (
        <p class="status error" role="alert">
          Queue {gone}{" "}
          no longer exists (deleted in another tab or by another admin), so nothing more can be
          saved to it. Showing {queue || "no queue"} instead.
        </p>
      )}
      <nav role="tablist" aria-label="Control room" class="tabs" onKeyDown={onKey}>
        {TABS.map(([id, label], i) => (
          <button
            key={id}
            ref={(el) => {
              refs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`panel-${id}`}
            tabIndex={tab === id ? 0 : -1}
            onClick={() => open(id)}
          >
            {label}
          </button>
        ))}
      </nav>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} tabIndex={0}>
        {queue
          ? <Current key={`${tab}-${queue}`} queue={queue} boot={boot} />
          : listErr
          ? (
            <p class="status error" role="alert">
              Could not load the queues: {listErr} Trying again every few seconds.
            </p>
          )
          : <p>Loading…</p>}
      </div>
    </div>
  );
}
