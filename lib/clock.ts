/** Time source in unix milliseconds; injected so tests never sleep. */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * The service's clock: the wall clock, or (`TOLLGATE_CLOCK_SPEED`, for load scenarios) one running
 * `speed` times as fast from `origin` on. Throws in production, where nothing may run fast.
 */
export function serviceClock(
  speed: number | undefined,
  production: boolean,
  origin: number,
): Clock {
  if (speed === undefined) return systemClock;
  if (production) throw new Error("invalid TOLLGATE_CLOCK_SPEED: refused in production");
  return { now: () => origin + Math.floor((Date.now() - origin) * speed) };
}

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  constructor(public ms = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Randomness source; injected so lottery tests can be seeded. */
export interface Random {
  /** Uniform float in [0, 1). */
  float(): number;
  /** `n` random bytes. */
  bytes(n: number): Uint8Array;
}

/** Cryptographic randomness. */
export const cryptoRandom: Random = {
  float() {
    const b = new Uint32Array(2);
    crypto.getRandomValues(b);
    return (b[0] * 2 ** 21 + (b[1] >>> 11)) / 2 ** 53;
  },
  bytes(n) {
    return crypto.getRandomValues(new Uint8Array(n));
  },
};

/** A seeded PRNG (mulberry32) for reproducible tests. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    float: next,
    bytes(n) {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = Math.floor(next() * 256);
      return out;
    },
  };
}
