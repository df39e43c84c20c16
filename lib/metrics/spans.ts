/**
 * The spans and instance metrics of joins, status checks and ticks, kept here so the engine and
 * the join path each need one call. Attributes: `tollgate.queue`, `tollgate.outcome` (waiting,
 * admitted, an error code, or for ticks ran/skipped) and what each step adds.
 */
import { AppError } from "../errors.ts";
import { instanceMetrics } from "./instance.ts";
import { spanNow, traced, tracingOn } from "./tracing.ts";

/** Error codes of a join that are not refusals: the request itself was wrong. */
const NOT_REFUSALS = new Set(["unknown_queue", "bad_request", "internal"]);

/**
 * The cause of a refusal: its error code (`queue_full`, `geo_blocked`, `challenge_required`, ...),
 * except that a 429 `rate_limited` says which limit (`client_limit`) by its `details.reason`.
 */
function causeOf(e: AppError): string {
  const reason = e.details.reason;
  return e.code === "rate_limited" && typeof reason === "string" && /^[a-z_]{1,40}$/.test(reason)
    ? reason
    : e.code;
}

/**
 * Runs a join as a `tollgate.join` span; a refused join (an error the visitor is answered with,
 * like `queue_full` or `geo_blocked`) counts in `tollgate_join_refusals_total` by its cause.
 */
export function observeJoin<T extends { view: { status: string } }>(
  q: string,
  run: () => Promise<T>,
): Promise<T> {
  return traced("tollgate.join", { attributes: { "tollgate.queue": q } }, async (span) => {
    try {
      const out = await run();
      span.setAttribute("tollgate.outcome", out.view.status);
      return out;
    } catch (e) {
      if (e instanceof AppError && !NOT_REFUSALS.has(e.code)) {
        instanceMetrics.refusals.inc([q, causeOf(e)]);
      }
      throw e;
    }
  });
}

/** A `tollgate.status` span for an answer made from memory (no await, no store access). */
export function noteStatusNow(q: string, status: string): void {
  // Checked here too: the attributes would be made for nothing on every poll.
  if (!tracingOn()) return;
  spanNow("tollgate.status", {
    "tollgate.queue": q,
    "tollgate.outcome": status,
    "tollgate.status.cached": true,
  });
}

/** Runs a status check that may read or write the store as a `tollgate.status` span. */
export function observeStatus<T extends { view: { status: string } }>(
  q: string,
  run: () => Promise<T>,
): Promise<T> {
  return traced("tollgate.status", {
    attributes: { "tollgate.queue": q, "tollgate.status.cached": false },
  }, async (span) => {
    const out = await run();
    span.setAttribute("tollgate.outcome", out.view.status);
    return out;
  });
}

/** What a tick reports. */
interface TickOutcome {
  ran: boolean;
  admitted: number;
  expired: number;
  waiting: number;
}

/** Runs an admission tick as a root `tollgate.tick` span, counted and timed when it ran. */
export async function observeTick<T extends TickOutcome>(
  q: string,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const out = await traced("tollgate.tick", {
    root: true,
    attributes: { "tollgate.queue": q },
  }, async (span) => {
    const out = await run();
    span.setAttributes({
      "tollgate.outcome": out.ran ? "ran" : "skipped",
      "tollgate.tick.admitted": out.admitted,
      "tollgate.tick.expired": out.expired,
      "tollgate.queue.waiting": out.waiting,
    });
    return out;
  });
  instanceMetrics.ticks.inc([out.ran ? "ran" : "skipped"]);
  if (out.ran) instanceMetrics.tickSeconds.observe([], (performance.now() - started) / 1000);
  return out;
}
