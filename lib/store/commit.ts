import { AppError, StoreBusyError } from "../errors.ts";
import { sleep } from "../clock.ts";
import { instanceMetrics } from "../metrics/instance.ts";
import { traced } from "../metrics/tracing.ts";
import { GRAIN_MS, onDeadline } from "../deadlines.ts";

/**
 * How long one logical write may take, all attempts together, before it fails with 503
 * `store_busy`: well under the 3 s in which a visitor's page must answer. (A KV file locked by
 * another process makes a single commit wait 5 s in SQLite before it throws.)
 */
export const STORE_DEADLINE_MS = 2500;

/** Start-up writes (migrations, configured queues) wait longer: a fleet starting together contends. */
export const STARTUP_DEADLINE_MS = 60_000;

/** How a commit is retried. */
export interface CommitDetail {
  /** Attempts before giving up (default 200). */
  attempts?: number;
  /** All attempts together may take this long (default `STORE_DEADLINE_MS`); then `StoreBusyError`. */
  deadlineMs?: number;
  /** The longest pause before attempt `i + 1` (ms; default: grows with how long attempts take). */
  pause?: (i: number, tookMs: number) => number;
  /**
   * An attempt still under way at a deadline that the process saw late (it stalled) is waited for
   * this much longer (ms, from when it is seen; default 0): its own outcome is the answer, so a
   * write that landed during the stall is not answered as failed. No attempt starts after the
   * deadline.
   */
  settleMs?: number;
}

/**
 * Retries an atomic step while it loses a check or the KV file is locked by another process.
 * Each call is one `tollgate.kv.commit` span and one observation of the commit metrics, labelled
 * with `what` (a fixed name per call site, so the label set stays bounded); the step may add span
 * attributes with `annotateSpan` (a join batch adds its queue and size).
 */
export function retryCommit<T>(
  step: () => Promise<T | null>,
  what: string,
  detail: CommitDetail = {},
): Promise<T> {
  const m = instanceMetrics;
  const started = performance.now();
  const op = opLabel(what);
  return traced("tollgate.kv.commit", {
    attributes: { "tollgate.kv.op": op },
  }, async (span) => {
    let conflicts = 0, failed = 0;
    try {
      const out = await retrySteps(
        step,
        what,
        detail.attempts ?? 200,
        detail.deadlineMs ?? STORE_DEADLINE_MS,
        () => conflicts++,
        detail.pause ?? growingPause,
        detail.settleMs ?? 0,
      );
      span.setAttribute("tollgate.outcome", "committed");
      return out;
    } catch (e) {
      // A domain refusal thrown from the step (a visitor gone, a stale write) is not a failure.
      if (!(e instanceof AppError) || e instanceof StoreBusyError) failed = 1;
      throw e;
    } finally {
      span.setAttribute("tollgate.kv.conflicts", conflicts);
      // Added even when zero: a series that exists reads as 0 in rates and alerts, not as absent.
      m.commitConflicts.inc([op], conflicts);
      m.commitFailures.inc([op], failed);
      m.commitSeconds.observe([op], (performance.now() - started) / 1000);
    }
  });
}

const opLabels = new Map<string, string>();

/** The metric label of a call site's name: `create queue` becomes `create_queue`. */
function opLabel(what: string): string {
  let label = opLabels.get(what);
  if (label === undefined) {
    label = what.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "");
    // Call sites name fixed strings; the cap only guards against a caller that does not.
    if (opLabels.size < 200) opLabels.set(what, label);
  }
  return label;
}

async function retrySteps<T>(
  step: () => Promise<T | null>,
  what: string,
  attempts: number,
  deadlineMs: number,
  conflict: () => void,
  pause: (i: number, tookMs: number) => number,
  settleMs: number,
): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (let i = 0; i < attempts; i++) {
    const started = Date.now();
    // Out of time before a step starts (a caller's wait used it up): the step never runs.
    if (started >= end) break;
    try {
      const out = await beforeDeadline(step(), end, what, settleMs);
      if (out !== null) return out;
    } catch (e) {
      if (!isLockError(e)) throw e;
    }
    conflict();
    if (Date.now() >= end) break;
    const wait = pause(i, Date.now() - started);
    if (wait > 0) await sleep(wait * Math.random());
  }
  const why = Date.now() >= end
    ? `no write went through in ${deadlineMs} ms`
    : `gave up after ${attempts} conflicting attempts`;
  throw new StoreBusyError(what, why);
}

