/// <reference lib="webworker" />
/**
 * The proof-of-work solver of /wait, in a Web Worker so the page stays responsive: tries nonces
 * in slices with the same hash the server checks (lib/challenge/pow_hash.ts) and reports how many
 * it tried after each slice, then the solving nonce.
 */
import { PowHasher } from "../lib/challenge/pow_hash.ts";
import type { SolverReply, SolverTask } from "../islands/pow_solver.ts";

/** Tries per progress message (a few milliseconds on a phone). */
const SLICE = 25_000;

self.onmessage = (e: MessageEvent<SolverTask>) => {
  const { seed, threshold } = e.data;
  const h = new PowHasher(seed);
  for (let from = 0; from < 1e12; from += SLICE) {
    const n = h.search(threshold, from, SLICE);
    const reply: SolverReply = n >= 0
      ? { nonce: String(n), tried: n + 1 }
      : { nonce: null, tried: from + SLICE };
    self.postMessage(reply);
    if (n >= 0) return;
  }
};
