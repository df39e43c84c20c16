/**
 * The service served for real on loopback (createApp's `fetch`, admission ticks on, the system
 * clock, in-memory KV): for browser tests and the proxy tests, without either's other helpers.
 */
import { createApp } from "../app.ts";
import { cryptoRandom, systemClock } from "../lib/clock.ts";
import type { Config } from "../lib/config.ts";

/**
 * The service as `main.ts` serves it (createApp's `fetch`, admission ticks on) over in-memory KV
 * and the system clock, on 127.0.0.1 and a free port (or `opts.port`, for a config that names it).
 */
export async function serveApp(
  config: Config,
  opts: { autoTick?: boolean; port?: number } = {},
) {
  const kv = await Deno.openKv(":memory:");
  const { fetch: serve, services } = await createApp({
    kv,
    clock: systemClock,
    config,
    fetch: globalThis.fetch,
    random: cryptoRandom,
    autoTick: opts.autoTick ?? true,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: opts.port ?? 0, onListen() {} }, serve);
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    kv,
    services,
    async close() {
      await server.shutdown();
      kv.close();
    },
  };
}
