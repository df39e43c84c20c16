import { retryCommit } from "../store/commit.ts";

/** Most keys summed in one atomic op (an op allows 1000 mutations). */
const MAX_KEYS = 500;

/**
 * Counters that cost the hot path nothing but a map update: hits are summed in memory and
 * written with KV `sum` by one commit at a time (group commit), so a burst of blocked joins is a
 * handful of writes, and a lone hit is written at once (no timer, nothing lost when idle).
 */
export class HitCounter {
  #pending = new Map<string, { key: Deno.KvKey; n: number }>();
  #flushing: Promise<void> | null = null;

  constructor(private kv: Deno.Kv, private log: (line: string) => void = console.warn) {}

  /** Counts one hit at `key`; written in the background. */
  add(key: Deno.KvKey): void {
    const id = JSON.stringify(key);
    const p = this.#pending.get(id);
    if (p) p.n++;
    else this.#pending.set(id, { key, n: 1 });
    this.#flushing ??= this.#flush();
  }

  /** Resolves once every hit counted so far is written (reads that must see them wait here). */
  async idle(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #flush(): Promise<void> {
    try {
      // Hits of this event-loop turn go into the first commit.
      await Promise.resolve();
      while (this.#pending.size > 0) {
        const batch = [...this.#pending.values()].slice(0, MAX_KEYS);
        for (const b of batch) this.#pending.delete(JSON.stringify(b.key));
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
    } finally {
      this.#flushing = null;
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
