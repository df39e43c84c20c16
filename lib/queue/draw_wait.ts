/**
 * Check-ins of pre-queue participants at the opening draw.
 *
 * Nobody knows who is drawn first until the draw, and the status budget (750 a second) lets the
 * line check in only about once a period, so a participant learns its place at its first
 * check-in after the draw, and the budget decides when that is: within one period,
 * `max(5, n / 750)` s, spread evenly. The service does what it can without breaking the budget
 * or telling the opening time early:
 *
 * - a check-in that comes while the draw runs is held until it is done (at most
 *   `DRAW_HOLD_MS`), then answered with its place, instead of being sent back for another try;
 * - the first check-in after the draw (due or early) gets its next check-in by its drawn place,
 *   as every queue's position-aware timeslots do (the front every 5 s);
 * - before the draw, check-ins fill each second only to the bulk mark (`bulkLimit`), leaving the
 *   rest of the budget to the drawn front's 5 s check-ins after it.
 */
import { sleep } from "../clock.ts";
import { keys } from "../store/keys.ts";
import type { QueueContext } from "./context.ts";
import { sumCheckins } from "./checkins.ts";
import type { QueueSettings } from "./types.ts";

/** Longest a check-in is held while the draw runs (the draw of 100,000 takes about 2 s). */
export const DRAW_HOLD_MS = 4000;
/** How often a held check-in's instance looks whether the draw is done (one read for all). */
const POLL_MS = 100;

/** Per app and queue: the one look that every held check-in of this instance waits on. */
const looks = new WeakMap<QueueContext, Map<string, Promise<boolean>>>();

/** Whether the draw of round `round` is done, by the stored settings. */
async function drawn(ctx: QueueContext, q: string, round: number): Promise<boolean> {
  const s = (await ctx.kv.get<Partial<QueueSettings>>(keys.queue(q))).value;
  return !s || s.drawnFor === round || s.opensAt !== round;
}

/**
 * Waits until the draw of `round` is done or `DRAW_HOLD_MS` has passed (real time: the hold is
 * about the visitor's open request); true when done. Held check-ins share one look a `POLL_MS`.
 */
export function waitForDraw(ctx: QueueContext, q: string, round: number): Promise<boolean> {
  let m = looks.get(ctx);
  if (!m) looks.set(ctx, m = new Map());
  const key = `${q}\u0000${round}`;
  let p = m.get(key);
  if (!p) {
    p = (async () => {
      const until = performance.now() + DRAW_HOLD_MS;
      for (;;) {
        if (await drawn(ctx, q, round)) return true;
        if (performance.now() >= until) return false;
        await sleep(POLL_MS);
      }
    })().finally(() => m.delete(key));
    m.set(key, p);
  }
  return p;
}

/**
 * When a participant whose check-in was held past `DRAW_HOLD_MS` (a draw that takes longer)
 * comes back: the first second with room in the budget from the next one on, counted in KV like
 * every check-in (its record is not written while the draw runs).
 */
export async function retryAfterDraw(
  ctx: QueueContext,
  q: string,
  waiting: number,
): Promise<number> {
  const now = ctx.now();
  const nowSec = Math.floor(now / 1000);
  const periodSec = ctx.periodMs(waiting) / 1000;
  await ctx.checkins.refresh(q, nowSec, periodSec);
  const sec = ctx.checkins.reserve(q, nowSec + 1, nowSec + periodSec);
  const op = ctx.kv.atomic();
  sumCheckins(op, q, [sec]);
  await op.commit();
  return sec * 1000;
}
