/// <reference lib="deno.worker" />
/**
 * A Web Worker of the proof-of-work attack scenario. Two roles:
 * - `attack`: joins at full speed from a new address each time (`x-client-ip`), solving every
 *   challenge it is given, and posts each ticket it got; it never stops until terminated.
 * - `solve`: solves challenges the driver sends (one ordinary visitor's device).
 * - `rate`: hashes until told to stop and posts how many it did while counted (the calibration).
 *
 * Nonces are searched from 0, so a solution's nonce + 1 is the number of hashes it took.
 */
import { PowHasher } from "../../lib/challenge/pow_hash.ts";
import { postJoin, type Proof } from "./pow_join.ts";

interface Challenge {
  challenge: string;
  seed: string;
  threshold: number;
}

const solve = (ch: Challenge) => String(new PowHasher(ch.seed).search(ch.threshold, 0, 1e12));

self.onmessage = async (e: MessageEvent) => {
  const m = e.data;
  if (m.role === "rate") {
    // `phase` (shared with the driver): 0 warming up, 1 counted, 2 done. Nothing solves threshold
    // 0, so every slice of 2,000 tries (about a millisecond) runs whole.
    const phase = new Int32Array(m.phase as SharedArrayBuffer);
    const h = new PowHasher("x".repeat(43));
    self.postMessage({ ready: true });
    let hashes = 0;
    for (let p = 0; p < 2; p = Atomics.load(phase, 0)) {
      h.search(0, hashes, 2000);
      if (p === 1) hashes += 2000;
    }
    self.postMessage({ hashes });
    return;
  }
  if (m.role === "solve") {
    self.postMessage({ id: m.id, nonce: solve(m.challenge) });
    return;
  }
  // role "attack": addresses 172.16.0.0/12 from `first`, one per join.
  let n = m.first as number;
  for (;;) {
    const ip = `172.${16 + ((n >> 16) & 15)}.${(n >> 8) & 255}.${n & 255}`;
    n++;
    let proof: Proof | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const res = await postJoin(m.url, ip, proof).catch(() => null);
      if (!res) break;
      const body = await res.json().catch(() => null);
      if (res.ok) {
        const ticket = res.headers.get("set-cookie")?.match(/tg_ticket=([^;]+)/)?.[1];
        const tries = proof ? Number(proof.nonce) + 1 : 0;
        self.postMessage({ kind: "joined", ticket, solved: proof !== undefined, tries });
        break;
      }
      const ch = body?.error?.details?.challenge;
      if (!ch) {
        self.postMessage({ kind: "refused", code: body?.error?.code ?? String(res.status) });
        break;
      }
      proof = { challenge: ch.challenge, nonce: solve(ch) };
    }
  }
};
