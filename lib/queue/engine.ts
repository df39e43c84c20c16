import type { HealthSnapshot } from "../access/health_config.ts";
import type { GuardCounts } from "../guard/stats.ts";
import { log } from "../log.ts";
import { type QueueMetrics, QueueMetricsReader } from "../metrics/queue.ts";
import { noteStatusNow, observeStatus, observeTick } from "../metrics/spans.ts";
import { BadRequestError, ConflictError, StoreBusyError } from "../errors.ts";
import { retryCommit, STARTUP_DEADLINE_MS } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { SecondCache } from "../second_cache.ts";
import { deleteQueue, type QueueDeleted, type QueueTombstone } from "./remove.ts";
import type { TicketClaims } from "../tokens.ts";
import { forceAdmit } from "./admit.ts";
import { tick, type TickResult } from "./tick.ts";
import { sequence } from "./sequencer.ts";
import { defaultSettings, QueueContext, type QueueDeps } from "./context.ts";
import { join, type JoinGuardPass, type JoinOutcome } from "./join.ts";
import { JoinWriter } from "./join_write.ts";
import type { Mode, QueueSettings, Visitor } from "./types.ts";
import * as visitor from "./visitor.ts";
import { enter as enterAdmitted, leave as leaveQueue } from "./leave_enter.ts";
import type { DrawOptions } from "./draw.ts";
import { DrawSchedule } from "./draw_schedule.ts";
import { placeOf } from "./placement.ts";
import { checkPrequeueChange } from "./prequeue.ts";
import { isShadowId, shadowEnter, shadowJoin, shadowOutcome, shadowView } from "../guard/shadow.ts";

// Routes and the admin bundle name the metrics' type from here.
export type { QueueMetrics };

