/// <reference lib="dom" />
/**
 * The Admission tab: how the picked queue lets people in. Mode (queue / lottery), silent pause,
 * rate override, opening time (admission_schedule.tsx),
 * concurrent capacity, the waiting-row cap (stale-checked), priority lanes and their codes,
 * force-admit, and a pass to visit the site as an admitted visitor. Every write answers with the queue's settings, shown at once; the
 * settings are refreshed every few seconds while the page is visible, so a change made elsewhere
 * (another operator, the API) shows without reopening the tab. A field the operator has edited
 * keeps its value until it is saved.
 */
import { useRef, useState } from "preact/hooks";
import { api, messageOf } from "../api.ts";
import type { QueueMetrics } from "../../../lib/queue/engine.ts";
import type { TabProps } from "../boot.ts";
import { ActionForm, Radios } from "../forms.tsx";
import {
  confirmAction,
  localTime,
  num,
  POLL_MS,
  Section,
  Status,
  useAction,
  useFollowing,
  usePolling,
} from "../ui.tsx";
import { checkedSave } from "../stale.ts";
import { settingsNow } from "./admission_now.ts";
import { CapacityCard, LimitCard, NumberForm } from "./admission_capacity.tsx";
import { OpeningCard } from "./admission_opening.tsx";
import { ScheduleCard } from "./admission_schedule.tsx";
import { LOTTERY_MODE_WORDS, QUEUE_MODE_WORDS } from "../../../lib/queue/wording.ts";
import { JoinLimitCard } from "./admission_abuse.tsx";
import { ReturnGraceCard } from "./admission_grace.tsx";
import { SessionsCard } from "./admission_sessions.tsx";
import { PassCard } from "./admission_pass.tsx";
import { GuardCards } from "./admission_guards.tsx";
import { RoomCard } from "./admission_room.tsx";
import { CrawlerCard } from "./admission_crawlers.tsx";
import { PriorityLanesCard } from "./admission_lanes.tsx";

/** AdminQueueSettings in openapi.yaml. */
export interface QueueSettings {
  queue: string;
  mode: "queue" | "lottery";
  paused: boolean;
  opensAt: number | null;
  admitPerSecond: number | null;
  defaultAdmitPerSecond: number;
  capacity: number;
  maxWaitingVisitors: number;
  /** Pre-queue window in minutes before opensAt; null when off. */
  prequeueMinutes: number | null;
}

/** Shows the queue's settings as a write answered them, whole or as a change of the newest. */
export type SetSettings = (next: QueueSettings | ((now: QueueSettings) => QueueSettings)) => void;

export function AdmissionTab({ queue }: TabProps) {
  const [s, setS] = useState<QueueSettings | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [stale, setStale] = useState<string | null>(null);
  // Each write's answer and each refresh (when it starts) takes the next number; the state shown
  // is the newest so far, so a refresh that started before a later answer was shown is dropped.
  const seq = useRef(0);
  const shown = useRef(0);
  const set: SetSettings = (next) => {
    shown.current = ++seq.current;
    setS((now) => typeof next === "function" ? now && next(now) : next);
  };
  usePolling(
    () => {
      const n = ++seq.current;
      api<{ queues: QueueSettings[] }>("GET", "/api/admin/queues").then((r) => {
        if (n < shown.current) return;
        shown.current = n;
        setStale(null);
        const mine = r.queues.find((x) => x.queue === queue);
        setErr(mine ? null : `Queue ${queue} is not known to the service.`);
        if (mine) setS(mine);
      }).catch((e) => {
        if (n > shown.current) setStale(messageOf(e));
      });
    },
    POLL_MS,
    [queue],
  );
  if (err) return <p class="status error" role="alert">{err}</p>;
  if (!s) {
    return stale ? <p class="status error" role="alert">{stale}</p> : <p>Loading…</p>;
  }
  const p = { s, set, queue };
  return (
    <div class="admission">
      {stale && (
        <p class="status error" role="status">
          Could not refresh these settings ({stale}); they may be out of date.
        </p>
      )}
      <RoomCard queue={queue} />
      <ModeCard {...p} />
      <PauseCard {...p} />
      <RateCard {...p} />
      <ScheduleCard {...p} />
      <OpeningCard {...p} />
      <CapacityCard {...p} />
      <LimitCard {...p} />
      <PriorityLanesCard queue={queue} />
      <SessionsCard queue={queue} />
      <JoinLimitCard queue={queue} />
      <ReturnGraceCard queue={queue} />
      <GuardCards queue={queue} />
      <CrawlerCard queue={queue} />
      <AdmitCard queue={queue} />
      <PassCard queue={queue} />
    </div>
  );
}

/** The rate a form shows: the override, else the default. */
const rateText = (s: QueueSettings) => String(s.admitPerSecond ?? s.defaultAdmitPerSecond);

/** What every settings card gets: the settings, their setter and the queue. */
export interface CardProps {
  s: QueueSettings;
  set: SetSettings;
  queue: string;
}

function ModeCard({ s, set, queue }: CardProps) {
  const [mode, setMode, followMode, base] = useFollowing(s.mode);
  const a = useAction();
  return (
    <Section title="Admission mode" id="adm-mode">
      <ActionForm
        act={a}
        submit="Save mode"
        disabled={mode === s.mode}
        onSubmit={() =>
          a.run(async () => {
            const v = await checkedSave(
              { mode: ["Admission mode", base, mode] },
              async () => ({ mode: (await settingsNow(queue)).mode }),
              { mode: (v) => v === "lottery" ? "lottery" : "queue (first come)" },
            );
            set(await api<QueueSettings>("POST", "/api/admin/mode", { queue, mode: v.mode }));
            followMode(mode);
            return `Mode is now ${mode === "lottery" ? "lottery" : "queue (first come)"}.`;
          })}
      >
        <Radios
          legend="Who is let in next"
          class="adm-choices"
          name="adm-mode"
          options={[
            ["queue", QUEUE_MODE_WORDS],
            ["lottery", LOTTERY_MODE_WORDS],
          ]}
          value={mode}
          onChange={setMode}
        />
      </ActionForm>
    </Section>
  );
}

