/**
 * Pure-TypeScript SHA-256 and HMAC-SHA256 (RFC 6234, RFC 2104).
 *
 * `HmacSha256` hashes the key's inner and outer pads once, at construction, and keeps the two
 * SHA-256 midstates: one MAC then costs only the message blocks plus one outer block, with no
 * allocation besides the 32-byte result. All arithmetic is plain 32-bit (`|0`, `>>>`).
 */

/** SHA-256 round constants. */
// deno-fmt-ignore
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 initial hash value. */
// deno-fmt-ignore
export const IV = new Uint32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/** Loads the 64-byte block at `b[off..off+64)` into `w[0..16)` as big-endian words. */
function loadBlock(w: Uint32Array, b: Uint8Array, off: number): void {
  for (let i = 0; i < 16; i++, off += 4) {
    w[i] = (b[off] << 24) | (b[off + 1] << 16) | (b[off + 2] << 8) | b[off + 3];
  }
}

/**
 * The SHA-256 compression function: folds one block, already loaded as 16 big-endian words in
 * `w[0..16)`, into the 8-word chaining state `s`. Uses `w[16..64)` as the message schedule.
 */
export function compress(s: Uint32Array, w: Uint32Array): void {
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15] | 0, y = w[i - 2] | 0;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (s1 + (w[i - 7] | 0) + s0 + (w[i - 16] | 0)) | 0;
  }
  let a = s[0] | 0, b = s[1] | 0, c = s[2] | 0, d = s[3] | 0;
  let e = s[4] | 0, f = s[5] | 0, g = s[6] | 0, h = s[7] | 0;
  for (let i = 0; i < 64; i++) {
    const t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
      ((e & f) ^ (~e & g)) + (K[i] | 0) + (w[i] | 0)) | 0;
    const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
      ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  s[0] = (s[0] + a) | 0;
  s[1] = (s[1] + b) | 0;
  s[2] = (s[2] + c) | 0;
  s[3] = (s[3] + d) | 0;
  s[4] = (s[4] + e) | 0;
  s[5] = (s[5] + f) | 0;
  s[6] = (s[6] + g) | 0;
  s[7] = (s[7] + h) | 0;
}

/**
 * Hashes `b[0..len)` onto state `s`, which has already absorbed `prefix` bytes (a multiple of
 * 64): full blocks straight from `b`, then the padded tail via `tail` (a 64-byte scratch block).
 */
function absorbFinal(
  s: Uint32Array,
  w: Uint32Array,
  tail: Uint8Array,
  b: Uint8Array,
  len: number,
  prefix: number,
): void {
  const full = len - (len & 63);
  for (let off = 0; off < full; off += 64) {
    loadBlock(w, b, off);
    compress(s, w);
  }
  const rest = len - full;
  for (let i = 0; i < rest; i++) tail[i] = b[full + i];
  tail[rest] = 0x80;
  tail.fill(0, rest + 1);
  if (rest >= 56) {
    loadBlock(w, tail, 0);
    compress(s, w);
    tail.fill(0);
  }
  loadBlock(w, tail, 0);
  const bits = (prefix + len) * 8;
  w[14] = Math.floor(bits / 0x100000000);
  w[15] = bits >>> 0;
  compress(s, w);
}

/** Writes state `s` as 32 big-endian bytes. */
function digestOf(s: Uint32Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(32);
  for (let i = 0, j = 0; i < 8; i++, j += 4) {
    const v = s[i];
    out[j] = v >>> 24;
    out[j + 1] = v >>> 16;
    out[j + 2] = v >>> 8;
    out[j + 3] = v;
  }
  return out;
}

/** SHA-256 of `bytes` (32-byte digest). */
export function sha256(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const s = IV.slice();
  absorbFinal(s, new Uint32Array(64), new Uint8Array(64), bytes, bytes.length, 0);
  return digestOf(s);
}

const encoder = new TextEncoder();

/**
 * HMAC-SHA256 with a fixed key (RFC 2104; keys over 64 bytes are hashed first). The key's pad
 * midstates are computed once; `mac`/`macBytes` reuse internal buffers, so an instance is not
 * reentrant (fine in single-threaded JS) and each call allocates only its 32-byte result.
 */
export class HmacSha256 {
  readonly #inner = new Uint32Array(8);
  readonly #outer = new Uint32Array(8);
  readonly #s = new Uint32Array(8);
  readonly #w = new Uint32Array(64);
  readonly #tail = new Uint8Array(64);
  #buf = new Uint8Array(256);

  /** Precomputes the inner and outer pad midstates for `key`. */
  constructor(key: Uint8Array) {
    const k = key.length > 64 ? sha256(key) : key;
    const pad = new Uint8Array(64);
    for (const [state, x] of [[this.#inner, 0x36], [this.#outer, 0x5c]] as const) {
      pad.fill(x);
      for (let i = 0; i < k.length; i++) pad[i] = k[i] ^ x;
      state.set(IV);
      loadBlock(this.#w, pad, 0);
      compress(state, this.#w);
    }
  }

  /** HMAC of the UTF-8 encoding of `message` (lone surrogates become U+FFFD). */
  mac(message: string): Uint8Array<ArrayBuffer> {
    const n = message.length;
    if (this.#buf.length < n) this.#buf = new Uint8Array(Math.max(n, this.#buf.length * 2));
    let buf = this.#buf;
    let i = 0;
    for (; i < n; i++) {
      const c = message.charCodeAt(i);
      if (c >= 0x80) break;
      buf[i] = c;
    }
    if (i === n) return this.#finish(buf, n);
    // Non-ASCII: at most 3 UTF-8 bytes per UTF-16 code unit.
    if (buf.length < 3 * n) this.#buf = buf = new Uint8Array(Math.max(3 * n, buf.length * 2));
    return this.#finish(buf, encoder.encodeInto(message, buf).written);
  }

  /** HMAC of raw bytes. */
  macBytes(message: Uint8Array): Uint8Array<ArrayBuffer> {
    return this.#finish(message, message.length);
  }

  /** Inner hash of `b[0..len)` from the inner midstate, then the single outer block. */
  #finish(b: Uint8Array, len: number): Uint8Array<ArrayBuffer> {
    const s = this.#s, w = this.#w;
    s.set(this.#inner);
    absorbFinal(s, w, this.#tail, b, len, 64);
    // Outer block: the 32-byte inner digest, 0x80, zeros, bit length (64 + 32) * 8.
    for (let i = 0; i < 8; i++) w[i] = s[i];
    w[8] = 0x80000000;
    w.fill(0, 9, 15);
    w[15] = 768;
    s.set(this.#outer);
    compress(s, w);
    return digestOf(s);
  }
}
