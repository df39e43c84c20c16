/**
 * Which connections to close, and when: the bookkeeping of lib/http/serve.ts, apart from sockets
 * so it can be tested with a fake clock. A connection waits for its first request head (header
 * timeout), then is busy while a request is in flight, then waits idle for the next (idle
 * timeout). Each waiting set keeps insertion order, which is deadline order (one timeout per
 * set), so a sweep stops at the first connection not yet due, and the connection that has waited
 * longest is found at the head of one of the two sets. A request costs two set operations, no
 * timer (a timer per request cost a third of the throughput of a trivial handler).
 */

/** Why a connection was closed by us (the `reason` label of the closed-connections counter). */
export type CloseReason = "cap" | "refused" | "descriptors" | "header_timeout" | "idle_timeout";

/** One tracked connection. */
export interface Slot {
  /** Closes the connection at once (no request is in flight when we do). */
  readonly abort: () => void;
  inFlight: number;
  /** When it began waiting (for its first request head, or idle after a response). */
  since: number;
  closed: boolean;
}

/** Bounds of the pool. */
export interface PoolBounds {
  maxConnections: number;
  headerTimeoutMs: number;
  idleTimeoutMs: number;
}

/** The open connections of one server. */
export class ConnectionPool {
  /** Waiting for a first request head, oldest first. */
  #fresh = new Set<Slot>();
  /** Idle between requests, longest idle first. */
  #idle = new Set<Slot>();
  /** Open and not being closed (what the cap counts). */
  live = 0;

  constructor(
    readonly bounds: PoolBounds,
    private now: () => number,
    private onClose: (reason: CloseReason) => void,
  ) {}

  /**
   * Takes a new connection in: at the cap, the connection that has waited longest for a request
   * is closed to make room; with every connection busy, null (the caller closes the new one).
   */
  admit(abort: () => void): Slot | null {
    if (this.live >= this.bounds.maxConnections && !this.shedOldest("cap")) {
      this.onClose("refused");
      return null;
    }
    const s: Slot = { abort, inFlight: 0, since: this.now(), closed: false };
    this.live++;
    this.#fresh.add(s);
    return s;
  }

  /** A request head arrived on `s`. */
  started(s: Slot): void {
    if (s.inFlight++ === 0) {
      this.#fresh.delete(s);
      this.#idle.delete(s);
    }
  }

  /** A response on `s` is done (sent or failed). */
  ended(s: Slot): void {
    if (--s.inFlight === 0 && !s.closed) {
      s.since = this.now();
      this.#idle.add(s);
    }
  }

  /** The connection `s` is gone (closed by either side). */
  gone(s: Slot): void {
    if (s.closed) return;
    s.closed = true;
    this.live--;
    this.#fresh.delete(s);
    this.#idle.delete(s);
  }

  /** Closes `s` for `reason`. */
  close(s: Slot, reason: CloseReason): void {
    if (s.closed) return;
    this.gone(s);
    this.onClose(reason);
    s.abort();
  }

  /** Closes the connection that has waited longest for a request; false when none waits. */
  shedOldest(reason: CloseReason): boolean {
    const f = first(this.#fresh), i = first(this.#idle);
    const oldest = f && i ? (f.since <= i.since ? f : i) : f ?? i;
    if (!oldest) return false;
    this.close(oldest, reason);
    return true;
  }

  /** Closes every connection past its header or idle timeout; returns how many. */
  sweep(): number {
    const now = this.now();
    let n = 0;
    for (
      const [set, ms, reason] of [
        [this.#fresh, this.bounds.headerTimeoutMs, "header_timeout"],
        [this.#idle, this.bounds.idleTimeoutMs, "idle_timeout"],
      ] as const
    ) {
      for (const s of set) {
        if (now - s.since < ms) break;
        this.close(s, reason);
        n++;
      }
    }
    return n;
  }

  /** Connections waiting for a request (fresh and idle). */
  get waiting(): number {
    return this.#fresh.size + this.#idle.size;
  }
}

function first(set: Set<Slot>): Slot | undefined {
  for (const s of set) return s;
  return undefined;
}
