import { createApp } from "../app.ts";
import { FakeClock, seededRandom } from "../lib/clock.ts";
import { type Config, testConfig } from "../lib/config.ts";
import { keys } from "../lib/store/keys.ts";
import { type Branding, DEFAULT_BRANDING } from "../lib/queue/types.ts";

/** A fresh app over in-memory KV with a fake clock (2026-01-01T00:00:00Z) and seeded randomness. */
export async function makeApp(
  overrides: Partial<Config> = {},
  opts: { seed?: number; kv?: Deno.Kv; clock?: FakeClock; autoTick?: boolean } = {},
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

/** A browser-like client: keeps cookies between `app.request()` calls. */
export class Client {
  cookies = new Map<string, string>();
  constructor(
    public app: { request: (p: string, init?: RequestInit) => Response | Promise<Response> },
  ) {}

  async req(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const h: Record<string, string> = { ...headers };
    // A caller's own content type (a form post) wins; any other body is JSON.
    if (body !== undefined) h["content-type"] ??= "application/json";
    if (this.cookies.size) h["cookie"] = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await this.app.request(path, {
      method,
      headers: h,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i), value = pair.slice(i + 1);
      if (/max-age=0/i.test(sc) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    // deno-lint-ignore no-explicit-any
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch { /* not JSON */ }
    return { status: res.status, json, headers: res.headers, text };
  }
  join(queue = "default", visitorId?: string) {
    return this.req("POST", "/join", visitorId ? { queue, visitorId } : { queue });
  }
  status(queue = "default") {
    return this.req("GET", `/status?queue=${queue}`);
  }
  /** The claims of the held `tg_ticket` (read, not verified). */
  get ticketClaims(): { sub: string; queue: string } {
    const t = this.cookies.get("tg_ticket");
    if (!t) throw new Error("no ticket");
    const body = t.split(".")[0].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(body + "===".slice((body.length + 3) % 4)));
  }
  get visitorId(): string {
    return this.ticketClaims.sub;
  }
}

/** Operator headers for `app.request()`. */
export function operator(config: Config): Record<string, string> {
  return { authorization: `Bearer ${config.TOKEN_SECRET}` };
}

/** The three ways a queue is closed to admission, each set on the `default` queue. */
export const CLOSED_STATES = [
  ["paused", (t: TestApp) => t.engine.setPaused("default", true)],
  ["before opensAt", (t: TestApp) => t.engine.setOpensAt("default", t.clock.now() + 60_000)],
  ["health-paused", (t: TestApp) => t.engine.setHealthPaused("default", true)],
] as const;

/** An app built by `makeApp`. */
export type TestApp = Awaited<ReturnType<typeof makeApp>>;
