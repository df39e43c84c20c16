/** Time source in unix milliseconds; injected so tests never sleep. */
export interface Clock {
  now(): number;
}

/** Waits `ms` of real time (0 or less: the next timer turn). */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

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

/**
 * Random bytes drawn from the system's generator 4 KB at a time and handed out once each: one call
 * into the generator per join cost more than the rest of making the visitor's id.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

/** Cryptographic randomness. */
export const cryptoRandom: Random = {
  float() {
    const b = cryptoRandom.bytes(8);
    const v = new DataView(b.buffer, b.byteOffset, 8);
    return (v.getUint32(0) * 2 ** 21 + (v.getUint32(4) >>> 11)) / 2 ** 53;
  },
  bytes(n) {
    if (n > 256) return crypto.getRandomValues(new Uint8Array(n));
    if (poolAt + n > pool.length) {
      crypto.getRandomValues(pool);
      poolAt = 0;
    }
    const out = pool.slice(poolAt, poolAt + n);
    poolAt += n;
    return out;
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
