/// <reference lib="dom" />
/**
 * The Live tab: the picked queue's operator metrics as stat tiles, polled every 5 s
 * from `GET /api/admin/metrics` while the page is visible; the 24 h inflow/outflow chart of
 * `GET /api/admin/traffic` with its CSV download; country-block hits and origin health.
 */
import { useState } from "preact/hooks";
import type { GeoBlockView } from "../../../lib/access/mod.ts";
import type { HealthSnapshot } from "../../../lib/access/health_config.ts";
import type { QueueMetrics } from "../../../lib/queue/engine.ts";
import type { SessionMetrics } from "../../../lib/session/stats.ts";
import { api, messageOf } from "../api.ts";
import type { TabProps } from "../boot.ts";
import { localTime, num, POLL_MS, Section, usePolling } from "../ui.tsx";
import { type Traffic, TrafficChart } from "./live_chart.tsx";
import { QueuesCard } from "./queues.tsx";

/** `GET /api/admin/metrics`. */
interface MetricsAnswer {
  at: number;
  queues: (QueueMetrics & { sessions?: SessionMetrics })[];
  geoBlock?: GeoBlockView;
  health?: HealthSnapshot;
}

const TRAFFIC_MS = 60_000;

/** Seconds as "45 s", "3 min 20 s", "2 h 5 min". */
export function duration(s: number): string {
  s = Math.round(s);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
  const m = Math.floor((s % 3600) / 60);
  return `${Math.floor(s / 3600)} h${m ? ` ${m} min` : ""}`;
}

function Stat(p: { label: string; value: string; note?: string }) {
  return (
    <div class="stat">
      <span class="n">{p.value}</span>
      <span>{p.label}</span>
      {p.note && <small class="muted">{p.note}</small>}
    </div>
  );
}

/** One queue's live figures, as the metrics answer has them. */
type QueueNowView = MetricsAnswer["queues"][number];

/** What the queue is doing now: paused (by hand or by the health throttle), not open, admitting. */
function stateWord(q: QueueNowView, at: number): string {
  return q.paused
    ? "Paused"
    : q.healthPaused
    ? "Paused: origin unhealthy"
    : q.opensAt && q.opensAt > at
    ? "Not open yet"
    : "Admitting";
}

/** The queue's state and its figures, as of the metrics' time `at`. */
function QueueNow({ q, at }: { q: QueueNowView; at: number }) {
  return (
    <>
      <p class="live-state">
        <span class={`live-badge ${q.paused || q.healthPaused ? "stopped" : "running"}`}>
          {stateWord(q, at)}
        </span>{" "}
        <span class="muted">
          Updated {new Date(at).toLocaleTimeString()} (every 5 s while this page is shown)
        </span>
      </p>
      <div class="grid live-stats" aria-label="Queue metrics" role="group">
        <Stat label="Waiting" value={num(q.waiting)} />
        <Stat
          label="Estimated wait"
          value={q.paused || q.healthPaused
            ? "None while paused"
            : duration(q.estimatedWaitSeconds)}
        />
        <Stat label="Capacity" value={num(q.capacity)} note="entered + holding at once" />
        <Stat label="Entered" value={num(q.entered)} />
        <Stat label="Holding" value={num(q.holding)} note="admitted, not yet in" />
        <Stat label="Open slots" value={num(q.openSlots)} />
        <Stat label="Admit rate" value={`${q.admitPerSecond} / s`} />
        <Stat
          label="Mode"
          value={q.admissionMode === "lottery" ? "Lottery" : "Queue (FIFO)"}
        />
        <Stat
          label="Opens at"
          value={q.opensAt ? localTime(q.opensAt) : "No opening time"}
          note={q.opensAt && q.opensAt <= at ? "passed" : undefined}
        />
        <Stat label="Average wait" value={duration(q.averageWaitSeconds)} />
        <Stat label="Oldest wait" value={duration(q.oldestWaitSeconds)} />
        <Stat label="Silent, place kept" value={num(q.silent)} />
        <Stat label="Came back" value={num(q.returned)} />
        <Stat label="Abandoned" value={num(q.abandoned)} />
        <Stat label="Admitted in total" value={num(q.admittedTotal)} />
        {q.sessions && <SessionStats s={q.sessions} />}
      </div>
    </>
  );
}

