/**
 * A value per key, read at most about once a second and shared by every caller: one load at a
 * time per key, which every caller of the moment waits for. A value past `REFRESH_AHEAD_MS` is
 * read again in the background by the next caller that uses it, so under load it is renewed
 * before it expires: when it expired instead, every request of the moment a reload took fell
 * through to the awaited path and its own store reads. The engine caches each queue's view and
 * branding so (lib/queue/context.ts).
 */

/** A cached value this old is read again in the background by the next caller that uses it. */
const REFRESH_AHEAD_MS = 750;

/** Values by key, each fresh for a second from when its load started (see the header). */
export class SecondCache<T> {
  #values = new Map<string, { value: T; at: number }>();
  #loading = new Map<string, Promise<T>>();

  /**
   * `load(key, at)` reads a value (`at`: `now()` when it started). Past `max` keys the cache
   * starts afresh (keys that come from requests keep it bounded).
   */
  constructor(
    private now: () => number,
    private load: (key: string, at: number) => Promise<T>,
    private max = Infinity,
  ) {}

  /** The value of `key` while it is fresh (under a second old, and not ahead), without an await. */
  fresh(key: string): T | undefined {
    const c = this.#values.get(key);
    if (!c) return undefined;
    const now = this.now();
    if (now - c.at >= 1000 || now < c.at) return undefined;
    // A failed refresh leaves the value to expire.
    if (now - c.at >= REFRESH_AHEAD_MS && !this.#loading.has(key)) this.#start(key).catch(() => {});
    return c.value;
  }

  /** The value of `key`: the fresh one, else the load under way, else a new load. */
  async get(key: string): Promise<T> {
    const v = this.fresh(key);
    if (v !== undefined) return v;
    return await (this.#loading.get(key) ?? this.#start(key));
  }

  /** The value of `key` last loaded, however old. */
  last(key: string): T | undefined {
    return this.#values.get(key)?.value;
  }

  /** Replaces the value of `key` with `value`, keeping its age, while it is still `was`. */
  replace(key: string, was: T, value: T): void {
    const c = this.#values.get(key);
    if (c?.value === was) this.#values.set(key, { value, at: c.at });
  }

  /**
   * Forgets `key` (every key when absent) and a load under way, whose reads may predate a write:
   * the next `get` reads afresh, and the old load's answer is not cached.
   */
  forget(key?: string): void {
    if (key === undefined) {
      this.#values.clear();
      this.#loading.clear();
    } else {
      this.#values.delete(key);
      this.#loading.delete(key);
    }
  }

  /** Starts a load of `key`, shared by every caller until it settles. */
  #start(key: string): Promise<T> {
    const at = this.now();
    const p: Promise<T> = this.load(key, at).then((value) => {
      if (this.#values.size >= this.max) this.#values.clear();
      // Not after a `forget` meanwhile: its reads may predate the write.
      if (this.#loading.get(key) === p) this.#values.set(key, { value, at });
      return value;
    }).finally(() => {
      if (this.#loading.get(key) === p) this.#loading.delete(key);
    });
    this.#loading.set(key, p);
    return p;
  }
}
