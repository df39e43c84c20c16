/** Lines of waiters written straight into a KV file (seed.ts) before a server starts over it. */
import type { PhaseEnv } from "./http_phases.ts";
import { ROOT, start } from "./procs.ts";

/** A KV file holding a seeded line. */
export interface SeededLine {
  line: number;
  kvPath: string;
  seeded: number;
  seedSeconds: number;
}

/**
 * Seeds `line - joinLater` waiters into a fresh KV file named after `name` (seed.ts, in its own
 * process; the polled waiters join over HTTP later), scheduled as if they had joined `slackSec`
 * seconds from now, none with a liveness deadline within `minLifeSec` of now.
 */
export async function seedFile(
  e: PhaseEnv,
  line: number,
  opts: { joinLater?: number; name?: string; slackSec?: number; minLifeSec?: number } = {},
): Promise<SeededLine> {
  const { joinLater = e.cfg.latencyTickets, name = `line-${line}`, slackSec = 600 } = opts;
  const kvPath = `${e.dir}/${name}.kv`;
  const seeded = line - Math.min(joinLater, line);
  if (seeded === 0) return { line, kvPath, seeded, seedSeconds: 0 };
  const seedFile = new URL("./seed.ts", import.meta.url).pathname;
  const log = `${e.dir}/seed-${name}.log`;
  const p = await start(`seed-${name}`, Deno.execPath(), [
    "run",
    "-A",
    seedFile,
    kvPath,
    String(seeded),
    String(e.cfg.serverAdmitPerSecond),
    String(slackSec),
    String(opts.minLifeSec ?? 0),
  ], { cwd: ROOT, logPath: log });
  try {
    const st = await p.finished();
    const text = await Deno.readTextFile(log);
    const m = text.split("\n").find((l) => l.startsWith("SEEDJSON "));
    if (!st.success || !m) {
      throw new Error(`seeding ${seeded} waiters failed:\n${text.slice(-2000)}`);
    }
    const seedSeconds = JSON.parse(m.slice(9)).seconds;
    e.log(`  seeded ${seeded} waiters for the line of ${line} in ${seedSeconds.toFixed(1)} s`);
    return { line, kvPath, seeded, seedSeconds };
  } finally {
    await p.stop();
  }
}

/** Deletes a KV file and its SQLite side files. */
export async function removeKv(kvPath: string): Promise<void> {
  for (const suffix of ["", "-shm", "-wal"]) await Deno.remove(kvPath + suffix).catch(() => {});
}
