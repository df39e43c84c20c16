import type { Config } from "../lib/config.ts";
import { makeApp } from "../testing/app.ts";

export { LOOPBACK_INFO, makeApp, served, writeBranding } from "../testing/app.ts";

/** Collects what `console.*` prints while `fn` runs. */
export async function captureConsole<T>(fn: () => Promise<T>): Promise<[T, string]> {
  const out: string[] = [];
  const saved = { log: console.log, error: console.error, warn: console.warn, info: console.info };
  const grab = (...a: unknown[]) => void out.push(a.map(String).join(" "));
  Object.assign(console, { log: grab, error: grab, warn: grab, info: grab });
  try {
    return [await fn(), out.join("\n")];
  } finally {
    Object.assign(console, saved);
  }
}

/** The lines `console.*` prints while `f` runs (the service logs one JSON object a line). */
export async function consoleLines(f: () => Promise<void>): Promise<string[]> {
  return (await captureConsole(f))[1].split("\n").filter((l) => l !== "");
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

/**
 * Counts the atomic commits `kv` sees from now on (tests that bound writes per action):
 * `count` so far, `reset()` to start again, `stop()` to stop counting.
 */
export function commitCounter(kv: Deno.Kv) {
  let n = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => (n++, commit());
    return op;
  };
  return {
    get count() {
      return n;
    },
    reset() {
      n = 0;
    },
    stop() {
      kv.atomic = atomic;
    },
  };
}
