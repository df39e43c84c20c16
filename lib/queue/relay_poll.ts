/**
 * One instance's looks for the results of the joins it handed over (see join_relay.ts), made
 * together: the senders waiting on a queue share each look, which reads all their result records
 * and the queue's counts in as few reads as KV allows (ten keys each). With a read per sender every
 * few tens of milliseconds, 50 instances with a few senders each made most of the store's reads,
 * and the store slowed until the turn holder's own reads and commits lagged (bench/scale_sim.ts).
 */
import { keys } from "../store/keys.ts";
import { type Counts, EMPTY_COUNTS, withDefaults } from "./types.ts";

/** What one look found for one sender. */
export interface Look<R> {
  /** Its result record's value, when written. */
  result: R | null;
  /** The queue's counts as the look read them (null when that read found none). */
  counts: Counts | null;
}

interface Waiter<R> {
  key: Deno.KvKey;
  resolve: (l: Look<R>) => void;
  reject: (e: unknown) => void;
}

/** Result keys per read, beside the counts (KV reads at most ten keys at once). */
const PER_READ = 9;

/** The shared looks of one instance, by queue. */
export class ResultPolls<R> {
  #due = new Map<string, Waiter<R>[]>();

  constructor(private kv: Deno.Kv) {}

  /** The next look at `q` (in `ms`, or with one already due sooner) for result record `key`. */
  next(q: string, key: Deno.KvKey, ms: number): Promise<Look<R>> {
    return new Promise((resolve, reject) => {
      let waiting = this.#due.get(q);
      if (!waiting) {
        this.#due.set(q, waiting = []);
        setTimeout(() => this.#look(q), ms);
      }
      waiting.push({ key, resolve, reject });
    });
  }

  #shared = new Map<string, { at: number; value: Promise<unknown> }>();

  /**
   * `read`'s answer for `q`, shared by this instance's senders for `ms` (which of them sends the
   * oldest record: each of hundreds of senders listing the inbox slowed the store as its reads did).
   */
  shared<T>(q: string, ms: number, read: () => Promise<T>): Promise<T> {
    const had = this.#shared.get(q);
    if (had && Date.now() - had.at < ms) return had.value as Promise<T>;
    const value = read();
    this.#shared.set(q, { at: Date.now(), value });
    value.catch(() => {
      if (this.#shared.get(q)?.value === value) this.#shared.delete(q);
    });
    return value;
  }

  async #look(q: string): Promise<void> {
    const waiting = this.#due.get(q) ?? [];
    this.#due.delete(q);
    const reads = [];
    for (let i = 0; i < waiting.length; i += PER_READ) {
      const part = waiting.slice(i, i + PER_READ);
      reads.push(
        this.kv.getMany([keys.counts(q), ...part.map((w) => w.key)]).then((got) => {
          const counts = got[0].value ? withDefaults(EMPTY_COUNTS, got[0].value as Counts) : null;
          part.forEach((w, j) => w.resolve({ result: (got[j + 1].value as R) ?? null, counts }));
        }, (e) => part.forEach((w) => w.reject(e))),
      );
    }
    await Promise.all(reads);
  }
}