/** How the queue's sessions end: renewed, released by the site, idle, at the cap; their length. */
function SessionStats({ s }: { s: SessionMetrics }) {
  return (
    <>
      <Stat
        label="Sessions"
        value={s.sessionMode === "sliding" ? "Sliding" : "Fixed"}
        note={s.sessionMode === "sliding" ? "freed when idle" : "held for the token's life"}
      />
      <Stat label="Average session" value={duration(s.averageSessionSeconds)} />
      <Stat label="Sessions renewed" value={num(s.sessionsRenewed)} />
      <Stat label="Released by the site" value={num(s.sessionsReleased)} />
      <Stat label="Ended idle" value={num(s.sessionsEndedIdle)} />
      <Stat label="Ended at the cap" value={num(s.sessionsEndedCap)} />
    </>
  );
}

/** The Live tab: the queue now, its traffic, the country block and health, and every queue. */
export function LiveTab({ queue }: TabProps) {
  const [m, setM] = useState<MetricsAnswer | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [traffic, setTraffic] = useState<Traffic | null>(null);
  const [trafficErr, setTrafficErr] = useState<string | null>(null);

  usePolling(
    () => {
      api<MetricsAnswer>("GET", "/api/admin/metrics").then((r) => {
        setM(r);
        setErr(null);
      }).catch((e) => setErr(messageOf(e)));
    },
    POLL_MS,
    [queue],
  );
  usePolling(
    () => {
      api<Traffic>("GET", `/api/admin/traffic?queue=${encodeURIComponent(queue)}&hours=24`)
        .then((r) => {
          setTraffic(r);
          setTrafficErr(null);
        }).catch((e) => setTrafficErr(messageOf(e)));
    },
    TRAFFIC_MS,
    [queue],
  );

  const q = m?.queues.find((x) => x.queue === queue);
  const csv = `/api/admin/traffic?format=csv&queue=${encodeURIComponent(queue)}&hours=24`;
  return (
    <div class="live">
      <Section title={`Queue ${queue} now`} id="live-now">
        {err && <p class="status error" role="alert">Could not refresh: {err}</p>}
        {!m && !err && <p class="muted">Loading…</p>}
        {m && !q && <p>This queue has no metrics yet.</p>}
        {m && q && <QueueNow q={q} at={m.at} />}
      </Section>

      <Section title="Inflow and outflow, last 24 hours" id="live-traffic">
        {trafficErr && <p class="status error" role="alert">{trafficErr}</p>}
        {traffic ? <TrafficChart traffic={traffic} /> : !trafficErr && <p>Loading…</p>}
        <p>
          <a href={csv} download={`traffic-${queue}.csv`}>Download the last 24 hours as CSV</a>
        </p>
      </Section>

      {m?.geoBlock && <GeoBlockCard g={m.geoBlock} />}
      {m?.health && <HealthCard h={m.health} />}
      <QueuesCard />
    </div>
  );
}

function GeoBlockCard({ g }: { g: GeoBlockView }) {
  const hits = Object.entries(g.hits ?? {}).sort((a, b) => b[1] - a[1]);
  return (
    <Section title="Country block" id="live-geo">
      <p>
        {g.active
          ? `Blocking ${g.countries.join(", ") || "no countries"}${
            g.expiresAt ? ` until ${localTime(g.expiresAt)}` : ""
          }.`
          : g.enabled
          ? "Enabled but expired: nobody is blocked."
          : "Off: no country is blocked."}
      </p>
      {hits.length
        ? (
          <ul class="live-hits" aria-label="Refused joins per country">
            {hits.map(([c, n]) => <li key={c}>{c}: {num(n)} refused</li>)}
          </ul>
        )
        : g.enabled && <p class="muted">No refused joins since it was enabled.</p>}
    </Section>
  );
}

const HEALTH_TEXT: Record<string, string> = {
  unmonitored: "Not monitored",
  healthy: "Healthy",
  unhealthy: "Unhealthy: admissions pause",
};

function HealthCard({ h }: { h: HealthSnapshot }) {
  return (
    <Section title="Origin health" id="live-health">
      <p>
        <span
          class={`live-badge ${
            h.state === "unhealthy" ? "stopped" : h.state === "healthy" ? "running" : "neutral"
          }`}
        >
          {HEALTH_TEXT[h.state] ?? h.state}
        </span>
        {h.override && <>(set by hand to {h.override}; probes say {h.probed})</>}
      </p>
      {h.lastCheckedAt && (
        <p class="muted">
          Last checked {localTime(h.lastCheckedAt)}
          {h.config?.host ? ` on ${h.config.host}` : ""}
          {h.lastError ? `: ${h.lastError}` : ""}
        </p>
      )}
    </Section>
  );
}
