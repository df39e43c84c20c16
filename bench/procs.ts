/**
 * Child processes of the bench: started with their output in a log file, tracked, and always
 * stopped (SIGTERM, then SIGKILL), also when the bench itself is interrupted.
 */

/** The repository root (servers run from there, with its deno.json). */
export const ROOT = new URL("../", import.meta.url).pathname;

/** A running child process. */
export class Proc {
  #done = false;
  constructor(
    readonly name: string,
    readonly child: Deno.ChildProcess,
    readonly logPath: string,
    private readonly flushed: Promise<unknown>,
  ) {
    child.status.finally(() => (this.#done = true));
  }

  /** Waits for the process to exit and its output to reach the log file. */
  async finished(): Promise<Deno.CommandStatus> {
    const st = await this.child.status;
    await this.flushed;
    return st;
  }

  get running(): boolean {
    return !this.#done;
  }

  /** Stops the process and waits for it to exit. */
  async stop(): Promise<void> {
    live.delete(this);
    if (this.#done) return;
    try {
      this.child.kill("SIGTERM");
    } catch { /* already gone */ }
    const hard = setTimeout(() => {
      try {
        this.child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, 3000);
    await this.child.status;
    clearTimeout(hard);
    await this.flushed;
  }

  /** The last `n` lines of the process's output. */
  async tail(n = 20): Promise<string> {
    try {
      return (await Deno.readTextFile(this.logPath)).trimEnd().split("\n").slice(-n).join("\n");
    } catch {
      return "";
    }
  }
}

const live = new Set<Proc>();

/**
 * Copies a child's output into its log file as it comes, then closes the file (`pipeTo` into a
 * file's `writable` showed nothing in the file before the child exited, so a running server's
 * log could not be read).
 */
async function copyInto(from: ReadableStream<Uint8Array>, to: Deno.FsFile): Promise<void> {
  try {
    for await (const chunk of from) {
      for (let w = 0; w < chunk.length;) w += await to.write(chunk.subarray(w));
    }
  } catch { /* the child or the file went away */ }
  try {
    to.close();
  } catch { /* already closed */ }
}

/** Starts `cmd args` with `env` added, its stdout and stderr appended to `logPath`. */
export async function start(
  name: string,
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string; logPath: string },
): Promise<Proc> {
  const child = new Deno.Command(cmd, {
    args,
    env: opts.env,
    cwd: opts.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = await Deno.open(opts.logPath, { create: true, append: true });
  const err = await Deno.open(opts.logPath, { create: true, append: true });
  const flushed = Promise.all([copyInto(child.stdout, out), copyInto(child.stderr, err)]);
  const p = new Proc(name, child, opts.logPath, flushed);
  live.add(p);
  return p;
}

/** Stops every child still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.stop()));
}

/** Kills children synchronously: for `unload` and signal handlers, where nothing can be awaited. */
function killAllNow(): void {
  for (const p of live) {
    try {
      p.child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
}

/** Makes sure no child outlives the bench: on normal exit, Ctrl-C and SIGTERM. */
export function installCleanup(): void {
  globalThis.addEventListener("unload", killAllNow);
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(sig, () => {
      console.error(`\nbench: ${sig}, stopping child processes`);
      killAllNow();
      Deno.exit(130);
    });
  }
}

/** A TCP port that was free a moment ago. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Waits until `url` answers 200, or throws after `timeoutMs` (or when `proc` exits). */
export async function waitReady(url: string, proc: Proc, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!proc.running) {
      throw new Error(`${proc.name} exited before answering ${url}:\n${await proc.tail()}`);
    }
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await r.body?.cancel();
      if (r.status === 200) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `${proc.name} did not answer ${url} within ${timeoutMs} ms:\n${await proc.tail()}`,
  );
}

/** Runs a command to completion and returns its stdout, or null when it cannot be run. */
export async function output(cmd: string, args: string[]): Promise<string | null> {
  try {
    const r = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
    return new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr);
  } catch {
    return null;
  }
}
