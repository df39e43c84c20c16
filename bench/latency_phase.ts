/**
 * Status latency with a short and a long line: each line is seeded into its own KV file
 * (seed.ts, own process), a server runs over each, and their latency slices alternate.
 */
import {
  interleave,
  metrics,
  type PhaseEnv,
  ROOT,
  type Server,
  startServer,
} from "./http_phases.ts";
import type { LoadResult, LoadSpec } from "./load.ts";
import { start } from "./procs.ts";
import { joinVisitors } from "./tickets.ts";

/** A KV file holding a seeded line. */
export interface SeededLine {
  line: number;
  kvPath: string;
  seeded: number;
  seedSeconds: number;
}

/** Status latency with one line length. */
export interface LineLatency {
  line: number;
  seeded: number;
  seedSeconds: number;
  waitingMeasured: number;
  result: LoadResult;
  slices: LoadResult[];
}

/**
 * Seeds `line - tickets` waiters into a fresh KV file (seed.ts, in its own process; the polled
 * waiters join over HTTP later).
 */
export async function seedFile(e: PhaseEnv, line: number): Promise<SeededLine> {
  const kvPath = `${e.dir}/line-${line}.kv`;
  const seeded = line - Math.min(e.cfg.latencyTickets, line);
  if (seeded === 0) return { line, kvPath, seeded, seedSeconds: 0 };
  const seedFile = new URL("./seed.ts", import.meta.url).pathname;
  const log = `${e.dir}/seed-${line}.log`;
  const p = await start(`seed-${line}`, Deno.execPath(), [
    "run",
    "-A",
    seedFile,
    kvPath,
    String(seeded),
    String(e.cfg.serverAdmitPerSecond),
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

/**
 * Starts a server over each seeded file, joins the rest of each line over HTTP, and measures
 * status latency of those at low concurrency, the servers interleaved; each client takes the
 * new ticket a due check-in sets (as a browser would).
 */
export async function lineLatencies(e: PhaseEnv, seeds: SeededLine[]): Promise<LineLatency[]> {
  const servers: Server[] = [];
  try {
    for (const sd of seeds) servers.push(await startServer(e, `server-line-${sd.line}`, sd.kvPath));
    const specs: LoadSpec[] = [];
    const waiting: number[] = [];
    for (const [i, sd] of seeds.entries()) {
      const tickets = await joinVisitors(servers[i].url, sd.line - sd.seeded, 8);
      waiting.push((await metrics(servers[i])).waiting);
      const c = e.cfg.latencyConnections;
      specs.push({
        name: `status-latency-${sd.line}`,
        url: servers[i].url,
        method: "GET",
        path: "/status?queue=default",
        tickets: tickets.map((t) => t.ticket),
        follow: true,
        connections: c,
        threads: c,
        durationSec: e.cfg.latencyDurationSec,
      });
    }
    const measured = await interleave(e, specs);
    return seeds.map((sd, i) => ({
      line: sd.line,
      seeded: sd.seeded,
      seedSeconds: sd.seedSeconds,
      waitingMeasured: waiting[i],
      result: measured[i].total,
      slices: measured[i].slices,
    }));
  } finally {
    for (const s of servers) await s.proc.stop();
    for (const sd of seeds) await removeKv(sd.kvPath);
  }
}

/** Deletes a KV file and its SQLite side files. */
export async function removeKv(kvPath: string): Promise<void> {
  for (const suffix of ["", "-shm", "-wal"]) await Deno.remove(kvPath + suffix).catch(() => {});
}
