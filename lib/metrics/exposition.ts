/**
 * The Prometheus exposition of `GET /metrics`: each queue's state from the shared store (as this
 * instance's cached view has it, under a second old) and this instance's own counters.
 */
import type { Engine } from "../queue/engine.ts";
import type { QueueMetrics } from "./queue.ts";
import type { SessionMetrics } from "../session/stats.ts";
import { VERSION } from "../version.ts";
import type { RoomMetrics } from "../room/metrics.ts";
import { mailCounts } from "../notify/mail_job.ts";
import { instanceMetrics } from "./instance.ts";
import { ExpositionWriter, type Labels, type TextFormat } from "./registry.ts";

/** Most queues one exposition lists (sorted by name); `?queue=` reaches any other. */
export const MAX_EXPOSED_QUEUES = 500;

/** What `GET /metrics` answers in. */
export type MetricsFormat = "json" | TextFormat;

/**
 * The answer's format: `format` when given, else the best of the text formats `accept` names
 * (`application/openmetrics-text`, or `text/plain` with `version=0.0.4`), else JSON. A bare
 * `*\/*` or `text/plain` is JSON, so browsers and curl keep getting what they got before.
 */
export function negotiateFormat(
  format: MetricsFormat | undefined,
  accept: string | undefined,
): MetricsFormat {
  if (format) return format;
  let best: MetricsFormat = "json", bestQ = 0;
  for (const range of (accept ?? "").split(",")) {
    const [type, ...params] = range.split(";").map((p) => p.trim().toLowerCase());
    const param = (name: string) =>
      params.find((p) => p.startsWith(name + "="))?.slice(name.length + 1).replace(/"/g, "");
    const q = Number(param("q") ?? 1);
    const fmt: MetricsFormat | null = type === "application/openmetrics-text"
      ? "openmetrics"
      : type === "text/plain" && param("version") === "0.0.4"
      ? "prometheus"
      : null;
    if (fmt && q > bestQ) [best, bestQ] = [fmt, q];
  }
  return best;
}

/** One queue's gauges and counters (all but the instance's own). */
interface QueueSeries {
  m: QueueMetrics;
  /** The session figures (lib/session/stats.ts), when the caller reads them. */
  sessions?: SessionMetrics;
  tickLag: number;
  age: number;
  /** Turn e-mails taken for sending and failed (lib/notify/mail_job.ts). */
  mail: { sent: number; failed: number };
}

async function queueSeries(
  engine: Engine,
  q: string,
  sessions?: (q: string) => Promise<SessionMetrics>,
): Promise<QueueSeries> {
  const [m, sm] = await Promise.all([engine.metrics(q), sessions?.(q)]);
  // The view `metrics` just used (cached): its age is how old these values are.
  const v = await engine.ctx.view(q);
  const now = engine.ctx.now();
  return {
    m,
    sessions: sm,
    tickLag: Math.max(0, now / 1000 - v.counts.tickAt),
    age: Math.max(0, (now - v.loadedAt) / 1000),
    mail: await mailCounts(engine.ctx.kv, q),
  };
}

/** The per-queue gauges: name after `tollgate_queue_`, help, value. */
const QUEUE_GAUGES: [string, string, (s: QueueSeries) => number | boolean][] = [
  ["waiting", "Visitors waiting in line.", (s) => s.m.waiting],
  ["capacity", "Concurrent slots (entered plus holding).", (s) => s.m.capacity],
  ["entered", "Admitted visitors that entered and hold a slot.", (s) => s.m.entered],
  ["holding", "Admitted visitors holding a slot, not yet entered.", (s) => s.m.holding],
  ["open_slots", "Slots free for the next admissions.", (s) => s.m.openSlots],
  ["paused", "1 while an operator paused the queue.", (s) => s.m.paused],
  [
    "health_paused",
    "1 while the origin health throttle holds admissions.",
    (s) => s.m.healthPaused,
  ],
  ["admit_per_second", "Effective admission rate (per second).", (s) => s.m.admitPerSecond],
  [
    "estimated_wait_seconds",
    "Estimated wait of a visitor joining now.",
    (s) => s.m.estimatedWaitSeconds,
  ],
  ["average_wait_seconds", "Average wait of admitted visitors.", (s) => s.m.averageWaitSeconds],
  [
    "oldest_wait_seconds",
    "How long the first visitor in line has waited.",
    (s) => s.m.oldestWaitSeconds,
  ],
  [
    "tick_lag_seconds",
    "Seconds since an admission tick of the queue last ran (any instance; an idle queue is not ticked).",
    (
      s,
    ) => s.tickLag,
  ],
  ["state_age_seconds", "Age of the values above on the instance that answers.", (s) => s.age],
];

/** Writes the per-queue families. */
function writeQueues(w: ExpositionWriter, all: QueueSeries[]): void {
  for (const [name, help, value] of QUEUE_GAUGES) {
    w.gauge(`tollgate_queue_${name}`, help, all.map((s) => [{ queue: s.m.queue }, value(s)]));
  }
  w.stateGauge(
    "tollgate_queue_admission_mode",
    "1 for the queue's admission mode (queue or lottery), 0 for the other.",
    "mode",
    ["queue", "lottery"],
    all.map((s) => [{ queue: s.m.queue }, s.m.admissionMode]),
  );
  w.gauge(
    "tollgate_queue_opens_at_timestamp_seconds",
    "Scheduled opening time (unix seconds), for queues with one.",
    all.filter((s) => s.m.opensAt !== null).map((s) => [{ queue: s.m.queue }, s.m.opensAt! / 1000]),
  );
  w.stateGauge(
    "tollgate_queue_prequeue_phase",
    "1 for the pre-queue's phase (off, before its window, window open, drawing, drawn).",
    "phase",
    ["off", "before", "window", "drawing", "drawn"],
    all.map((s) => [{ queue: s.m.queue }, s.m.prequeue.phase]),
  );
  w.gauge(
    "tollgate_queue_prequeue_participants",
    "Pre-queue participants: waiting from the window before the draw, the list's size after it.",
    all.filter((s) => s.m.prequeue.phase !== "off")
      .map((s) => [{ queue: s.m.queue }, s.m.prequeue.participants]),
  );
  w.gauge(
    "tollgate_queue_join_guard_events_last_hour",
    "Join guard events of the last hour (all instances): refused by the per-client limit, " +
      "challenges issued, solved and failed, enqueue tokens refused.",
    all.flatMap((s) =>
      Object.entries(s.m.joinGuards).map(([kind, n]): [Labels, number] => [
        { queue: s.m.queue, event: kind.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase()) },
        n,
      ])
    ),
  );
  w.counter(
    "tollgate_queue_admitted_total",
    "Admissions ever (by rate, forced, or at once on join).",
    all.map((s) => [{ queue: s.m.queue }, s.m.admittedTotal]),
  );
  w.counter(
    "tollgate_queue_abandoned_total",
    "Waiting visitors dropped for missing their check-ins.",
    all.map((s) => [{ queue: s.m.queue }, s.m.abandoned]),
  );
  w.gauge(
    "tollgate_queue_silent",
    "Waiting visitors past their check-in but within the grace that keeps their place.",
    all.map((s) => [{ queue: s.m.queue }, s.m.silent]),
  );
  w.counter(
    "tollgate_queue_returned_total",
    "Silent waiting visitors that came back within their grace and kept their place.",
    all.map((s) => [{ queue: s.m.queue }, s.m.returned]),
  );
  w.gauge(
    "tollgate_queue_lane_waiting",
    "Waiting visitors numbered into a priority lane's line (also in tollgate_queue_waiting).",
    all.flatMap((s) =>
      s.m.lanes.map((l): [Labels, number] => [{ queue: s.m.queue, lane: l.lane }, l.waiting])
    ),
  );
  w.counter(
    "tollgate_queue_lane_admitted_total",
    "Visitors admitted from a priority lane's line.",
    all.flatMap((s) =>
      s.m.lanes.map((l): [Labels, number] => [{ queue: s.m.queue, lane: l.lane }, l.admitted])
    ),
  );
  w.counter(
    "tollgate_queue_turn_emails_total",
    "Turn e-mails by event: sent (taken for sending) and failed (delivered = sent - failed).",
    all.flatMap((s): [Labels, number][] => [
      [{ queue: s.m.queue, event: "sent" }, s.mail.sent],
      [{ queue: s.m.queue, event: "failed" }, s.mail.failed],
    ]),
  );
  writeSessions(w, all.filter((s) => s.sessions));
}

