/**
 * Shared pieces of the access tests (allowlist, country block, health throttle), also used by
 * the `/join` fast-path tests (twin apps, one served, one Hono alone).
 */
import { createApp } from "../app.ts";
import { FakeClock, seededRandom } from "../lib/clock.ts";
import { type Config, testConfig } from "../lib/config.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";

/** Connection info as `Deno.serve` passes it, for a client at `ip`. */
export function fromIp(ip: string): Deno.ServeHandlerInfo {
  return { remoteAddr: { transport: "tcp", hostname: ip, port: 40000 } } as Deno.ServeHandlerInfo;
}

/**
 * An app over in-memory KV (fake clock, seeded randomness, no auto tick) with its served
 * `fetch` (the fast paths) beside Hono's `app.fetch`; `kv` may be shared by two instances.
 */
export async function servedApp(
  overrides: Partial<Config> = {},
  opts: { kv?: Deno.Kv; clock?: FakeClock } = {},
) {
  const kv = opts.kv ?? await Deno.openKv(":memory:");
  const clock = opts.clock ?? new FakeClock();
  const made = await createApp({
    kv,
    clock,
    config: testConfig({ ADMIT_PER_SECOND: 1, ...overrides }),
    fetch: globalThis.fetch,
    random: seededRandom(7),
    autoTick: false,
  });
  return { ...made, kv, clock, engine: made.services.engine };
}

/** A served app. */
export type ServedApp = Awaited<ReturnType<typeof servedApp>>;

/** `POST /join` as a JSON request with extra headers. */
export function joinRequest(
  body: unknown,
  headers: Record<string, string> = {},
  url = "http://localhost/join",
): Request {
  return new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/**
 * Asserts that the served handler's answer `a` and Hono's answer `b` match byte for byte: status,
 * body, every header, cookies. Only the served handler assigns `X-Request-Id` (app.ts), so `a`
 * must carry one and it is left out of the comparison. Returns the status and body.
 */
export async function sameAnswer(
  a: Response,
  b: Response,
  label = "",
): Promise<{ status: number; text: string }> {
  const [ta, tb] = [await a.text(), await b.text()];
  assertEquals(a.status, b.status, `status ${label}`);
  assertEquals(ta, tb, `body ${label}`);
  assert(a.headers.has("x-request-id"), `the served answer carries X-Request-Id ${label}`);
  const heads = (r: Response) =>
    [...r.headers].filter(([k]) => k !== "x-request-id").sort(([x], [y]) => x.localeCompare(y));
  assertEquals(heads(a), heads(b), `headers ${label}`);
  assertEquals(a.headers.getSetCookie(), b.headers.getSetCookie(), `cookies ${label}`);
  return { status: a.status, text: ta };
}

/**
 * Sends the same join to twin apps: one through the served fetch (the `/join` fast path), the
 * other through Hono alone; the answers must match (`sameAnswer`). Returns the fast one's.
 */
export async function twinJoin(
  fast: ServedApp,
  hono: ServedApp,
  req: () => Request,
  info: Deno.ServeHandlerInfo,
): Promise<{ status: number; json: Record<string, unknown>; res: Response }> {
  const a = await fast.fetch(req(), info);
  const { status, text } = await sameAnswer(a, await hono.app.fetch(req(), info));
  return { status, json: JSON.parse(text), res: a };
}

/** The cookie values a response sets, by name. */
export function setCookies(res: Response): Record<string, string> {
  return Object.fromEntries(
    res.headers.getSetCookie().map((c) => {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      return [pair.slice(0, i), pair.slice(i + 1)];
    }),
  );
}

/** A protected origin on loopback whose answer a test toggles: a status code, or "hang". */
export function flappingOrigin() {
  let answer: number | "hang" = 200;
  const hung: (() => void)[] = [];
  let seen = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
    seen++;
    if (answer === "hang") await new Promise<void>((r) => hung.push(r));
    const status = answer === "hang" ? 200 : answer;
    return new Response(status === 204 ? null : "origin", { status });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/healthz?token=s3cret-query`,
    host: `127.0.0.1:${server.addr.port}`,
    set: (a: number | "hang") => void (answer = a),
    get seen() {
      return seen;
    },
    async close() {
      hung.forEach((r) => r());
      await server.shutdown();
    },
  };
}

export type Origin = ReturnType<typeof flappingOrigin>;

/** An app with two queues, a signed-in admin and a throttle watching `origin`. */
export async function watched(origin: Origin, config: Record<string, unknown> = {}) {
  const t = await makeApp({ QUEUES: ["default", "other"] });
  const { client } = await adminClient(t);
  const put = await client.req("PUT", "/api/admin/health", {
    enabled: true,
    url: origin.url,
    failures: 3,
    recoveries: 2,
    ...config,
  });
  assertEquals(put.status, 200, put.text);
  const health = t.services.access.health;
  /** One probe round, the interval (10 s) later. */
  const round = async () => {
    t.clock.advance(10_000);
    assert(await health.maybeProbe(), "this instance probed");
    return await health.snapshot();
  };
  return { t, client, health, round };
}

/** healthPaused of every queue. */
export async function pausedQueues(t: TestApp): Promise<boolean[]> {
  const out = [];
  for (const q of ["default", "other"]) {
    out.push((await t.engine.ctx.readSettings(q))!.healthPaused);
  }
  return out;
}

/**
 * The real store, with the first `getMany` held back (after it read) until `release()`: the
 * order in which two overlapping reads come back is otherwise up to the store.
 */
export function holdFirstRead(kv: Deno.Kv): { kv: Deno.Kv; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  let reads = 0;
  const slow = new Proxy(kv, {
    get(target, prop) {
      if (prop !== "getMany") {
        const v = Reflect.get(target, prop, target);
        // Methods run on the store itself (it keeps its handle in a private field).
        return typeof v === "function" ? v.bind(target) : v;
      }
      return async (...args: Parameters<Deno.Kv["getMany"]>) => {
        const first = reads++ === 0;
        const out = await target.getMany(...args);
        if (first) await held;
        return out;
      };
    },
  });
  return { kv: slow, release };
}
