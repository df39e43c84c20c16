/**
 * When the pre-queue's steps run in this instance: its commitment is published when its window
 * opens, and its opening draw runs at `opensAt`, once every join of the window is numbered. Each
 * tick asks for them in the background (a draw of many takes seconds); in a long-lived process a
 * timer also starts the draw at `opensAt` itself. One step at a time per queue.
 */
import { log } from "../log.ts";
import type { QueueContext } from "./context.ts";
import { type DrawOptions, runDraw } from "./draw.ts";
import { settleRoundNow } from "./prequeue.ts";
import { prequeuePhase } from "./prequeue_phase.ts";
import { sequence } from "./sequencer.ts";

/** The pre-queue's steps of each queue of one engine (see the file's header). */
export class DrawSchedule {
  #running = new Map<string, Promise<unknown>>();
  #again = new Map<string, Promise<unknown>>();
  #timers = new Map<string, number>();

  /** `timers`: start the draw at `opensAt` by a timer (ticks on); `options`: the draw's hooks. */
  constructor(
    private ctx: QueueContext,
    private timers: boolean,
    private options: () => DrawOptions,
  ) {}

  /** Runs the step of `q` that is due, if any; resolves when that step is done. */
  ifDue(q: string): Promise<unknown> {
    const running = this.#running.get(q);
    // A step under way may be an earlier phase's (a tick's, in the background, just before the
    // opening): this call runs once more after it, shared by the calls meanwhile.
    if (running) {
      let again = this.#again.get(q);
      if (!again) {
        again = running.catch(() => {}).then(() => {
          this.#again.delete(q);
          return this.ifDue(q);
        });
        this.#again.set(q, again);
      }
      return again;
    }
    const p = (async () => {
      // Read without filling the view cache (this runs beside visitor requests).
      const settings = this.ctx.freshView(q)?.settings ?? await this.ctx.readSettings(q);
      if (!settings) return;
      const phase = prequeuePhase(settings, this.ctx.now());
      if (phase === "window") {
        await settleRoundNow(this.ctx, q);
        this.#atOpening(q, settings.opensAt!);
      }
      if (phase === "drawing") {
        // Every join of the window is numbered before the window closes for the draw.
        await sequence(this.ctx, q, 2000);
        await runDraw(this.ctx, q, this.options());
      }
    })().finally(() => this.#running.delete(q));
    this.#running.set(q, p);
    return p;
  }

  /** `ifDue` in the background: a failure is logged. */
  soon(q: string): void {
    this.ifDue(q).catch((e) => log("error", "draw failed", { queue: q, error: String(e) }));
  }

  /**
   * Starts the draw at `opensAt` rather than at the next tick, which may come up to a second
   * later. The timer does not keep the process alive.
   */
  #atOpening(q: string, opensAt: number): void {
    const wait = opensAt - this.ctx.now();
    if (!this.timers || wait > 2000 || this.#timers.get(q) === opensAt) return;
    this.#timers.set(q, opensAt);
    Deno.unrefTimer(setTimeout(() => this.soon(q), Math.max(0, wait) + 5));
  }
}
