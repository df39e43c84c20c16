/**
 * The instance's own counters: what this process served and how its writes went. They live in
 * memory, one set per process like the process itself (commit retries happen in code with no
 * app context to hang them on), so a scrape of one instance shows that instance only. Tests
 * that build several apps in one process compare before and after, never absolute values.
 */
import { Counter, Histogram } from "./registry.ts";

/** Upper bounds (seconds) of request and commit latency: from half a millisecond to 10 s. */
const LATENCY_BOUNDS = [
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];
/** Upper bounds of a join group commit's size (its largest is 250). */
const BATCH_BOUNDS = [1, 2, 5, 10, 25, 50, 100, 250];

/** Every per-instance metric family. */
export class InstanceMetrics {
  readonly startedAt = Date.now();
  readonly requests = new Counter(
    "tollgate_http_requests_total",
    "HTTP requests answered by this instance, by route and status code.",
    ["route", "code"],
  );
  readonly requestSeconds = new Histogram(
    "tollgate_http_request_duration_seconds",
    "Time from receiving a request to having its response, by route.",
    ["route"],
    LATENCY_BOUNDS,
  );
  readonly refusals = new Counter(
    "tollgate_join_refusals_total",
    "Joins refused by this instance, by queue and cause (the error code answered).",
    ["queue", "cause"],
  );
  readonly batchSize = new Histogram(
    "tollgate_join_batch_size",
    "Joins written by one group commit of this instance.",
    [],
    BATCH_BOUNDS,
  );
  readonly commitSeconds = new Histogram(
    "tollgate_kv_commit_duration_seconds",
    "Time to get one atomic KV write through (reads, commit and retries), by operation.",
    ["op"],
    LATENCY_BOUNDS,
  );
  readonly commitConflicts = new Counter(
    "tollgate_kv_commit_conflicts_total",
    "Atomic KV writes retried because a check failed or the store was locked, by operation.",
    ["op"],
  );
  readonly commitFailures = new Counter(
    "tollgate_kv_commit_failures_total",
    "Atomic KV writes that failed with an error or gave up after retrying, by operation.",
    ["op"],
  );
  readonly tickSeconds = new Histogram(
    "tollgate_tick_duration_seconds",
    "Duration of the admission ticks this instance ran.",
    [],
    LATENCY_BOUNDS,
  );
  readonly connectionsClosed = new Counter(
    "tollgate_http_connections_closed_total",
    "Connections this instance closed itself, by reason: cap (shed for a new one at the " +
      "connection cap), refused (at the cap with every connection busy), descriptors (shed when " +
      "accept ran out of file descriptors), header_timeout, idle_timeout.",
    ["reason"],
  );
  readonly acceptErrors = new Counter(
    "tollgate_http_accept_errors_total",
    "Failed accepts of new connections, by reason (descriptors: too many open files).",
    ["reason"],
  );
  /** Open connections and the cap (gauges; 0 where the runtime serves without bounds). */
  readonly connections = { open: 0, limit: 0 };
  readonly ticks = new Counter(
    "tollgate_ticks_total",
    "Admission ticks this instance started, by result (ran, or skipped: another ran that second).",
    ["result"],
  );

  readonly numbered = new Counter(
    "tollgate_joins_numbered_total",
    "Joins this instance's sequencer numbered into the line, by queue (a tick's own numbering and " +
      "the run beside the ticks behind a backlog alike).",
    ["queue"],
  );

  readonly roomAdmissions = new Counter(
    "tollgate_room_admissions_total",
    "Visitors this instance let in or turned away by a room switch, by queue and effective mode " +
      "(passthrough: admitted without waiting; reject: shown the closed page).",
    ["queue", "mode"],
  );
  readonly storeFailOpen = new Counter(
    "tollgate_store_fail_open_total",
    "Requests let through without an access token while the store could not be reached " +
      "(STORE_FAILURE=open), by path (proxy, verify).",
    ["path"],
  );
  readonly storeFailClosed = new Counter(
    "tollgate_store_fail_closed_total",
    "Requests refused with 503 because the store could not be reached (STORE_FAILURE=closed, or " +
      "open past its bound), by path (proxy, verify).",
    ["path"],
  );

  /** Series dropped because a family was full (should stay 0). */
  dropped(): number {
    return [
      this.requests,
      this.requestSeconds,
      this.refusals,
      this.batchSize,
      this.commitSeconds,
      this.commitConflicts,
      this.commitFailures,
      this.tickSeconds,
      this.ticks,
      this.numbered,
      this.connectionsClosed,
      this.acceptErrors,
      this.roomAdmissions,
      this.storeFailOpen,
      this.storeFailClosed,
    ].reduce((n, f) => n + f.series.dropped, 0);
  }
}

/** This process's metrics. */
export const instanceMetrics = new InstanceMetrics();