/** Writes the session families of the queues whose figures were read. */
function writeSessions(w: ExpositionWriter, all: QueueSeries[]): void {
  w.counter(
    "tollgate_queue_sessions_renewed_total",
    "Sliding sessions renewed (one store write each, at most one per visitor per interval).",
    all.map((s) => [{ queue: s.m.queue }, s.sessions!.sessionsRenewed]),
  );
  w.counter(
    "tollgate_queue_sessions_ended_total",
    "Sessions ended, by how: released by the site, idle, at the hard cap, at the token's expiry.",
    all.flatMap((s) => {
      const m = s.sessions!, q = s.m.queue;
      return [
        [{ queue: q, reason: "released" }, m.sessionsReleased],
        [{ queue: q, reason: "idle" }, m.sessionsEndedIdle],
        [{ queue: q, reason: "cap" }, m.sessionsEndedCap],
        [{ queue: q, reason: "expired" }, m.sessionsExpired],
      ] as [Labels, number][];
    }),
  );
  w.gauge(
    "tollgate_queue_average_session_seconds",
    "Mean length (admission to end) of the sessions ended so far.",
    all.map((s) => [{ queue: s.m.queue }, s.sessions!.averageSessionSeconds]),
  );
  w.stateGauge(
    "tollgate_queue_session_mode",
    "1 for the queue's session mode (fixed or sliding), 0 for the other.",
    "mode",
    ["fixed", "sliding"],
    all.map((s) => [{ queue: s.m.queue }, s.sessions!.sessionMode]),
  );
}

