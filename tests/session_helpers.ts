/**
 * Shared set-up of the session tests: an app over a KV that counts its writes (so a test can say
 * "at most one write per renewal interval" of the whole service, not of one function), a queue
 * switched to sliding sessions, and a visitor admitted through the visitor API.
 */
import { FakeClock } from "../lib/clock.ts";
import type { Config } from "../lib/config.ts";
import { type SessionSettings, writeSessionSettings } from "../lib/session/settings.ts";
import { keys } from "../lib/store/keys.ts";
import type { Visitor } from "../lib/queue/types.ts";
import { assert } from "./assert.ts";
import { Client, makeApp, type TestApp } from "./helpers.ts";

/** A KV whose successful commits and plain writes are counted in `writes.n`. */
export function countingKv(kv: Deno.Kv): { kv: Deno.Kv; writes: { n: number } } {
  const writes = { n: 0 };
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = async () => {
            const r = await commit();
            if (r.ok) writes.n++;
            return r;
          };
          return op;
        };
      }
      if (prop === "set" || prop === "delete") {
        return async (...args: unknown[]) => {
          // deno-lint-ignore no-explicit-any
          const r = await (target as any)[prop](...args);
          writes.n++;
          return r;
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { kv: wrapped, writes };
}

/** An app (or a second instance of it, given `kv` and `clock`) whose writes are counted. */
export async function countedApp(
  overrides: Partial<Config> = {},
  shared?: { kv: Deno.Kv; clock: FakeClock },
) {
  const base = shared?.kv ?? await Deno.openKv(":memory:");
  const { kv, writes } = countingKv(base);
  const t = await makeApp(overrides, { kv, clock: shared?.clock ?? new FakeClock() });
  return { t, writes, base };
}

/** Sets the session settings of `queue` on `t` (as the admin API stores them). */
export async function setSessions(
  t: TestApp,
  s: Partial<SessionSettings>,
  queue = "default",
): Promise<void> {
  await writeSessionSettings(t.kv, queue, {
    sessionMode: "sliding",
    sessionIdleSeconds: 300,
    sessionMaxSeconds: null,
    ...s,
  });
  t.services.sessions.invalidate(queue);
}

/** A visitor admitted at once on join (entered, with its access token). */
export async function admittedVisitor(t: TestApp, queue = "default") {
  const c = new Client(t.app);
  const r = await c.join(queue);
  assert(r.status === 200 && r.json.accessToken, `admitted at once: ${JSON.stringify(r.json)}`);
  return { client: c, token: r.json.accessToken as string, id: r.json.visitorId as string };
}

/** The stored record of visitor `id`. */
export async function record(t: TestApp, id: string, queue = "default"): Promise<Visitor | null> {
  return (await t.kv.get<Visitor>(keys.visitor(queue, id))).value;
}

/** Entered plus holding of `queue`, as the metrics count them. */
export async function slotsHeld(t: TestApp, queue = "default"): Promise<number> {
  const m = await t.engine.metrics(queue);
  return m.entered + m.holding;
}

/** `GET /verify` with `token` as the `tg_access` cookie. */
export function verify(t: TestApp, token: string, path = "/verify"): Promise<Response> {
  return t.app.request(path, { headers: { cookie: `tg_access=${token}` } });
}

/** The `tg_access` value a response sets, or undefined. */
export function accessCookie(res: Response): string | undefined {
  for (const sc of res.headers.getSetCookie()) {
    const m = /^tg_access=([^;]*)/.exec(sc);
    if (m) return decodeURIComponent(m[1]);
  }
  return undefined;
}
