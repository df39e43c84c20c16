/**
 * Status latency with a short and a long line: each line is seeded into its own KV file
 * (seed.ts, own process), a server runs over each, and their latency slices alternate.
 */
import { interleave, metrics, type PhaseEnv, type Server, startServer } from "./http_phases.ts";
import type { LoadResult, LoadSpec } from "./load.ts";
import { removeKv, type SeededLine } from "./seeding.ts";
import { joinVisitors } from "./tickets.ts";

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
