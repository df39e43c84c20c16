/**
 * Per-client limits on new places: a token bucket per (queue, client key) kept in this instance's
 * memory, so a join costs no KV write for it. With N instances a client gets at most N times the
 * limit (each instance counts what it sees); a load balancer that keeps a client on one instance
 * keeps it at the limit.
 */

/** Most new places a minute the per-queue setting allows (0 turns the limit off). */
export const MAX_JOINS_PER_CLIENT_PER_MINUTE = 100_000;
/** Most buckets kept per instance: past it, the fullest (least recently used) ones go first. */
const MAX_BUCKETS = 200_000;

interface Bucket {
  tokens: number;
  /** The hourly allowance left (see `HOURLY_FACTOR`). */
  hourly: number;
  at: number;
  /** Attempts refused in the minute `overMinute` (unix ms / 60,000). */
  over: number;
  overMinute: number;
}

/**
 * Over an hour a client may take at most this many times its per-minute allowance: the minute
 * bucket alone lets one address keep adding places for as long as it runs (it would fill a line
 * of 2,000 in about half an hour), while a crowd behind one address (200 people over five
 * minutes) stays far inside it.
 */
export const HOURLY_FACTOR = 10;

/** The outcome of taking one new place: allowed, or refused with when to try again. */
export type Take = { ok: true } | {
  ok: false;
  retryAfterSeconds: number;
  /** Attempts this minute, refused ones included, over the per-minute allowance (>= 1). */
  overFactor: number;
};

/**
 * Token buckets of new places per client: a client may take `perMinute` places at once (the
 * burst) and `perMinute` more each minute after, and at most `HOURLY_FACTOR` times `perMinute`
 * over an hour.
 */
export class ClientJoinLimiter {
  #buckets = new Map<string, Bucket>();

  /** Takes one new place for `client` in `queue` at `now` (ms) under `perMinute` (0: no limit). */
  take(queue: string, client: string, perMinute: number, now: number): Take {
    if (perMinute <= 0) return { ok: true };
    const id = `${queue}\u0000${client}`;
    const rate = perMinute / 60_000;
    const hourlyMax = perMinute * HOURLY_FACTOR;
    const hourlyRate = hourlyMax / 3_600_000;
    let b = this.#buckets.get(id);
    if (b) {
      const dt = Math.max(0, now - b.at);
      b.tokens = Math.min(perMinute, b.tokens + dt * rate);
      b.hourly = Math.min(hourlyMax, b.hourly + dt * hourlyRate);
      b.at = now;
      // Most recently used last, so eviction drops idle clients first.
      this.#buckets.delete(id);
    } else {
      b = { tokens: perMinute, hourly: hourlyMax, at: now, over: 0, overMinute: 0 };
      if (this.#buckets.size >= MAX_BUCKETS) this.#evict();
    }
    this.#buckets.set(id, b);
    if (b.tokens >= 1 && b.hourly >= 1) {
      b.tokens -= 1;
      b.hourly -= 1;
      return { ok: true };
    }
    const minute = Math.floor(now / 60_000);
    if (b.overMinute !== minute) b.over = 0, b.overMinute = minute;
    b.over++;
    const waitMs = Math.max(
      b.tokens >= 1 ? 0 : (1 - b.tokens) / rate,
      b.hourly >= 1 ? 0 : (1 - b.hourly) / hourlyRate,
    );
    return {
      ok: false,
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      overFactor: (perMinute + b.over) / perMinute,
    };
  }

  /** Number of buckets held (tests and metrics). */
  get size(): number {
    return this.#buckets.size;
  }

  /** Drops the least recently used tenth: a client it forgets starts again with a full bucket. */
  #evict(): void {
    let n = Math.ceil(MAX_BUCKETS / 10);
    for (const id of this.#buckets.keys()) {
      this.#buckets.delete(id);
      if (--n <= 0) break;
    }
  }
}
