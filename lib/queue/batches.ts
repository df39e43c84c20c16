/**
 * Group commits, for the joins' writes (join_write.ts) and the enters (enter_batch.ts): items that
 * come while commits are in flight go together into the next one, so one store round trip carries
 * many. Up to `inFlight` commits go at once, but a further one only once the youngest has been out
 * `SPREAD_MS` or a whole commit's worth (`full`) waits: on a local store fewer, fuller commits
 * (joins over HTTP took about a sixth less CPU each; bench/RESULTS.md); over a remote store up to
 * `inFlight` overlap, a few ms apart.
 */

/** How long the youngest commit in flight has been out before another may go beside it. */
const SPREAD_MS = 5;

/** What a group committer is told: its limits, how to cut a batch and how to commit one. */
export interface GroupCommitter<P> {
  /** Commits in flight at once. */
  inFlight: number;
  /** Waiting items that fill a commit: that many go out at once, whatever the spread. */
  full: number;
  /** How many of the waiting items (in order) the next commit takes (at least one; `full`). */
  cut?: (waiting: P[]) => number;
  /** Writes a batch and settles each item; a throw rejects every item of the batch. */
  commit: (batch: P[]) => Promise<void>;
}

/** Group commits of items `P` (each with its `reject`), see the file's header. */
export class GroupCommits<P extends { reject: (e: unknown) => void }> {
  #waiting: P[] = [];
  #inFlight = 0;
  /** When the last commit went out (`performance.now()`), and the timer for the next. */
  #sentAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private c: GroupCommitter<P>) {}

  /** Adds an item: it goes into the next commit that goes out. */
  add(p: P): void {
    this.#waiting.push(p);
    this.#pump();
  }

  #pump(): void {
    while (this.#inFlight < this.c.inFlight && this.#waiting.length > 0) {
      const wait = this.#inFlight === 0 ? 0 : this.#sentAt + SPREAD_MS - performance.now();
      if (wait > 0 && this.#waiting.length < this.c.full) {
        this.#timer ??= setTimeout(() => (this.#timer = undefined, this.#pump()), wait);
        return;
      }
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#sentAt = performance.now();
      const take = this.c.cut?.(this.#waiting) ?? this.c.full;
      const batch = this.#waiting.splice(0, Math.max(1, take));
      this.#inFlight++;
      this.c.commit(batch)
        .catch((e) => batch.forEach((p) => p.reject(e)))
        .finally(() => {
          this.#inFlight--;
          this.#pump();
        });
    }
  }
}
