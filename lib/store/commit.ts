import { AppError } from "../errors.ts";
import { instanceMetrics } from "../metrics/instance.ts";
import { traced } from "../metrics/tracing.ts";

/** How a commit is retried. */
export interface CommitDetail {
  /** Attempts before giving up (default 200). */
  attempts?: number;
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
      const out = await retrySteps(step, what, detail.attempts ?? 200, () => conflicts++);
      span.setAttribute("tollgate.outcome", "committed");
      return out;
    } catch (e) {
      // A domain refusal thrown from the step (a visitor gone, a stale write) is not a failure.
      if (!(e instanceof AppError)) failed = 1;
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
  conflict: () => void,
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    try {
      const out = await step();
      if (out !== null) return out;
    } catch (e) {
      if (!isLockError(e)) throw e;
    }
    conflict();
    // Jittered back-off keeps contending instances from retrying in lock-step.
    if (i > 2) await new Promise((r) => setTimeout(r, Math.min(50, i) * Math.random()));
  }
  throw new Error(`${what}: gave up after ${attempts} conflicting attempts`);
}

/** True for SQLite's lock errors from a KV file shared by processes (not for domain errors). */
export function isLockError(e: unknown): boolean {
  return e instanceof Error && /^database (table )?is locked|SQLITE_BUSY/.test(e.message);
}
