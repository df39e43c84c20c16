/**
 * The room switches of every queue on one instance: the stored records and the Safety Net's
 * shared state, cached for about a second (the join path, the origin proxy and every `/verify`
 * ask, so asking must cost no KV read per request), and the Safety Net's steps, written with a
 * checked commit so that every instance follows the one stored state.
 *
 * The question the join engine asks is `effectiveMode(q)` (or `modeNow(q)` without an await):
 * `normal`, `queue_all` (never admit at once), `passthrough` (admit at once, whatever the line,
 * rate or capacity) or `reject` (no join at all).
 */
import type { Clock } from "../clock.ts";
import { log } from "../log.ts";
import { deleteListed } from "../store/delete.ts";
import { keys } from "../store/keys.ts";
import {
  applyRoomSwitch,
  asRoomSwitch,
  type EffectiveRoomMode,
  type RoomSwitchInput,
  type RoomSwitchRecord,
} from "./modes.ts";
import {
  initialSafetyNet,
  type SafetyNetSample,
  type SafetyNetState,
  stepSafetyNet,
} from "./safety_net.ts";

/** How long an instance trusts its copy of a queue's switch. */
export const ROOM_CACHE_MS = 1000;

/** A queue's switch as read: the record and, for `auto`, the shared state. */
export interface RoomSwitchState {
  record: RoomSwitchRecord;
  auto: SafetyNetState | null;
  effective: EffectiveRoomMode;
}

/** Reads the figures the Safety Net looks at (app.ts wires the engine's counts in). */
export type SafetyNetSampler = (q: string) => Promise<SafetyNetSample>;

/** The effective mode of a record and its Safety Net state. */
export function effectiveOf(r: RoomSwitchRecord, auto: SafetyNetState | null): EffectiveRoomMode {
  if (r.mode !== "auto") return r.mode;
  return auto?.queueing ? "normal" : "passthrough";
}

/** Reads, caches, writes and steps the room switches of one instance. */
export class RoomSwitches {
  #cache = new Map<string, { state: RoomSwitchState; at: number }>();
  #loading = new Map<string, Promise<RoomSwitchState>>();
  #stepped = new Map<string, number>();
  #stepping = new Map<string, Promise<void>>();

  constructor(
    private readonly kv: Deno.Kv,
    private readonly clock: Clock,
    /** The Safety Net's figures; without it `auto` stays as last stored. */
    public sampler: SafetyNetSampler | null = null,
  ) {}

  /**
   * How many wait in the line of `q` as this instance last saw it (0 when unknown). A calm
   * Safety Net lets newcomers through only while nobody waits: a line left from a surge drains
   * first, in its order, rather than being overtaken.
   */
  lineWaiting: (q: string) => number = () => 0;

  /**
   * Whether `q` is closed to admission now as this instance last read it (paused, health-paused,
   * before its opening time or its pre-queue's draw). A calm Safety Net let everyone in through a
   * pause, an unhealthy origin's throttle and a scheduled opening: its passthrough is automatic,
   * and yields to those; an operator's explicit `passthrough` does not.
   */
  lineClosed: (q: string) => boolean = () => false;

