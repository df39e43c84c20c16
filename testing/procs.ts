/**
 * Real server processes (`deno run -A main.ts`) for the multi-instance and crash tests: spawn on a
 * free port, wait until ready, stop (SIGTERM, then SIGKILL), and read access-token claims.
 */
import { DEFAULT_BRANDING } from "../lib/branding.ts";
import { keys } from "../lib/store/keys.ts";
import { assert } from "./assert.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** Resolves after `ms` (real time: these tests drive real processes). */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** A loopback port nobody listens on right now. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The claims of a token (read, not verified). */
export function claimsOf(token: string): Record<string, unknown> {
  const body = token.split(".")[0].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(body + "===".slice((body.length + 3) % 4)));
}

/** The `tg_ticket=...` pair an answer set, if any (to send back as a cookie). */
export function ticketCookieOf(res: Response): string | undefined {
  const c = res.headers.getSetCookie().find((c) => c.startsWith("tg_ticket="));
  return c?.split(";")[0];
}

/** A visitor's status on a server, with the ticket it holds (`tg_ticket=...`): the answer. */
export async function statusOn(port: number, q: string, ticket: string) {
  const res = await fetch(`http://127.0.0.1:${port}/status?queue=${q}`, {
    headers: { cookie: ticket },
  });
  const body = await res.json();
  return { status: res.status, body, ticket: ticketCookieOf(res) };
}

/** A server's operator metrics of queue `q` (200 expected). */
export async function operatorMetrics(port: number, secret: string, q: string) {
  const r = await fetch(`http://127.0.0.1:${port}/metrics?queue=${q}`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  assert(r.status === 200, `metrics of ${port}: ${r.status}`);
  return await r.json();
}

/** A running server process and its collected stderr. */
export interface Server {
  port: number;
  child: Deno.ChildProcess;
  log: string[];
  done: Promise<void>;
}

/**
 * Spawns one server process on a free port; with `fdLimit`, under that file-descriptor limit
 * (`ulimit -n` in a shell that then becomes the server); `flags` go to `deno run`.
 */
export function spawnServer(
  env: Record<string, string>,
  opts: { fdLimit?: number; flags?: string[] } = {},
): Server {
  const port = freePort();
  const run = ["run", "-A", ...(opts.flags ?? []), MAIN];
  const [cmd, args] = opts.fdLimit === undefined
    ? [Deno.execPath(), run]
    : ["sh", ["-c", `ulimit -n ${opts.fdLimit} && exec "$0" "$@"`, Deno.execPath(), ...run]];
  const child = new Deno.Command(cmd, {
    args,
    cwd: ROOT,
    env: { ...env, PORT: String(port), TOLLGATE_ENV: "test" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const log: string[] = [];
  const done = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) log.push(chunk);
  })().catch(() => {});
  return { port, child, log, done };
}

/** Waits until the server answers /health; fails at once if the process exits instead. */
export async function waitReady(s: Server, timeoutMs = 30_000): Promise<void> {
  const state: { exited: Deno.CommandStatus | null } = { exited: null };
  s.child.status.then((st) => state.exited = st);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${s.port}/health`);
      await r.body?.cancel();
      if (r.ok) return;
    } catch { /* not listening yet */ }
    if (state.exited) {
      await s.done;
      const out = s.log.join("").trim();
      throw new Error(`server on ${s.port} exited with ${state.exited.code}: ${out}`);
    }
    assert(Date.now() < deadline, `server on ${s.port} did not start: ${s.log.join("")}`);
    await sleep(100);
  }
}

/**
 * Starts `n` servers over one KV file. `together` spawns them all at once (a fleet restart);
 * otherwise each starts after the previous one answers.
 */
export async function startServers(
  n: number,
  env: Record<string, string>,
  together = false,
  into: Server[] = [],
): Promise<Server[]> {
  if (together) {
    for (let i = 0; i < n; i++) into.push(spawnServer(env));
    for (const s of into) await waitReady(s);
    return into;
  }
  for (let i = 0; i < n; i++) {
    const s = spawnServer(env);
    into.push(s);
    await waitReady(s);
  }
  return into;
}

/** Stops servers gracefully (SIGTERM), killing any that take over 3 s. */
export async function stopServers(servers: Server[]): Promise<void> {
  for (const s of servers) {
    try {
      s.child.kill("SIGTERM");
    } catch { /* already gone */ }
  }
  for (const s of servers) {
    const t = setTimeout(() => {
      try {
        s.child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, 3000);
    await s.child.status;
    clearTimeout(t);
    await s.done;
  }
}

/**
 * A fresh KV file for server processes to share, the waiting counts shown (ahead, behind,
 * waiting): written before any instance starts, so none answers from an older branding.
 */
export async function sharedStoreShowingCounts(
  prefix: string,
): Promise<{ dir: string; kvPath: string }> {
  const dir = await Deno.makeTempDir({ prefix });
  const kvPath = `${dir}/shared.kv`;
  const setup = await Deno.openKv(kvPath);
  await setup.set(keys.branding(), { ...DEFAULT_BRANDING, showWaitingCount: true });
  setup.close();
  return { dir, kvPath };
}
