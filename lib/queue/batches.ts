import { setImmediate } from "node:timers";

/**
 * Group commits per queue: items added while a commit for their queue is in flight go together
 * into the next one, so a hot record is written once per batch instead of once per item.
 */
export class QueueBatches<P extends { reject: (e: unknown) => void }> {
  #pending = new Map<string, P[]>();
  #busy = new Set<string>();
  #kicked = new Set<string>();

  /**
   * `take` cuts the next batch from the waiting items; `commit` writes it and settles each item
   * (`kicked`: a kick asked for this commit, see `kick`).
   */
  constructor(
    private take: (list: P[]) => P[],
    private commit: (q: string, batch: P[], kicked: boolean) => Promise<void>,
  ) {}

  /** Adds an item for queue `q`; a commit starts unless one is running. */
  add(q: string, p: P): void {
    let list = this.#pending.get(q);
    if (!list) this.#pending.set(q, list = []);
    list.push(p);
    if (!this.#busy.has(q)) this.#flush(q);
  }

  /** How many items wait for a commit of `q` (not counting the batch in flight). */
  waiting(q: string): number {
    return this.#pending.get(q)?.length ?? 0;
  }

  /** Takes more of `q`'s waiting items with `take` (a batch that waited grows before it commits). */
  pull(q: string, take: (list: P[]) => P[]): P[] {
    const list = this.#pending.get(q);
    return list?.length ? take(list) : [];
  }

  /** Runs a commit of `q` soon even with nothing waiting (an empty batch: see its committer). */
  kick(q: string): void {
    this.#kicked.add(q);
    if (!this.#busy.has(q)) this.#flush(q);
  }

  /** Puts items back at the front of `q`'s waiting items (a commit that could not take them all). */
  putBack(q: string, items: P[]): void {
    if (items.length === 0) return;
    let list = this.#pending.get(q);
    if (!list) this.#pending.set(q, list = []);
    list.unshift(...items);
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
        if (list.length === 0) {
          if (!this.#kicked.delete(q)) break;
          await this.commit(q, [], true).catch(() => {});
          continue;
        }
        const kicked = this.#kicked.delete(q);
        const batch = this.take(list);
        if (batch.length === 0) continue;
        try {
          await this.commit(q, batch, kicked);
        } catch (e) {
          for (const p of batch) p.reject(e);
        }
      }
    } finally {
      this.#busy.delete(q);
    }
  }
}