  /** `state` with a calm Safety Net's passthrough held back while a line is left or closed. */
  #withLine(q: string, state: RoomSwitchState): RoomSwitchState {
    if (state.record.mode !== "auto" || state.effective !== "passthrough") return state;
    const hold = this.lineWaiting(q) > 0 || this.lineClosed(q);
    return hold ? { ...state, effective: "normal" } : state;
  }

  /** The cached effective mode while fresh, else null (the hot paths' synchronous look). */
  modeNow(q: string): EffectiveRoomMode | null {
    const hit = this.#cache.get(q);
    return hit && this.clock.now() - hit.at < ROOM_CACHE_MS
      ? this.#withLine(q, hit.state).effective
      : null;
  }

  /** The last switch known for `q` however old (an outage keeps it), or null before any read. */
  lastKnown(q: string): RoomSwitchState | null {
    return this.#cache.get(q)?.state ?? null;
  }

  /** The effective mode of `q` now: `normal`, `queue_all`, `passthrough` or `reject`. */
  async effectiveMode(q: string): Promise<EffectiveRoomMode> {
    return this.modeNow(q) ?? (await this.current(q)).effective;
  }

  /**
   * The switch of `q`: from the cache, or one KV read shared by concurrent callers. A store that
   * cannot be read keeps the last known switch (an outage must not open or close a room).
   */
  async current(q: string): Promise<RoomSwitchState> {
    return this.#withLine(q, await this.#current(q));
  }

  #current(q: string): Promise<RoomSwitchState> {
    const hit = this.#cache.get(q);
    if (hit && this.clock.now() - hit.at < ROOM_CACHE_MS) return Promise.resolve(hit.state);
    let p = this.#loading.get(q);
    if (!p) {
      p = this.#read(q).then((state) => {
        this.#cache.set(q, { state, at: this.clock.now() });
        return state;
      }, (e) => {
        if (hit) return hit.state;
        throw e;
      }).finally(() => this.#loading.delete(q));
      this.#loading.set(q, p);
    }
    return p;
  }

  async #read(q: string): Promise<RoomSwitchState> {
    const [rec, auto] = await this.kv.getMany<[unknown, SafetyNetState]>([
      keys.roomSwitch(q),
      keys.roomAuto(q),
    ]);
    const record = asRoomSwitch(rec.value);
    const a = record.mode === "auto" ? auto.value ?? initialSafetyNet(record.updatedAt) : null;
    return { record, auto: a, effective: effectiveOf(record, a) };
  }

  /**
   * Stores an operator's switch (400 `bad_request` and nothing stored when it is not usable).
   * Turning `auto` on starts the Safety Net calm, letting everyone through until a threshold is
   * crossed; it returns the state as stored.
   */
  async save(q: string, input: RoomSwitchInput): Promise<RoomSwitchState> {
    const now = this.clock.now();
    const prev = asRoomSwitch((await this.kv.get(keys.roomSwitch(q))).value);
    const next = applyRoomSwitch(prev, input, now);
    const op = this.kv.atomic().set(keys.roomSwitch(q), next);
    if (next.mode === "auto" && prev.mode !== "auto") {
      op.set(keys.roomAuto(q), initialSafetyNet(now));
    }
    if (next.mode !== "auto") op.delete(keys.roomAuto(q));
    await op.commit();
    this.#cache.delete(q);
    return await this.current(q);
  }

  /**
   * Removes the switch, Safety Net state and passthrough counts of a deleted queue (and its path
   * rules, kept beside them), so a queue made again under the name starts normal.
   */
  async forget(q: string): Promise<void> {
    await this.kv.atomic().delete(keys.roomSwitch(q)).delete(keys.roomAuto(q))
      .delete(keys.pathRules(q)).commit();
    await deleteListed(this.kv, { prefix: keys.roomPassedPrefix(q) });
    this.#cache.delete(q);
  }

  /** Forgets the cached switch of `q` (after a write elsewhere on this instance). */
  invalidate(q: string): void {
    this.#cache.delete(q);
  }

  /**
   * Steps the Safety Net of `q` at most once a second on this instance (a no-op for other
   * modes); any caller may: the stored state decides, and a step that lost to another
   * instance's is dropped.
   */
  maybeStep(q: string): Promise<void> {
    const running = this.#stepping.get(q);
    if (running) return running;
    const sec = Math.floor(this.clock.now() / 1000);
    if ((this.#stepped.get(q) ?? -1) >= sec || !this.sampler) return Promise.resolve();
    // A queue known not to be on auto costs nothing here (its copy is refreshed by its readers).
    const known = this.#cache.get(q);
    if (known && known.state.record.mode !== "auto" && this.modeNow(q) !== null) {
      return Promise.resolve();
    }
    this.#stepped.set(q, sec);
    const p = this.step(q).then(
      () => {},
      (e) => log("warn", "safety net step failed", { queue: q, error: String(e) }),
    ).finally(() => this.#stepping.delete(q));
    this.#stepping.set(q, p);
    return p;
  }

  /** One step of the Safety Net of `q` with a fresh sample; true when its state was written. */
  async step(q: string): Promise<boolean> {
    if (!this.sampler) return false;
    const [rec, auto] = await this.kv.getMany<[unknown, SafetyNetState]>([
      keys.roomSwitch(q),
      keys.roomAuto(q),
    ]);
    const record = asRoomSwitch(rec.value);
    if (record.mode !== "auto" || !record.safetyNet) return false;
    const sample = await this.sampler(q);
    const now = this.clock.now();
    const before = auto.value ?? initialSafetyNet(record.updatedAt);
    const after = stepSafetyNet(before, sample, record.safetyNet, now);
    const state = { record, auto: after, effective: effectiveOf(record, after) };
    // Only a change is written: a calm room costs no commit a second.
    if (after.queueing === before.queueing && after.calmSince === before.calmSince) {
      this.#cache.set(q, { state, at: now });
      return false;
    }
    const ok = (await this.kv.atomic().check(rec, auto).set(keys.roomAuto(q), after).commit()).ok;
    if (!ok) return false;
    if (after.queueing !== before.queueing) {
      // Loud on purpose: an operator wants to see in the log when the Safety Net engaged.
      log("warn", after.queueing ? "safety net engaged: queueing" : "safety net released", {
        queue: q,
        joinsPerMinute: sample.joinsPerMinute,
        holding: sample.holding,
      });
    }
    this.#cache.set(q, { state, at: now });
    return true;
  }
}
