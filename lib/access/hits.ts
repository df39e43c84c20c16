import { retryCommit } from "../store/commit.ts";
import { logLine } from "../log.ts";

/** Most keys summed in one atomic op (an op allows 1000 mutations). */
const MAX_KEYS = 500;

/** The fewest milliseconds between two writes of one counter set (one instance's). */
export const HIT_WRITE_INTERVAL_MS = 1000;

/**
 * Counters that cost the hot path nothing but a map update: hits are summed in memory and
 * written with KV `sum` at most once a second (a lone hit after a quiet second is written at
 * once), so a flood of refused joins costs one commit a second per instance, not one per refusal
 * nor one per commit's round trip. The pause is real time (it protects the store, not the
 * domain); its timer is unref'd, so it never holds a process or a test open. A reader that must
 * see this instance's counts (`idle`) cuts the pause short once.
 */
export class HitCounter {
  #pending = new Map<string, { key: Deno.KvKey; n: number }>();
  #flushing: Promise<void> | null = null;
  /** `performance.now()` when the last write began. */
  #lastAt = -Infinity;
  /** Hits counted so far, and of those, hits whose write is done (written or lost). */
  #added = 0;
  #done = 0;
  #wake: (() => void) | null = null;
  #rounds: (() => void)[] = [];

  constructor(
    private kv: Deno.Kv,
    private log: (line: string) => void = logLine,
    private intervalMs = HIT_WRITE_INTERVAL_MS,
  ) {}

  /** Counts one hit at `key`; written in the background. */
  add(key: Deno.KvKey): void {
    const id = JSON.stringify(key);
    const p = this.#pending.get(id);
    if (p) p.n++;
    else this.#pending.set(id, { key, n: 1 });
    this.#added++;
    this.#flushing ??= this.#flush();
  }

  /** Resolves once every hit counted so far is written (reads that must see them wait here). */
  async idle(): Promise<void> {
    const target = this.#added;
    while (this.#done < target && this.#flushing) {
      const round = new Promise<void>((r) => this.#rounds.push(r));
      this.#wake?.();
      await round;
    }
  }

  async #flush(): Promise<void> {
    try {
      // Hits of this event-loop turn go into the first commit.
      await Promise.resolve();
      while (this.#pending.size > 0) {
        const wait = this.#lastAt + this.intervalMs - performance.now();
        if (wait > 0) await this.#pause(wait);
        this.#lastAt = performance.now();
        const upTo = this.#added;
        const all = [...this.#pending.values()];
        this.#pending.clear();
        for (let i = 0; i < all.length; i += MAX_KEYS) {
          await this.#write(all.slice(i, i + MAX_KEYS));
        }
        this.#done = upTo;
        for (const r of this.#rounds.splice(0)) r();
      }
    } finally {
      this.#flushing = null;
      for (const r of this.#rounds.splice(0)) r();
    }
  }

  /** Waits `ms`, or until a reader wakes the writer. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#wake!(), ms);
      Deno.unrefTimer(timer);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = null;
        resolve();
      };
    });
  }

  async #write(batch: { key: Deno.KvKey; n: number }[]): Promise<void> {
    try {
      await retryCommit(async () => {
        const op = this.kv.atomic();
        for (const b of batch) op.sum(b.key, BigInt(b.n));
        return (await op.commit()).ok ? true : null;
      }, "hit count");
    } catch (e) {
      // Statistics only: a lost batch must never fail or slow a visitor.
      this.log(JSON.stringify({ level: "warn", msg: "hit count lost", error: String(e) }));
    }
  }
}

/** Reads `sum` counters under `prefix` as `{lastKeyPart: n}`. */
export async function readHits(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for await (const e of kv.list<Deno.KvU64>({ prefix })) {
    out[String(e.key[e.key.length - 1])] = Number(e.value.value);
  }
  return out;
}