/** Writes this instance's own families; refusals only for the queues listed. */
function writeInstance(w: ExpositionWriter, listed: Set<string>): void {
  const m = instanceMetrics;
  w.counterOf(m.requests);
  w.histogramOf(m.requestSeconds);
  w.counterOf(m.refusals, (l) => listed.has(l.queue));
  w.histogramOf(m.batchSize);
  w.histogramOf(m.commitSeconds);
  w.counterOf(m.commitConflicts);
  w.counterOf(m.commitFailures);
  w.histogramOf(m.tickSeconds);
  w.counterOf(m.ticks);
  w.counterOf(m.numbered, (l) => listed.has(l.queue));
  w.counterOf(m.connectionsClosed);
  w.counterOf(m.acceptErrors);
  w.gauge("tollgate_http_connections_open", "Connections open on this instance.", [[
    {},
    m.connections.open,
  ]]);
  w.gauge(
    "tollgate_http_connections_limit",
    "This instance's connection cap (0: served without one).",
    [[{}, m.connections.limit]],
  );
  w.counterOf(m.roomAdmissions, (l) => listed.has(l.queue));
  w.counterOf(m.storeFailOpen);
  w.counterOf(m.storeFailClosed);
  w.counter(
    "tollgate_metrics_series_dropped_total",
    "Observations dropped because a metric family was full (bounded label sets).",
    [[{}, m.dropped()]],
  );
}

/**
 * The exposition text of one queue (`only`, 404 `unknown_queue` when missing) or of the first
 * `MAX_EXPOSED_QUEUES` queues by name.
 */
export async function buildExposition(
  engine: Engine,
  format: TextFormat,
  only?: string,
  extra: ExpositionExtras = {},
): Promise<string> {
  const names = only ? [only] : await engine.queueNames();
  const listed = names.slice(0, MAX_EXPOSED_QUEUES);
  const all = await Promise.all(listed.map((q) => queueSeries(engine, q, extra.sessions)));
  const rooms = extra.room ? await Promise.all(listed.map((q) => extra.room!(q))) : null;
  const w = new ExpositionWriter(format);
  w.gauge("tollgate_build_info", "Always 1; the version label names the running release.", [[
    { version: VERSION },
    1,
  ]]);
  w.gauge("tollgate_start_time_seconds", "When this instance started (unix seconds).", [[
    {},
    instanceMetrics.startedAt / 1000,
  ]]);
  if (!only) {
    w.gauge("tollgate_queues", "Queues that exist.", [[{}, names.length]]);
    w.gauge("tollgate_queues_omitted", "Queues left out of this exposition (over the limit).", [[
      {},
      names.length - listed.length,
    ]]);
  }
  const health = all[0]?.m.health.state;
  if (health) {
    w.stateGauge(
      "tollgate_origin_health",
      "1 for the origin health state (unmonitored, healthy or unhealthy), 0 for the others.",
      "state",
      ["unmonitored", "healthy", "unhealthy"],
      [[{}, health]],
    );
  }
  writeQueues(w, all);
  if (rooms) writeRooms(w, listed, rooms);
  if (extra.storeDown) {
    w.gauge(
      "tollgate_store_unreachable",
      "1 while this instance finds the store unreachable (see STORE_FAILURE), else 0.",
      [[{}, extra.storeDown() ? 1 : 0]],
    );
  }
  writeInstance(w, new Set(listed));
  return w.text();
}

/** What the exposition shows beside the engine's figures (the route wires them in). */
export interface ExpositionExtras {
  /** A queue's session figures (lib/session). */
  sessions?: (q: string) => Promise<SessionMetrics>;
  /** A queue's room switch. */
  room?: (q: string) => Promise<RoomMetrics>;
  /** Whether this instance finds the store unreachable now. */
  storeDown?: () => boolean;
}

/** The room switch of each listed queue. */
function writeRooms(w: ExpositionWriter, listed: string[], rooms: RoomMetrics[]): void {
  w.stateGauge(
    "tollgate_room_mode",
    "1 for what visitors of the queue meet now (normal, queue_all, passthrough, reject; auto " +
      "shows as passthrough or normal), 0 for the others.",
    "mode",
    ["normal", "queue_all", "passthrough", "reject"],
    listed.map((q, i) => [{ queue: q }, rooms[i].effectiveMode]),
  );
  w.gauge(
    "tollgate_room_passthrough_slots",
    "Slots held by visitors a passthrough room let in, until their tokens expire.",
    listed.map((q, i) => [{ queue: q }, rooms[i].passthroughSlots]),
  );
}
