/**
 * The server under load: main.ts in its own process over a KV file, and the driver's copy of its
 * clock (the real one, or `TOLLGATE_CLOCK_SPEED` times as fast from the origin it logs).
 */
import type { Server } from "../http_phases.ts";
import { freePort, ROOT, start, waitReady } from "../procs.ts";

/** The server's clock as the driver computes it (both read the same wall clock). */
export class ServerClock {
  constructor(readonly speed = 1, readonly origin = 0) {}

  /** Server time (unix ms) now. */
  now(): number {
    return this.at(Date.now());
  }

  /** Server time at wall-clock time `realMs`. */
  at(realMs: number): number {
    return this.speed === 1
      ? realMs
      : this.origin + Math.floor((realMs - this.origin) * this.speed);
  }

  /** Wall-clock milliseconds from now until server time `serverMs` (0 when past). */
  msUntil(serverMs: number): number {
    return Math.max(0, (serverMs - this.now()) / this.speed);
  }
}

/** A running server under load. */
export interface Target extends Server {
  clock: ServerClock;
  kvPath: string;
  logPath: string;
}

/** Error lines a server logged: how many, and the distinct messages (at most 5). */
export interface ServerErrors {
  count: number;
  messages: string[];
}

/**
 * The `"level":"error"` lines (or those of `levels`) of a stopped server's log. A wedged
 * admission tick answers no request with an error, so only its log shows it.
 */
export async function serverErrors(t: Target, levels = ["error"]): Promise<ServerErrors> {
  const text = await Deno.readTextFile(t.logPath).catch(() => "");
  const seen = new Map<string, number>();
  let count = 0;
  for (const line of text.split("\n")) {
    if (!levels.some((l) => line.includes(`"level":"${l}"`))) continue;
    count++;
    let key = line;
    try {
      const j = JSON.parse(line);
      key = `${j.msg}: ${j.error ?? ""}`.trim();
    } catch { /* not JSON: keep the line */ }
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return { count, messages: [...seen].slice(0, 5).map(([m, n]) => `${m} (x${n})`) };
}

/** Where a scenario keeps its files, and how it reports progress. */
export interface ScenarioEnv {
  dir: string;
  log: (msg: string) => void;
  /** Runs servers at this nice increment (`nice -n`; below 0 needs root): a higher priority. */
  serverNice?: number;
}

/** Reads the clock a server logged in its "tollgate listening" line (it may take a moment). */
async function loggedClock(logPath: string): Promise<ServerClock> {
  for (let i = 0; i < 100; i++) {
    const text = await Deno.readTextFile(logPath).catch(() => "");
    const line = text.split("\n").find((l) => l.includes('"tollgate listening"'));
    if (line) {
      const j = JSON.parse(line);
      if (typeof j.clockSpeed !== "number") throw new Error("server logged no simulated clock");
      return new ServerClock(j.clockSpeed, j.clockOrigin);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no "tollgate listening" line in ${logPath}`);
}

/**
 * Starts main.ts on a free port over `kvPath` with `env` (queue `default`, TOLLGATE_ENV=test, a
 * fresh TOKEN_SECRET unless `env` has one); `clockSpeed` other than 1 runs its clock that much
 * faster; `runFlags` go to `deno run` before main.ts (e.g. a `--preload`).
 */
export async function startTarget(
  e: ScenarioEnv,
  name: string,
  kvPath: string,
  env: Record<string, string>,
  clockSpeed = 1,
  runFlags: string[] = [],
): Promise<Target> {
  const port = freePort();
  const secret = env.TOKEN_SECRET ?? newSecret();
  const logPath = `${e.dir}/${name}.log`;
  const cmd = [Deno.execPath(), "run", "-A", ...runFlags, "main.ts"];
  if (e.serverNice) cmd.unshift("nice", "-n", String(e.serverNice));
  const proc = await start(name, cmd[0], cmd.slice(1), {
    env: {
      DENO_KV_PATH: kvPath,
      JOINS_PER_CLIENT_PER_MINUTE: "0", // one loopback client makes every join
      TOKEN_SECRET: secret,
      PORT: String(port),
      QUEUES: "default",
      TOLLGATE_ENV: "test",
      ...(clockSpeed === 1 ? {} : { TOLLGATE_CLOCK_SPEED: String(clockSpeed) }),
      ...env,
    },
    cwd: ROOT,
    logPath,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/health`, proc);
  const clock = clockSpeed === 1 ? new ServerClock() : await loggedClock(logPath);
  return { proc, url, secret, clock, kvPath, logPath };
}

/** A fresh TOKEN_SECRET for a server under load. */
export const newSecret = () => `load-${crypto.randomUUID()}-${crypto.randomUUID()}`;

/** Resolves after `ms` of wall-clock time. */
export const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
