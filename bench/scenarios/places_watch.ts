/**
 * What the places scenario reads beside the running server: visitors' records straight from its
 * KV file (when each learns its admission, and every server second those of the silent and the
 * gone, to see when they were admitted, how long their admission was held, and when a leaver's
 * place was dropped), and `/metrics` every second (the most slots held and silent waiters).
 */
import { keys } from "../../lib/store/keys.ts";
import type { SeenRecord, VisitorOutcome } from "./places_plan.ts";
import type { ServerClock } from "./target.ts";
import { pause } from "./target.ts";

/** The metrics fields the watch reads. */
interface Metrics {
  entered: number;
  holding: number;
  silent?: number;
}

/** Reads records and metrics while the scenario runs; `stop()` ends its loop. */
export class PlacesWatch {
  /** Visitors whose records are read every second (away, or gone for good). */
  readonly watched = new Map<string, VisitorOutcome>();
  maxHeld = 0;
  maxSilent = 0;
  #done = false;

  constructor(
    private kv: Deno.Kv,
    private q: string,
    private graceSec: number,
    private clock: ServerClock,
    private metrics: () => Promise<Metrics | null>,
  ) {}

  /** The visitor's record now (null: gone). */
  async record(id: string): Promise<SeenRecord | null> {
    return (await this.kv.get<SeenRecord>(keys.visitor(this.q, id))).value;
  }

  /** Takes what `r` says about `v`: its admission, its hold, when its grace would end. */
  seen(v: VisitorOutcome, r: SeenRecord): void {
    if (r.state !== "waiting" && v.admittedAt === undefined) {
      v.admittedAt = r.admittedAt;
      v.deadlineAtAdmission = r.deadline;
      v.seq = r.seq;
    }
    if (r.state === "admitted") v.holdUntil = r.until;
    if (r.state === "waiting") v.dropDueAt = r.deadline + this.graceSec * 1000;
  }

  /** Reads `v`'s record now and takes it in; returns it. */
  async look(v: VisitorOutcome): Promise<SeenRecord | null> {
    const r = await this.record(v.id);
    if (r) this.seen(v, r);
    return r;
  }

  /** Leavers still in the store. */
  get leaversLeft(): boolean {
    return [...this.watched.values()].some((v) => v.leftAt !== undefined);
  }

  /** The loop: every server second until `stop()`. */
  async run(): Promise<void> {
    while (!this.#done) {
      const now = this.clock.now();
      const ids = [...this.watched.keys()];
      for (let i = 0; i < ids.length; i += 10) {
        const got = await this.kv.getMany<SeenRecord[]>(
          ids.slice(i, i + 10).map((id) => keys.visitor(this.q, id)),
        );
        got.forEach((g, k) => {
          const v = this.watched.get(ids[i + k]);
          if (!v) return; // came back meanwhile
          if (g.value) return this.seen(v, g.value);
          if (v.leftAt !== undefined) {
            v.droppedAt = now;
            this.watched.delete(v.id);
          }
        });
      }
      const m = await this.metrics();
      if (m) {
        this.maxHeld = Math.max(this.maxHeld, m.entered + m.holding);
        this.maxSilent = Math.max(this.maxSilent, m.silent ?? 0);
      }
      await pause(this.clock.msUntil(now + 1000));
    }
  }

  /** Ends the loop after its current pass. */
  stop(): void {
    this.#done = true;
  }
}