function PauseCard({ s, set, queue }: CardProps) {
  const a = useAction();
  const toggle = async () => {
    const paused = !s.paused;
    if (
      paused &&
      !(await confirmAction(
        `Pause admissions to ${queue}? Nobody is let in until you resume; waiting visitors are not told.`,
        "Pause admissions",
      ))
    ) return;
    a.run(async () => {
      set(await api<QueueSettings>("POST", "/api/admin/pause", { queue, paused }));
      return paused ? "Paused." : "Resumed.";
    });
  };
  return (
    <Section title="Pause" id="adm-pause">
      <p>
        Admissions are <strong>{s.paused ? "paused" : "running"}</strong>.{" "}
        <span class="muted">
          A silent pause: waiting visitors are not told; their page looks as usual and keeps
          checking in, and nobody is let in until you resume.
        </span>
      </p>
      <div class="actions">
        <button
          type="button"
          class={s.paused ? "primary" : "danger"}
          disabled={a.busy}
          onClick={toggle}
        >
          {s.paused ? "Resume admissions" : "Pause admissions"}
        </button>
      </div>
      <Status s={a.status} />
    </Section>
  );
}

function RateCard({ s, set, queue }: CardProps) {
  const [rate, setRate, followRate, base] = useFollowing(rateText(s));
  const a = useAction();
  const clear = async () => {
    if (
      !(await confirmAction(
        `Clear the rate override? ${queue} goes back to the default of ${
          num(s.defaultAdmitPerSecond)
        } per second (ADMIT_PER_SECOND).`,
        "Clear override",
      ))
    ) return;
    a.run(async () => {
      const out = await api<QueueSettings>(
        "DELETE",
        `/api/admin/rate?queue=${encodeURIComponent(queue)}`,
      );
      set(out);
      followRate();
      return `Override cleared: back to ${num(out.defaultAdmitPerSecond)} per second.`;
    });
  };
  return (
    <Section title="Admission rate" id="adm-rate">
      <p>
        {s.admitPerSecond === null
          ? `Default: ${num(s.defaultAdmitPerSecond)} per second (ADMIT_PER_SECOND).`
          : `Override: ${num(s.admitPerSecond)} per second (default ${
            num(s.defaultAdmitPerSecond)
          }).`}
      </p>
      <NumberForm
        act={a}
        label="Visitors admitted per second"
        name="admitPerSecond"
        hint={`${num(0.1)} to ${num(100000)}`}
        inputMode="decimal"
        min="0.1"
        max="100000"
        step="any"
        value={rate}
        onValue={setRate}
        submit="Set rate"
        buttons={s.admitPerSecond !== null && (
          <button type="button" disabled={a.busy} onClick={clear}>Clear override</button>
        )}
        onSubmit={() =>
          a.run(async () => {
            const v = await checkedSave(
              { rate: ["Admission rate", base, rate] },
              async () => ({ rate: rateText(await settingsNow(queue)) }),
            );
            const out = await api<QueueSettings>("PUT", "/api/admin/rate", {
              queue,
              admitPerSecond: Number(v.rate),
            });
            set(out);
            followRate(rate);
            return `Rate set to ${
              num(out.admitPerSecond ?? out.defaultAdmitPerSecond)
            } per second.`;
          })}
      />
    </Section>
  );
}

function AdmitCard({ queue }: { queue: string }) {
  const [count, setCount] = useState("1");
  const a = useAction();
  return (
    <Section title="Let people in now" id="adm-admit">
      <NumberForm
        act={a}
        label="How many to admit"
        name="count"
        hint="Fewer may be admitted when few are waiting."
        inputMode="numeric"
        min="1"
        step="1"
        value={count}
        onValue={setCount}
        submit="Admit now"
        onSubmit={async () => {
          const n = Number(count);
          if (!Number.isInteger(n) || n < 1) {
            a.setStatus({ kind: "error", text: "Enter a whole number of 1 or more." });
            return;
          }
          if (
            !(await confirmAction(
              `Admit up to ${num(n)} waiting visitor${
                n === 1 ? "" : "s"
              } of ${queue} now, ignoring the rate? Capacity, pause and opening time still apply.`,
              "Admit now",
            ))
          ) return;
          a.run(async () => {
            const r = await api<{ admitted: number }>("POST", "/admit", { queue, count: n });
            if (r.admitted > 0) {
              return `Admitted ${r.admitted} visitor${r.admitted === 1 ? "" : "s"}.`;
            }
            // Nobody admitted: say why instead of a green "Admitted 0".
            throw new Error(`Nobody was admitted: ${await whyNoneAdmitted(queue)}`);
          });
        }}
      />
    </Section>
  );
}

/** Why a forced admit let nobody in, from the queue's metrics. */
async function whyNoneAdmitted(queue: string): Promise<string> {
  const m = await api<QueueMetrics>("GET", `/metrics?queue=${encodeURIComponent(queue)}`);
  if (m.paused) return "the queue is paused. Resume it first.";
  if (m.healthPaused) return "admissions are paused because the origin is unhealthy.";
  if (m.opensAt && m.opensAt > Date.now()) {
    return `the queue opens at ${localTime(m.opensAt)}. Clear the opening time to admit now.`;
  }
  if (m.waiting === 0) return "nobody is waiting.";
  if (m.openSlots === 0) return "every slot is taken (capacity reached).";
  return "no waiting visitor could be admitted just now.";
}
