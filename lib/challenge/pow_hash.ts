/**
 * The one hash of the proof-of-work challenge, shared by the server's check and the browser's
 * solver (bundled into the Web Worker), so both compute exactly the same thing.
 *
 * A solution to a challenge with seed `S` (43 base64url characters) and difficulty `D` is a
 * decimal nonce `N` (1 to 12 digits) such that the first 32 bits of SHA-256(ASCII(S + N)), read
 * big-endian as an unsigned number, are below `floor(2^32 / D)`: about `D` tries on average.
 * `S + N` is at most 55 bytes, so every try, and the server's check, is one SHA-256 block.
 */
import { compress, IV } from "../hmac.ts";

/** Length of a seed: the base64url of a 32-byte MAC. */
export const SEED_LENGTH = 43;
/** Most digits of a nonce (43 + 12 = 55 bytes: one SHA-256 block with its padding). */
export const MAX_NONCE_DIGITS = 12;
/** Largest difficulty (expected tries); the threshold stays at least 4. */
export const MAX_DIFFICULTY = 2 ** 30;
/** A nonce as it is sent: decimal digits, no sign, no leading zeros beyond "0" itself. */
export const NONCE_RE = /^(0|[1-9][0-9]{0,11})$/;

/** The 32-bit threshold a difficulty means: the first hash word must be below it. */
export function thresholdOf(difficulty: number): number {
  return Math.floor(2 ** 32 / Math.min(Math.max(1, difficulty), MAX_DIFFICULTY));
}

/**
 * Hashes `seed + nonce` for many nonces: the seed's first 40 bytes are loaded once as message
 * words, so each try writes only the last six words and runs one compression.
 */
export class PowHasher {
  readonly #w = new Uint32Array(64);
  readonly #s = new Uint32Array(8);
  readonly #tail = new Uint8Array(16);
  readonly #seedTail = [0, 0, 0];

  /** Prepares the hasher for a 43-character ASCII seed. */
  constructor(seed: string) {
    this.reset(seed);
  }

  /** Switches to another seed (the server reuses one hasher for every check). */
  reset(seed: string): this {
    if (seed.length !== SEED_LENGTH) throw new RangeError("seed must be 43 characters");
    const w = this.#w;
    for (let i = 0; i < 10; i++) {
      const o = i * 4;
      w[i] = (seed.charCodeAt(o) << 24) | (seed.charCodeAt(o + 1) << 16) |
        (seed.charCodeAt(o + 2) << 8) | seed.charCodeAt(o + 3);
    }
    this.#seedTail[0] = seed.charCodeAt(40);
    this.#seedTail[1] = seed.charCodeAt(41);
    this.#seedTail[2] = seed.charCodeAt(42);
    return this;
  }

  /** The first 32 bits of SHA-256(seed + nonce), unsigned; `nonce` is 1 to 12 ASCII digits. */
  word(nonce: string): number {
    const t = this.#tail, w = this.#w, s = this.#s;
    // Bytes 40..55 of the block: the seed's last 3, the nonce, 0x80, zeros.
    t[0] = this.#seedTail[0];
    t[1] = this.#seedTail[1];
    t[2] = this.#seedTail[2];
    const n = nonce.length;
    for (let i = 0; i < n; i++) t[3 + i] = nonce.charCodeAt(i);
    t[3 + n] = 0x80;
    for (let i = 4 + n; i < 16; i++) t[i] = 0;
    for (let i = 0; i < 4; i++) {
      const o = i * 4;
      w[10 + i] = (t[o] << 24) | (t[o + 1] << 16) | (t[o + 2] << 8) | t[o + 3];
    }
    w[14] = 0;
    w[15] = (SEED_LENGTH + n) * 8;
    s.set(IV);
    compress(s, w);
    return s[0] >>> 0;
  }

  /** True when `nonce` solves the seed at `threshold` (see `thresholdOf`). */
  solves(nonce: string, threshold: number): boolean {
    return this.word(nonce) < threshold;
  }

  /**
   * Tries nonces `from` to `from + count - 1`; returns the first that solves, or -1. The solver
   * calls this in slices so it can report progress between them.
   */
  search(threshold: number, from: number, count: number): number {
    const end = from + count;
    for (let n = from; n < end; n++) {
      if (this.word(String(n)) < threshold) return n;
    }
    return -1;
  }
}
