/** Bench sizes and durations, each overridable by an environment variable. */

/** The parts of the bench; `BENCH_ONLY=joins,status` runs a subset. */
export const PARTS = ["baseline", "joins", "status", "latency", "checkins", "lifecycle"] as const;
export type Part = typeof PARTS[number];

/** Every knob of a bench run. */
export interface BenchConfig {
  only: Set<Part>;
  /** `auto` uses wrk when installed, else the Deno load generator. */
  loadgen: "auto" | "wrk" | "deno";
  durationSec: number;
  /** Slices each measured run is cut into, interleaved with its counterpart. */
  rounds: number;
  warmupSec: number;
  connections: number;
  threads: number;
  /** ADMIT_PER_SECOND of the real servers: small, so joiners wait. */
  serverAdmitPerSecond: number;
  statusTickets: number;
  statusLine: number;
  latencyDurationSec: number;
  latencyConnections: number;
  latencyTickets: number;
  smallLine: number;
  largeLine: number;
  simWaiting: number;
  simSeconds: number;
  simAdmitPerSecond: number;
  simJoinSeconds: number;
  lifecycleVisitors: number;
  admitMinutes: number;
  resultsPath: string;
  strict: boolean;
  keepTmp: boolean;
}

/** Documented variables: name, default, meaning (also printed into RESULTS.md). */
export const VARIABLES: [string, string, string][] = [
  ["BENCH_ONLY", PARTS.join(","), "parts to run"],
  ["BENCH_LOADGEN", "auto", "wrk, deno, or auto (wrk when installed)"],
  ["BENCH_DURATION", "10", "measured seconds of each HTTP run (after a warm-up)"],
  ["BENCH_ROUNDS", "5", "slices per run, alternating with the baseline (or the other line)"],
  ["BENCH_WARMUP", "2", "warm-up seconds before each measured run"],
  ["BENCH_CONNECTIONS", "64", "connections of throughput runs"],
  ["BENCH_THREADS", "1", "wrk threads (1 leaves the other core to the server)"],
  ["BENCH_ADMIT_PER_SECOND", "1", "ADMIT_PER_SECOND of the servers under test"],
  ["BENCH_STATUS_TICKETS", "1000", "distinct waiters whose status is polled"],
  ["BENCH_STATUS_LINE", "100000", "waiters seeded into the status run's own line"],
  ["BENCH_LATENCY_DURATION", "10", "seconds of each latency run"],
  ["BENCH_LATENCY_CONNECTIONS", "1", "connections of latency runs (service time, not queueing)"],
  ["BENCH_LATENCY_TICKETS", "100", "waiters polled in latency runs (they join over HTTP)"],
  ["BENCH_SMALL_LINE", "1000", "waiting visitors of the short line"],
  ["BENCH_LARGE_LINE", "1000000", "waiting visitors of the long line"],
  ["SIM_WAITING", "1000000", "line of the check-in simulation"],
  ["SIM_SECONDS", "600", "measured simulated seconds"],
  ["SIM_ADMIT_PER_SECOND", "10", "admissions per second in the simulations"],
  ["SIM_JOIN_SECONDS", "60", "flash-crowd scenario: seconds over which the line joins"],
  ["LIFECYCLE_VISITORS", "8000", "visitors of the in-process engine run"],
  ["ADMIT_MINUTES", "3", "simulated minutes of admissions measured"],
  ["BENCH_RESULTS", "bench/RESULTS.md", "where the report goes"],
  ["BENCH_STRICT", "0", "1: exit with status 1 when a target is missed"],
  ["BENCH_KEEP_TMP", "0", "1: keep the temp dir (KV files, logs, wrk scripts)"],
  [
    "BENCH_DENO_FLAGS",
    "",
    "flags for the servers' `deno run` (e.g. `--cpu-prof --cpu-prof-dir=DIR`)",
  ],
];

/** Reads the configuration from `env`; throws naming a bad variable. */
export function readConfig(env: Record<string, string | undefined>): BenchConfig {
  const num = (name: string, def: number, min = 0) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return def;
    const v = Number(raw);
    if (!Number.isFinite(v) || v < min) {
      throw new Error(`invalid ${name}=${JSON.stringify(raw)}: expected a number >= ${min}`);
    }
    return v;
  };
  const onlyRaw = env.BENCH_ONLY?.trim();
  const only = new Set<Part>();
  for (const p of onlyRaw ? onlyRaw.split(",").map((s) => s.trim()) : [...PARTS]) {
    if (!(PARTS as readonly string[]).includes(p)) {
      throw new Error(`invalid BENCH_ONLY part "${p}": expected some of ${PARTS.join(",")}`);
    }
    only.add(p as Part);
  }
  const loadgen = env.BENCH_LOADGEN ?? "auto";
  if (!["auto", "wrk", "deno"].includes(loadgen)) {
    throw new Error(`invalid BENCH_LOADGEN=${JSON.stringify(loadgen)}: expected auto, wrk or deno`);
  }
  return {
    only,
    loadgen: loadgen as BenchConfig["loadgen"],
    durationSec: num("BENCH_DURATION", 10, 1),
    rounds: Math.round(num("BENCH_ROUNDS", 5, 1)),
    warmupSec: num("BENCH_WARMUP", 2, 0),
    connections: num("BENCH_CONNECTIONS", 64, 1),
    threads: num("BENCH_THREADS", 1, 1),
    serverAdmitPerSecond: num("BENCH_ADMIT_PER_SECOND", 1, 0.1),
    statusTickets: num("BENCH_STATUS_TICKETS", 1000, 1),
    statusLine: num("BENCH_STATUS_LINE", 100_000, 0),
    latencyDurationSec: num("BENCH_LATENCY_DURATION", 10, 1),
    latencyConnections: num("BENCH_LATENCY_CONNECTIONS", 1, 1),
    latencyTickets: num("BENCH_LATENCY_TICKETS", 100, 1),
    smallLine: num("BENCH_SMALL_LINE", 1000, 1),
    largeLine: num("BENCH_LARGE_LINE", 1_000_000, 1),
    simWaiting: num("SIM_WAITING", 1_000_000, 1),
    simSeconds: num("SIM_SECONDS", 600, 1),
    simAdmitPerSecond: num("SIM_ADMIT_PER_SECOND", 10, 0.1),
    simJoinSeconds: num("SIM_JOIN_SECONDS", 60, 1),
    lifecycleVisitors: num("LIFECYCLE_VISITORS", 8000, 1),
    admitMinutes: num("ADMIT_MINUTES", 3, 1),
    resultsPath: env.BENCH_RESULTS || new URL("./RESULTS.md", import.meta.url).pathname,
    strict: env.BENCH_STRICT === "1",
    keepTmp: env.BENCH_KEEP_TMP === "1",
  };
}
