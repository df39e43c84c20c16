/**
 * Sessions the site ended (released), as every instance knows them. A release writes one record
 * keyed by the time it happened, kept until the released token would have expired anyway; each
 * instance lists the records newer than its last look at most once a second, on the first token
 * check of the second, which waits for that look. So a released token stops verifying on every
 * instance within a second, and verifying costs no read while nothing was released: one list per
 * instance per second, whatever the number of visitors.
 */
import { keys } from "../store/keys.ts";

/** What a release record holds. */
export interface EndedRecord {
  /** Tokens of this visitor and queue issued at or before this second are refused. */
  iat: number;
  /** The newest such token's expiry (unix s): the record is of no use after it. */
  exp: number;
}

/**
 * How far back each look starts before the previous one: a release committed by another instance
 * whose clock is behind, or whose commit took a while, is still found.
 */
const OVERLAP_MS = 10_000;

/** The released sessions this instance knows of. */
export class EndedSessions {
  #ended = new Map<string, EndedRecord>();
  #lookedAt = -Infinity;
  #from = 0;
  #look: Promise<void> | null = null;

  constructor(
    private kv: Deno.Kv,
    private now: () => number,
    private ttlSeconds: number,
  ) {}

  /** Brings the list up to date when its last look is a second old or more. */
  fresh(): Promise<void> | undefined {
    const now = this.now();
    if (now - this.#lookedAt < 1000 && now >= this.#lookedAt) return undefined;
    this.#look ??= this.#list(now).finally(() => (this.#look = null));
    return this.#look;
  }

  async #list(now: number): Promise<void> {
    const from = this.#lookedAt === -Infinity ? now - this.ttlSeconds * 1000 : this.#from;
    const prefix = keys.sessionEndedPrefix();
    for await (
      const e of this.kv.list<EndedRecord>({ prefix, start: [...prefix, from] })
    ) this.note(e.key[2] as string, e.key[3] as string, e.value);
    this.#lookedAt = now;
    this.#from = now - OVERLAP_MS;
    // Records of tokens expired by now are forgotten (the signature check refuses those).
    for (const [k, v] of this.#ended) if (v.exp * 1000 <= now) this.#ended.delete(k);
  }

  /** Notes an ended session (this instance's own release, or one listed). */
  note(q: string, sub: string, r: EndedRecord): void {
    const k = `${q}\0${sub}`;
    const had = this.#ended.get(k);
    if (!had || had.iat < r.iat || had.exp < r.exp) {
      this.#ended.set(k, {
        iat: Math.max(had?.iat ?? 0, r.iat),
        exp: Math.max(had?.exp ?? 0, r.exp),
      });
    }
  }

  /** True when a token of `sub` in `q` issued at `iat` belongs to a session the site ended. */
  ended(q: string, sub: string, iat: number): boolean {
    const r = this.#ended.size ? this.#ended.get(`${q}\0${sub}`) : undefined;
    return r !== undefined && iat <= r.iat;
  }
}

/** Writes the release record of `sub` in `q` into `op` (kept until the token's expiry). */
export function putEnded(
  op: Deno.AtomicOperation,
  q: string,
  sub: string,
  r: EndedRecord,
  nowMs: number,
): void {
  op.set(keys.sessionEnded(nowMs, q, sub), r, {
    expireIn: Math.max(1000, r.exp * 1000 - nowMs + 60_000),
  });
}
