/**
 * What decides whether a join needs a challenge and how hard it is: the queue's join rate (all
 * instances, from the traffic counters the joins already write) and line, and the client's own
 * recent attempts (counted in this instance's memory, so no KV write per attempt).
 */
import type { Clock } from "../clock.ts";
import { TRAFFIC_BUCKET_MS } from "../traffic.ts";
import { keys } from "../store/keys.ts";
import { MAX_DIFFICULTY } from "../challenge/pow_hash.ts";
import type { JoinGuardSettings } from "./settings.ts";

/** Half-life of a client's attempt count: what it did 5 minutes ago counts half. */
export const CLIENT_HALF_LIFE_MS = 5 * 60_000;
/** Each this many recent attempts from one client add the base difficulty once more. */
export const CLIENT_STEP = 25;
/** A client's factor stops here (32 x base: about a minute on a phone per join). */
export const CLIENT_MAX_FACTOR = 32;
/** The load factor (join rate or line over its threshold) stops here. */
export const LOAD_MAX_FACTOR = 8;
/** Clients remembered per generation; two generations are kept (bounded memory). */
const GENERATION = 50_000;

/**
 * Recent attempts per client, decaying with a 5-minute half-life. Memory is bounded: at 50,000
 * clients the map becomes the old generation, still read, and a new one starts.
 */
export class ClientAttempts {
  #now = new Map<string, { n: number; at: number }>();
  #old = new Map<string, { n: number; at: number }>();

  /** The decayed count of `client` at `now`. */
  recent(client: string, now: number): number {
    const e = this.#now.get(client) ?? this.#old.get(client);
    if (!e) return 0;
    return e.n * 2 ** (-Math.max(0, now - e.at) / CLIENT_HALF_LIFE_MS);
  }

  /** Counts one attempt of `client` at `now`; returns the count before it. */
  note(client: string, now: number): number {
    const before = this.recent(client, now);
    if (this.#now.size >= GENERATION && !this.#now.has(client)) {
      this.#old = this.#now;
      this.#now = new Map();
    }
    this.#now.set(client, { n: before + 1, at: now });
    return before;
  }
}

/** The load a queue is under. */
export interface QueueLoad {
  /** Join attempts per minute (all instances' joins, this instance's attempts): the switch. */
  joinsPerMinute: number;
  /**
   * Paid joins per minute (all instances' joins, this instance's joins that passed a check): the
   * price. Attempts that bring no answer cost nothing to send, so they may switch the check on
   * but never raise what everyone pays.
   */
  paidPerMinute: number;
  waiting: number;
}

/** Counts in this second and the one before, as a rate per minute (a burst is seen at once). */
class SecondCounter {
  #m = new Map<string, { sec: number; cur: number; prev: number }>();

  /** Counts one at `now` for `q`. */
  add(q: string, now: number): void {
    const sec = Math.floor(now / 1000);
    const e = this.#m.get(q);
    if (!e) this.#m.set(q, { sec, cur: 1, prev: 0 });
    else if (e.sec === sec) e.cur++;
    else {
      e.prev = e.sec === sec - 1 ? e.cur : 0;
      e.sec = sec;
      e.cur = 1;
    }
  }

  /** Per minute over this second so far and the one before. */
  perMinute(q: string, now: number): number {
    const e = this.#m.get(q);
    const sec = Math.floor(now / 1000);
    if (!e || e.sec < sec - 1) return 0;
    const [cur, prev] = e.sec === sec ? [e.cur, e.prev] : [0, e.cur];
    return (cur + prev) * 60_000 / (1000 + (now - sec * 1000));
  }
}

/**
 * The queue's join rates: the larger of all instances' joins (the traffic counters the joins
 * already write, read at most once a second) and this instance's own count over the last one to
 * two seconds (in memory, so a burst is seen at once): its attempts, refused ones included, for
 * the switch; its joins that passed a check, for the price.
 */
export class JoinRates {
  #cache = new Map<string, { at: number; perMinute: number }>();
  #attempts = new SecondCounter();
  #paid = new SecondCounter();

  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** Counts one join attempt into `q` on this instance. */
  noteAttempt(q: string): void {
    this.#attempts.add(q, this.clock.now());
  }

  /** Counts one join into `q` that passed the check (a solution or a Turnstile answer). */
  notePaid(q: string): void {
    this.#paid.add(q, this.clock.now());
  }

  /** Join attempts per minute into `q` (see the class). */
  async perMinute(q: string): Promise<number> {
    const now = this.clock.now();
    return Math.max(this.#attempts.perMinute(q, now), await this.#shared(q, now));
  }

  /** Paid joins per minute into `q` (see the class). */
  async paidPerMinute(q: string): Promise<number> {
    const now = this.clock.now();
    return Math.max(this.#paid.perMinute(q, now), await this.#shared(q, now));
  }

  /** All instances' joins per minute: the current 15 s bucket and the one before. */
  async #shared(q: string, now: number): Promise<number> {
    const hit = this.#cache.get(q);
    if (hit && now >= hit.at && now - hit.at < 1000) return hit.perMinute;
    const b = Math.floor(now / TRAFFIC_BUCKET_MS);
    const [prev, cur] = await this.kv.getMany<Deno.KvU64[]>([
      keys.traffic(q, b - 1, "in"),
      keys.traffic(q, b, "in"),
    ]);
    const n = Number(prev.value?.value ?? 0n) + Number(cur.value?.value ?? 0n);
    const spanMs = TRAFFIC_BUCKET_MS + (now - b * TRAFFIC_BUCKET_MS);
    const perMinute = n * 60_000 / spanMs;
    this.#cache.set(q, { at: now, perMinute });
    return perMinute;
  }
}

/** How long automatic mode stays on after the last moment a threshold was reached. */
export const AUTO_HOLD_MS = 5 * 60_000;

/**
 * Automatic mode's switch per queue: on while the join rate or the line is at its threshold, and
 * for 5 minutes after, so a flood that slows down once it must solve (and so falls under the
 * threshold) does not switch the check off and get a new free burst.
 */
export class AutoSwitch {
  #until = new Map<string, number>();

  /** True when the queue's challenge is on now: always, never, or (auto) see the class. */
  active(
    q: string,
    s: JoinGuardSettings,
    load: Pick<QueueLoad, "joinsPerMinute" | "waiting">,
    now: number,
  ): boolean {
    if (s.challenge === "on") return true;
    if (s.challenge === "off") return false;
    if (load.joinsPerMinute >= s.autoJoinsPerMinute || load.waiting >= s.autoWaiting) {
      this.#until.set(q, now + AUTO_HOLD_MS);
      return true;
    }
    return now < (this.#until.get(q) ?? 0);
  }
}

/**
 * The difficulty one client gets: the base, times 1 + its recent attempts / 25 (at most 32),
 * times how far the paid join rate or the line is over its threshold (1 to 8). One person
 * joining once pays the base; a script making thousands of joins from one address pays 32 times
 * it per join, and everyone pays more while the queue is flooded with joins that were paid for
 * (a flood of free attempts does not make the crowd pay more).
 */
export function joinDifficulty(s: JoinGuardSettings, load: QueueLoad, recent: number): number {
  const client = Math.min(CLIENT_MAX_FACTOR, 1 + recent / CLIENT_STEP);
  const over = Math.max(load.paidPerMinute / s.autoJoinsPerMinute, load.waiting / s.autoWaiting);
  const loadFactor = Math.min(LOAD_MAX_FACTOR, Math.max(1, over));
  return Math.min(MAX_DIFFICULTY, Math.round(s.difficulty * client * loadFactor));
}