/** The admission engine: queues, visitors, admission ticks and operator controls. No HTTP here. */
export class Engine {
  readonly ctx: QueueContext;
  #writer: JoinWriter;
  #draws: DrawSchedule;
  #lastTick = new Map<string, number>();
  #tickAgain = new Set<string>();
  /** The seconds of the ticks running, by queue. */
  #ticking = new Map<string, Set<number>>();
  /** Queue names (`queueNames`; proxy checks ask per request); made or deleted here: at once. */
  #names = new SecondCache<string[]>(() => this.ctx.now(), async () => {
    const out: string[] = [];
    for await (const e of this.ctx.kv.list({ prefix: keys.queues() })) out.push(e.key[1] as string);
    return out.sort();
  });
  /** The operator metrics, with their caches (lib/metrics/queue.ts). */
  #metrics = new QueueMetricsReader(this);

  constructor(deps: QueueDeps, readonly autoTick = true) {
    this.ctx = new QueueContext(deps);
    this.#writer = new JoinWriter(this.ctx);
    this.#draws = new DrawSchedule(this.ctx, autoTick, () => this.drawOptions);
  }

  /**
   * Creates the named queues that do not exist yet (with defaults from the config). A deleted
   * queue's name is skipped until it is free again (see remove.ts); returns the names skipped.
   */
  async ensureQueues(names: string[]): Promise<string[]> {
    const skipped: string[] = [];
    for (const name of names) {
      const now = this.ctx.now();
      // A lost check means the queue exists already (maybe made by another instance just now).
      await retryCommit(
        async () => {
          const tomb = await this.ctx.kv.get<QueueTombstone>(keys.queueTombstone(name));
          if (tomb.value && (tomb.value.cleaning || tomb.value.reusableAt > now)) {
            skipped.push(name);
            return true;
          }
          // A sum of enters found here is an earlier queue's of this name, left by a release
          // whose cleanup knew no such sum (0.7.1): taken in, it would count strangers as entered.
          await this.ctx.kv.atomic().check({ key: keys.queue(name), versionstamp: null }, tomb)
            .set(keys.queue(name), defaultSettings(name, this.ctx.config, now))
            .delete(keys.queueTombstone(name)).delete(keys.entersPending(name)).commit();
          return true;
        },
        "create queue",
        { deadlineMs: STARTUP_DEADLINE_MS },
      );
    }
    this.#names.forget();
    return skipped;
  }

  /** Deletes a queue (see remove.ts); `force` also removes waiting visitors. */
  async deleteQueue(q: string, force = false): Promise<QueueDeleted> {
    try {
      return await deleteQueue(this.ctx, q, { force, names: await this.queueNames() });
    } finally {
      this.#names.forget(); // also when the cleanup was cut short: the queue itself is gone
    }
  }

  /** Names of all queues, sorted; one list about once a second, shared by its callers. */
  queueNames(): Promise<string[]> {
    return this.#names.get("");
  }

  /** The queue meant when none is named: `default`, else the only queue; null when ambiguous. */
  async defaultQueue(): Promise<string | null> {
    const names = await this.queueNames();
    if (names.includes("default")) return "default";
    return names.length === 1 ? names[0] : null;
  }

  /**
   * Joins or resumes; `guard` is what `checkJoinGuards` passed (records for the commit);
   * `beforeNewPlace` runs only when a new place is about to be taken (the per-client limit).
   */
  join(
    q: string,
    ticket: TicketClaims | null,
    visitorId?: string,
    guard?: JoinGuardPass,
    beforeNewPlace?: () => Promise<void>,
  ): Promise<JoinOutcome> {
    // A shadow visitor resuming by its ticket stays in the shadow line (see shadow.ts).
    if (this.isShadow(q, ticket)) return shadowOutcome(this.ctx, q, ticket!);
    return join(this.ctx, this.#writer, q, ticket, visitorId, guard, beforeNewPlace);
  }
  /** A new place in `q`'s shadow line (never admitted; nothing written; see shadow.ts). */
  shadowJoin(q: string): Promise<JoinOutcome> {
    return shadowJoin(this.ctx, q);
  }
  /** True when `ticket` is a shadow visitor's ticket for `q` (its id's tag verifies). */
  isShadow(q: string, ticket: Readonly<TicketClaims> | null, visitorId?: string): boolean {
    return ticket !== null && ticket.queue === q &&
      (visitorId === undefined || visitorId === ticket.sub) &&
      isShadowId(this.ctx.signer, ticket.sub);
  }
  status(q: string, ticket: TicketClaims | null, visitorId?: string) {
    if (this.isShadow(q, ticket, visitorId)) return shadowOutcome(this.ctx, q, ticket!);
    return observeStatus(q, () => visitor.status(this.ctx, q, ticket, visitorId));
  }
  /** `status` without an await when the answer is in memory; undefined otherwise. */
  statusNow(q: string, ticket: Readonly<TicketClaims>, visitorId?: string) {
    const v = this.ctx.freshView(q);
    // Only while the queue's shadow line is on (the tag costs a MAC); otherwise a shadow ticket
    // goes the awaited way, which always checks it.
    if (v?.settings.joinGuards.shadowLine && this.isShadow(q, ticket, visitorId)) {
      const branding = this.ctx.freshBranding(q);
      if (!branding || ticket.nextCheckAt <= this.ctx.now()) return undefined;
      return { view: shadowView(this.ctx, q, ticket, v, branding) };
    }
    const out = visitor.statusNow(this.ctx, q, ticket, visitorId);
    if (out) noteStatusNow(q, out.view.status);
    return out;
  }
  heartbeat(q: string, ticket: TicketClaims | null, visitorId: string) {
    if (this.isShadow(q, ticket, visitorId)) return shadowOutcome(this.ctx, q, ticket!);
    return visitor.heartbeat(this.ctx, q, ticket, visitorId);
  }
  enter(q: string, ticket: TicketClaims | null, visitorId: string) {
    if (this.isShadow(q, ticket, visitorId)) shadowEnter(visitorId);
    return enterAdmitted(this.ctx, q, ticket, visitorId);
  }
  leave(q: string, ticket: TicketClaims | null, visitorId: string) {
    return leaveQueue(this.ctx, q, ticket, visitorId);
  }

  /**
   * Reads a visitor record, as the opening draw placed it (for tests, tools and the doctor); null
   * once the visitor left.
   */
  async visitor(q: string, id: string): Promise<Visitor | null> {
    const v = (await visitor.readVisitor(this.ctx.kv, q, id)).value;
    return v && (await placeOf(this.ctx.kv, q, v)).v;
  }

  /** Runs one admission tick on `q` (a no-op when another instance ran this second). */
  async tick(q: string): Promise<TickResult> {
    const out = await observeTick(q, () => tick(this.ctx, q));
    // The pre-queue's round and draw run after the tick, in the background: a draw of many takes
    // seconds. (Not beside it: a view loaded meanwhile could be cached with pre-tick counts.)
    this.#draws.soon(q);
    // Observers (the depth webhook) run after the tick, never inside it.
    if (out.ran) this.onTickRan?.(q, out);
    return out;
  }

  /** Called after each tick this instance ran (the depth webhook, the simulation). */
  onTickRan?: (q: string, result: TickResult) => void;

  /** The join guards' counts of the last hour for the metrics (app.ts wires them in). */
  guardCounts?: (q: string) => Promise<GuardCounts>;

  /** The origin health snapshot for the metrics (app.ts wires the health monitor in). */
  healthSnapshot?: () => Promise<HealthSnapshot>;

  /**
   * Starts a tick for `q` in the background unless this instance tried one this second: on each
   * visitor request, and from the per-second `timer` (which leaves a queue found idle for 5 s).
   */
  maybeTick(q: string, timer = false): void {
    if (!this.autoTick) return;
    const sec = Math.floor(this.ctx.now() / 1000);
    if ((this.#lastTick.get(q) ?? -1) >= sec) return;
    if (timer && (this.ctx.idleUntil.get(q) ?? 0) > sec) return;
    const running = this.#ticking.get(q) ?? new Set<number>();
    if (running.has(sec) || running.size >= 2) {
      // This second's tick runs already, or two do: the next starts when one ends.
      this.#tickAgain.add(q);
      return;
    }
    // An earlier second's tick may still run (a slow store, or waiting out its commits): this
    // second's runs beside it, so a second is not left without a tick in every instance.
    this.#lastTick.set(q, sec);
    running.add(sec);
    this.#ticking.set(q, running);
    // A store too slow for one tick is a warning: the next second's tick goes on from there.
    const level = (e: unknown) => e instanceof StoreBusyError ? "warn" : "error";
    this.tick(q).catch((e) => log(level(e), "tick failed", { queue: q, error: String(e) }))
      .finally(() => {
        running.delete(sec);
        if (running.size === 0 && this.#ticking.get(q) === running) this.#ticking.delete(q);
        if (this.#tickAgain.delete(q)) this.maybeTick(q);
      });
  }

  /**
   * Publishes the pre-queue's commitment when its window opens and runs the opening draw at
   * `opensAt` (draw_schedule.ts); resolves when that step is done.
   */
  drawIfDue(q: string): Promise<unknown> {
    return this.#draws.ifDue(q);
  }
  /** Test hooks of the draw (see `DrawOptions`). */
  drawOptions: DrawOptions = {};

  /**
   * Numbers the joins that wait for it into the line now (what each tick does first; see
   * sequencer.ts). Safe beside a tick: every numbering checks the counts it read.
   */
  sequence(q: string): Promise<number> {
    return sequence(this.ctx, q);
  }

  /** Operator force-admit; returns how many were really admitted. */
  async admit(q: string, count: number): Promise<number> {
    await this.ctx.view(q);
    // Everyone who joined so far is numbered first: the admission goes by the whole line.
    await this.sequence(q);
    return await forceAdmit(this.ctx, q, count);
  }

  /** The settings of `q` (cached for at most a second; 404 `unknown_queue` when missing). */
  async settings(q: string): Promise<QueueSettings> {
    return (await this.ctx.view(q)).settings;
  }

  /** Changes settings of `q` with a checked write; `f` may throw to refuse. */
  async updateSettings(q: string, f: (s: QueueSettings) => void): Promise<QueueSettings> {
    await this.ctx.view(q);
    const out = await retryCommit(async () => {
      const { settings: s, entry, guardsEntry } = await this.ctx.readSettingsEntry(q);
      if (!s) return null;
      f(s);
      // The former guards record is checked too: a save there meanwhile is not overwritten.
      const op = this.ctx.kv.atomic().check(entry, guardsEntry).set(keys.queue(q), s);
      return (await op.commit()).ok ? s : null;
    }, "settings");
    this.ctx.invalidate(q);
    return out;
  }

  setMode(q: string, mode: Mode) {
    return this.updateSettings(q, (s) => void (s.mode = mode));
  }
  /** Silent pause or resume; `onPauseChanged` hears of a real change (not of a repeat). */
  async setPaused(q: string, paused: boolean): Promise<QueueSettings> {
    let changed = false;
    const out = await this.updateSettings(q, (s) => {
      changed = s.paused !== paused;
      s.paused = paused;
    });
    if (changed) this.onPauseChanged?.(q, paused);
    return out;
  }

  /** Called after a pause or resume that changed the queue's state (the `pause` webhook). */
  onPauseChanged?: (q: string, paused: boolean) => void;
  /** Sets the opening time; fixed while a pre-queue's commitment is out (409 `draw_committed`). */
  setOpensAt(q: string, opensAt: number | null) {
    return this.updateSettings(q, (s) => {
      checkPrequeueChange(s, { opensAt, prequeueMinutes: s.prequeueMinutes }, this.ctx.now());
      s.opensAt = opensAt;
    });
  }
  /** Turns the pre-queue on (window in minutes before `opensAt`) or off (null). */
  setPrequeue(q: string, minutes: number | null) {
    return this.updateSettings(q, (s) => {
      checkPrequeueChange(s, { opensAt: s.opensAt, prequeueMinutes: minutes }, this.ctx.now());
      s.prequeueMinutes = minutes;
    });
  }
  setRate(q: string, admitPerSecond: number | null) {
    return this.updateSettings(q, (s) => void (s.admitPerSecond = admitPerSecond));
  }
  setCapacity(q: string, capacity: number) {
    return this.updateSettings(q, (s) => void (s.capacity = capacity));
  }
  setHealthPaused(q: string, healthPaused: boolean) {
    return this.updateSettings(q, (s) => void (s.healthPaused = healthPaused));
  }
  /** Sets the waiting-row cap; refuses a stale `previous` value with 409 `conflict`. */
  setMaxWaiting(q: string, max: number, previous: number) {
    return this.updateSettings(q, (s) => {
      if (s.maxWaitingVisitors !== previous) {
        throw new ConflictError(
          "conflict",
          `previousMaxWaitingVisitors is ${previous} but the current value is ${s.maxWaitingVisitors}`,
        );
      }
      if (max < 1 || max > 50_000_000) throw new BadRequestError("maxWaitingVisitors out of range");
      s.maxWaitingVisitors = max;
    });
  }

  /** Operator metrics of every queue, read side by side. */
  async allMetrics(): Promise<QueueMetrics[]> {
    return await Promise.all((await this.queueNames()).map((q) => this.metrics(q)));
  }

  /** Operator metrics of one queue (lib/metrics/queue.ts). */
  metrics(q: string): Promise<QueueMetrics> {
    return this.#metrics.of(q);
  }
}
