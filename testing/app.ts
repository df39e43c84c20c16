/**
 * An app over in-memory KV with a fake clock, for tests and bench simulations alike (bench and
 * tests import this folder, never each other).
 */
import type { DnsResolver } from "../lib/crawlers/verify.ts";
import { createApp } from "../app.ts";
import { FakeClock, seededRandom } from "../lib/clock.ts";
import { type Config, testConfig } from "../lib/config.ts";
import { keys } from "../lib/store/keys.ts";
import { type Branding, DEFAULT_BRANDING } from "../lib/branding.ts";

/** A fresh app over in-memory KV with a fake clock (2026-01-01T00:00:00Z) and seeded randomness. */
export async function makeApp(
  overrides: Partial<Config> = {},
  opts: {
    seed?: number;
    kv?: Deno.Kv;
    clock?: FakeClock;
    autoTick?: boolean;
    resolveDns?: DnsResolver;
  } = {},
) {
  const kv = opts.kv ?? await Deno.openKv(":memory:");
  const clock = opts.clock ?? new FakeClock();
  const config = testConfig(overrides);
  const { app, services, fetch } = await createApp({
    kv,
    clock,
    config,
    fetch: globalThis.fetch,
    random: seededRandom(opts.seed ?? 1),
    autoTick: opts.autoTick ?? false,
    resolveDns: opts.resolveDns,
  });
  return {
    /** Requests through the served handler, as `Deno.serve` runs it (fast paths included). */
    app: served(fetch),
    /** The Hono app alone (tests that say they test Hono only, and its OpenAPI registry). */
    hono: app,
    services,
    /** The served handler (`/status` and `/join` fast paths, then Hono), as `Deno.serve` runs it. */
    fetch,
    engine: services.engine,
    kv,
    clock,
    config,
    /** Writes branding fields straight to the store (the admin API comes later). */
    setBranding: (b: Partial<Branding>) => writeBranding(kv, services.engine, b),
    close: () => kv.close(),
  };
}

/** The connection info a loopback client would have (the socket address `clientIp` falls back to). */
export const LOOPBACK_INFO = {
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
  completed: Promise.resolve(),
} as unknown as Deno.ServeHandlerInfo;

/**
 * `app.request()`'s shape over the served handler: a path (or URL, or Request) and init become a
 * Request to `http://localhost`, answered by the `fetch` that `Deno.serve` runs.
 */
export function served(
  fetch: (req: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>,
  info: Deno.ServeHandlerInfo = LOOPBACK_INFO,
) {
  return {
    request: (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const req = input instanceof Request
        ? new Request(input, init)
        : new Request(new URL(String(input), "http://localhost"), init);
      return Promise.resolve(fetch(req, info));
    },
  };
}

/** Writes branding fields over the defaults straight to the store; the next page sees them. */
export async function writeBranding(
  kv: Deno.Kv,
  engine: { ctx: { invalidateBranding(): void } },
  b: Partial<Branding>,
): Promise<void> {
  await kv.set(keys.branding(), { ...DEFAULT_BRANDING, ...b });
  engine.ctx.invalidateBranding();
}
