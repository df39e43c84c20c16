/**
 * Deadlines kept by one shared timer instead of a timer each: every KV write (its bound before
 * 503 `store_busy`) and every request body (its bound before 408) has one, and a timer set and
 * cleared per request cost the hot paths more than the rest of their bookkeeping together. The
 * timer checks them every `GRAIN_MS` (so a deadline fires up to that much late, which none of
 * these bounds, seconds long, notices) and runs while deadlines come and go.
 *
 * @example
 * const cancel = onDeadline(Date.now() + 2500, () => console.log("late"));
 * // ... the work finished in time:
 * cancel();
 */

/** How often pending deadlines are checked. */
export const GRAIN_MS = 50;

interface Entry {
  end: number;
  fire: () => void;
}

const pending = new Set<Entry>();
let timer: ReturnType<typeof setInterval> | undefined;
/** Sweeps in a row that found nothing pending; the timer stops after `IDLE_SWEEPS` of them. */
let idle = 0;
const IDLE_SWEEPS = 20;

function sweep(): void {
  const now = Date.now();
  for (const e of pending) {
    if (e.end > now) continue;
    pending.delete(e);
    e.fire();
  }
  idle = pending.size > 0 ? 0 : idle + 1;
  if (idle >= IDLE_SWEEPS && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
}

/**
 * Calls `fire` once the clock (`Date.now()`) passes `end`, unless the returned function is
 * called first (calling it later does nothing).
 */
export function onDeadline(end: number, fire: () => void): () => void {
  const e: Entry = { end, fire };
  pending.add(e);
  idle = 0;
  if (timer === undefined) {
    const t = setInterval(sweep, GRAIN_MS);
    // The timer never keeps a process (or a test) alive by itself: whatever a deadline watches
    // (a body read, a KV write) does, and the timer stops a second after the last deadline.
    Deno.unrefTimer(t);
    timer = t;
  }
  return () => void pending.delete(e);
}
