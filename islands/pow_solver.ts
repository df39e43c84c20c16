/// <reference lib="dom" />
/**
 * Runs a proof-of-work challenge in a Web Worker (or, where workers are missing, on the page in
 * short slices between frames), reporting the tries so far. Shared by the /wait check island.
 */
import { PowHasher } from "../lib/challenge/pow_hash.ts";

/** What the worker is asked to solve. */
export interface SolverTask {
  seed: string;
  threshold: number;
}
/** What the worker answers: progress (`nonce` null) or the solution. */
export interface SolverReply {
  nonce: string | null;
  tried: number;
}

/** Solves `task`, calling `onTried` as it goes; `stop()` ends it early. */
export function solve(
  task: SolverTask,
  workerUrl: string | undefined,
  onTried: (n: number) => void,
): { done: Promise<string>; stop: () => void } {
  let stopped = false;
  if (workerUrl && typeof Worker !== "undefined") {
    const w = new Worker(workerUrl, { type: "module" });
    const done = new Promise<string>((resolve, reject) => {
      w.onmessage = (e: MessageEvent<SolverReply>) => {
        onTried(e.data.tried);
        if (e.data.nonce !== null) {
          w.terminate();
          resolve(e.data.nonce);
        }
      };
      w.onerror = (e) => {
        w.terminate();
        reject(new Error(e.message || "the checking worker failed"));
      };
    });
    w.postMessage(task);
    return { done, stop: () => w.terminate() };
  }
  const h = new PowHasher(task.seed);
  const done = new Promise<string>((resolve) => {
    let from = 0;
    const step = () => {
      if (stopped) return;
      const n = h.search(task.threshold, from, 5000);
      from += 5000;
      onTried(n >= 0 ? n + 1 : from);
      if (n >= 0) resolve(String(n));
      else setTimeout(step, 0);
    };
    step();
  });
  return { done, stop: () => void (stopped = true) };
}
