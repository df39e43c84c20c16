/**
 * The crowd's devices in the proof-of-work attack scenario: one Web Worker per visitor that is
 * solving right now (kept and reused once it is done), so the crowd gets as many threads as it
 * has people solving at once, as a crowd of phones brings one device each. The operating system
 * shares the cores by thread, so while k visitors solve, the attacker's one thread gets about
 * 1/(k+1) of the hashing. Beyond `max` threads a visitor waits for a free one.
 */

/** A worker of bench/scenarios/pow_attacker.ts (its role comes with its first message). */
export function powWorker(): Worker {
  return new Worker(new URL("./pow_attacker.ts", import.meta.url), { type: "module" });
}

/** The crowd's solver threads. */
export class CrowdSolvers {
  #idle: Worker[] = [];
  #all: Worker[] = [];
  #waiting: ((w: Worker) => void)[] = [];
  busy = 0;
  peakBusy = 0;

  constructor(private max: number) {}

  /** Threads started so far. */
  get started(): number {
    return this.#all.length;
  }

  /** A solving nonce for `challenge`, found on a thread of its own. */
  async solve(challenge: unknown): Promise<string> {
    const w = await this.#take();
    this.busy++;
    this.peakBusy = Math.max(this.peakBusy, this.busy);
    try {
      return await new Promise<string>((resolve) => {
        w.onmessage = (e) => resolve(e.data.nonce);
        w.postMessage({ role: "solve", id: 0, challenge });
      });
    } finally {
      this.busy--;
      const next = this.#waiting.shift();
      if (next) next(w);
      else this.#idle.push(w);
    }
  }

  #take(): Promise<Worker> {
    const w = this.#idle.pop();
    if (w) return Promise.resolve(w);
    if (this.#all.length < this.max) {
      const fresh = powWorker();
      this.#all.push(fresh);
      return Promise.resolve(fresh);
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Ends every thread. */
  close(): void {
    for (const w of this.#all) w.terminate();
  }
}
