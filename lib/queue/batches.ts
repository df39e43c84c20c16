import { setImmediate } from "node:timers";

/**
 * Group commits per queue: items added while a commit for their queue is in flight go together
 * into the next one, so a hot record is written once per batch instead of once per item.
 */
export class QueueBatches<P extends { reject: (e: unknown) => void }> {
  #pending = new Map<string, P[]>();
  #busy = new Set<string>();

  /** `take` cuts the next batch from the waiting items; `commit` writes it and settles each item. */
  constructor(
    private take: (list: P[]) => P[],
    private commit: (q: string, batch: P[]) => Promise<void>,
  ) {}

  /** Adds an item for queue `q`; a commit starts unless one is running. */
  add(q: string, p: P): void {
    let list = this.#pending.get(q);
    if (!list) this.#pending.set(q, list = []);
    list.push(p);
    if (!this.#busy.has(q)) this.#flush(q);
  }

  async #flush(q: string): Promise<void> {
    this.#busy.add(q);
    try {
      // Let the requests already received arrive before the first commit: an immediate (a
      // macrotask, after the pending I/O of this turn) rather than a microtask, with which an
      // idle queue committed a burst's first join alone while the rest waited behind it (under a
      // steady load, half of all batches held a single join). Not a timer of 0 ms either: Deno
      // fires those a millisecond or more later, a whole commit's time here.
      await new Promise((r) => setImmediate(r));
      for (;;) {
        const list = this.#pending.get(q) ?? [];
        if (list.length === 0) break;
        const batch = this.take(list);
        try {
          await this.commit(q, batch);
        } catch (e) {
          for (const p of batch) p.reject(e);
        }
      }
    } finally {
      this.#busy.delete(q);
    }
  }
}
