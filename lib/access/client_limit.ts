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
  at: number;
}

/** The outcome of taking one new place: allowed, or refused with when to try again. */
export type Take = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * Token buckets of new places per client: a client may take `perMinute` places at once (the
 * burst) and `perMinute` more each minute after.
 */
export class ClientJoinLimiter {
  #buckets = new Map<string, Bucket>();

  /** Takes one new place for `client` in `queue` at `now` (ms) under `perMinute` (0: no limit). */
  take(queue: string, client: string, perMinute: number, now: number): Take {
    if (perMinute <= 0) return { ok: true };
    const id = `${queue}\u0000${client}`;
    const rate = perMinute / 60_000;
    let b = this.#buckets.get(id);
    if (b) {
      b.tokens = Math.min(perMinute, b.tokens + Math.max(0, now - b.at) * rate);
      b.at = now;
      // Most recently used last, so eviction drops idle clients first.
      this.#buckets.delete(id);
    } else {
      b = { tokens: perMinute, at: now };
      if (this.#buckets.size >= MAX_BUCKETS) this.#evict();
    }
    this.#buckets.set(id, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000)) };
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