/**
 * Jittered back-off keeps contending instances from retrying in lock-step. It grows with how long
 * an attempt takes: against a remote store (100 ms a commit) instances that retried at once kept
 * losing to each other (bench/scale_sim.ts); on a local file it stays a few ms.
 */
export function growingPause(i: number, tookMs: number): number {
  return (i > 2 ? Math.min(50, i) : 0) + tookMs * Math.min(i + 1, 4) / 2;
}

/**
 * `p`, or `StoreBusyError` once the clock passes `end` (and `settleMs` more from when that was
 * seen, when it was seen well after it was due: a process that stalled past its deadlines sees
 * them and its answers together when it runs again, and the answer should win; a store that is
 * merely slow gets no more time). A step cut off here may still commit later; every step checks
 * what it read, so a retry by the caller cannot apply it twice, and this write gives up instead of
 * retrying after a cut-off.
 */
export function beforeDeadline<T>(
  p: Promise<T>,
  end: number,
  what: string,
  settleMs = 0,
): Promise<T> {
  // The step runs on after a cut-off: its own failure then has nobody to hear it.
  p.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const late = () => reject(new StoreBusyError(what, "the store did not answer in time"));
    let cancel = onDeadline(end, () => {
      // Seen well after it was due: the process itself stalled, not the store.
      if (settleMs > 0 && Date.now() - end > 2 * GRAIN_MS) {
        cancel = onDeadline(Date.now() + settleMs, late);
      } else late();
    });
    p.then((v) => (cancel(), resolve(v)), (e) => (cancel(), reject(e)));
  });
}

/**
 * One write whose own outcome is its answer (nothing to read again when it loses a check), tried
 * again while another process holds the KV file locked, until `end` (unix ms): SQLite throws
 * "database is locked" at once at times, and a hand-over written once failed its joins with 503
 * while four processes shared one file (bench/multi_flash.ts).
 */
export async function lockRetried<T>(
  write: () => Promise<T>,
  end: number,
  what: string,
): Promise<T> {
  for (let i = 0;; i++) {
    try {
      return await beforeDeadline(write(), end, what);
    } catch (e) {
      if (!isLockError(e)) throw e;
    }
    const wait = Math.random() * Math.min(2 + 2 * i, 20);
    if (Date.now() + wait >= end) throw new StoreBusyError(what, "the store stayed locked");
    await sleep(wait);
  }
}

/** True for SQLite's lock errors from a KV file shared by processes (not for domain errors). */
export function isLockError(e: unknown): boolean {
  return e instanceof Error && /^database (table )?is locked|SQLITE_BUSY/.test(e.message);
}

/**
 * An atomic operation written down rather than sent: `build` gives a fresh operation of the same
 * checks and mutations each time, so a step that loses only one check (the counts record) can read
 * that record again and send the rest as it was, instead of redoing every read behind it.
 */
export function recordOp(): {
  op: Deno.AtomicOperation;
  build: (kv: Deno.Kv) => Deno.AtomicOperation;
} {
  const calls: [keyof Deno.AtomicOperation, unknown[]][] = [];
  const op: Deno.AtomicOperation = new Proxy({} as Deno.AtomicOperation, {
    get(_t, prop) {
      if (prop === "commit") throw new Error("a recorded operation is sent by its build");
      // Not a promise: awaiting it must not wait forever.
      if (prop === "then") return undefined;
      return (...args: unknown[]) => {
        calls.push([prop as keyof Deno.AtomicOperation, args]);
        return op;
      };
    },
  });
  const build = (kv: Deno.Kv) => {
    const out = kv.atomic();
    // deno-lint-ignore no-explicit-any
    for (const [name, args] of calls) (out[name] as (...a: any[]) => unknown)(...args);
    return out;
  };
  return { op, build };
}

/**
 * Opens a KV file, trying again while another process holds it locked: processes of a fleet
 * started together over one file met SQLite's lock in its first setup (the multi-process tests
 * saw one of six exit with "database is locked"). Gives up after `STARTUP_DEADLINE_MS`.
 */
export async function openStore(path?: string): Promise<Deno.Kv> {
  const started = Date.now();
  for (let i = 0;; i++) {
    try {
      return path === undefined ? await Deno.openKv() : await Deno.openKv(path);
    } catch (e) {
      if (!isLockError(e) || Date.now() - started > STARTUP_DEADLINE_MS) throw e;
      await sleep(Math.min(1000, 20 * 2 ** i) * (0.5 + Math.random()));
    }
  }
}
