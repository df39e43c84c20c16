/**
 * `deno task bench`: every Tollgate benchmark in one run, against a baseline measured in the
 * same run; prints the ratios and writes bench/RESULTS.md. Sizes and durations come from
 * environment variables (bench/config.ts). Child processes are always stopped.
 */
import { keepLoadSection } from "./scenarios/markdown.ts";
import { notes } from "./notes.ts";
import { simulateCheckins } from "./checkins_sim.ts";
import { type BenchConfig, readConfig } from "./config.ts";
import {
  baselineSpec,
  interleave,
  joinsAndStatus,
  type PhaseEnv,
  type Server,
  startBaseline,
} from "./http_phases.ts";
import { lineLatencies } from "./latency_phase.ts";
import { type SeededLine, seedFile } from "./seeding.ts";
import { runLifecycle } from "./lifecycle_sim.ts";
import { type LoadTool, wrkVersion } from "./load.ts";
import { installCleanup, output, stopAll } from "./procs.ts";
import { consoleSummary, renderMarkdown, type Results, targets } from "./report.ts";

const log = (msg: string) => console.log(msg);

async function machine(tool: LoadTool, wrk: string | null): Promise<Record<string, string>> {
  let cpu = "unknown";
  try {
    const info = await Deno.readTextFile("/proc/cpuinfo");
    cpu = /model name\s*:\s*(.*)/.exec(info)?.[1] ?? cpu;
  } catch { /* not Linux */ }
  const mem = Deno.systemMemoryInfo();
  return {
    machine: `${cpu}, ${navigator.hardwareConcurrency} cores, ${
      (mem.total / 2 ** 30).toFixed(1)
    } GiB RAM`,
    os: `${Deno.build.os} ${Deno.osRelease()} ${Deno.build.arch}`,
    deno: `${Deno.version.deno} (V8 ${Deno.version.v8}, TypeScript ${Deno.version.typescript})`,
    "load tool": tool === "wrk"
      ? `${wrk} (Lua script per run)`
      : "bench/loadgen.ts (Deno, raw HTTP/1.1, own process)",
    "load average at start": Deno.loadavg().map((x) => x.toFixed(2)).join(" "),
  };
}

function commandLine(): string {
  const vars = Object.entries(Deno.env.toObject())
    .filter(([k]) => /^(BENCH|SIM|LIFECYCLE|ADMIT)_/.test(k))
    .map(([k, v]) => `${k}=${v}`);
  return [...vars, "deno task bench"].join(" ");
}

async function pickTool(cfg: BenchConfig): Promise<{ tool: LoadTool; wrk: string | null }> {
  const wrk = await wrkVersion();
  if (cfg.loadgen === "wrk" && !wrk) throw new Error("BENCH_LOADGEN=wrk but wrk cannot be run");
  if (cfg.loadgen === "deno" || !wrk) {
    if (!wrk) {
      log(
        "wrk is not installed (apt-get install wrk); using the Deno load generator bench/loadgen.ts.",
      );
      log(
        "Its client costs more CPU than wrk on the same 2 cores, so the ratios are not comparable with wrk runs.",
      );
    }
    return { tool: "deno", wrk };
  }
  return { tool: "wrk", wrk };
}

async function main() {
  const cfg = readConfig(Deno.env.toObject());
  installCleanup();
  const { tool, wrk } = await pickTool(cfg);
  const dir = await Deno.makeTempDir({ prefix: "tollgate-bench-" });
  const r: Results = {
    startedAt: new Date(),
    finishedAt: new Date(),
    command: commandLine(),
    machine: await machine(tool, wrk),
    settings: {
      connections: cfg.connections,
      threads: cfg.threads,
      duration_s: cfg.durationSec,
      rounds: cfg.rounds,
      warmup_s: cfg.warmupSec,
      server_ADMIT_PER_SECOND: cfg.serverAdmitPerSecond,
      parts: [...cfg.only].join("+"),
    },
    latency: [],
    checkins: [],
    failures: [],
  };
  const e: PhaseEnv = { cfg, tool, dir, log };
  const step = async (name: string, f: () => Promise<void>) => {
    log(`${name} ...`);
    try {
      await f();
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      log(`  ${name} failed: ${msg}`);
      r.failures.push(`${name}: ${msg}`);
    }
  };
  const has = (p: Parameters<typeof cfg.only.has>[0]) => cfg.only.has(p);
  try {
    // The lines for the latency runs are seeded in the background (own process) while the
    // in-process simulations run: those count events, not time, so sharing the CPU does not
    // change their results. No HTTP measurement runs while a seeder does.
    let seeds: Promise<SeededLine[]> | null = null;
    const startSeeding = () => {
      if (!has("latency") || seeds) return;
      log(`seeding lines of ${cfg.smallLine} and ${cfg.largeLine} in the background ...`);
      seeds = (async () => [await seedFile(e, cfg.smallLine), await seedFile(e, cfg.largeLine)])();
      seeds.catch(() => {});
    };
    if (has("baseline") || has("joins") || has("status")) {
      let b: Server | null = null;
      try {
        await step("baseline server", async () => void (b = await startBaseline(e)));
        if (b && (has("joins") || has("status"))) {
          await step("joins and status, interleaved with the baseline", async () => {
            r.joinsStatus = await joinsAndStatus(e, b!, has("joins"), has("status"));
          });
        } else if (b) {
          await step("baseline", async () => {
            r.baselineOnly = (await interleave(e, [baselineSpec(e, b!, "baseline")]))[0].total;
          });
        }
      } finally {
        await (b as Server | null)?.proc.stop();
      }
    }
    startSeeding();
    if (has("checkins")) {
      await step("check-in simulation", async () => {
        for (const start of ["steady", "flash"] as const) {
          const c = await simulateCheckins({
            waiting: cfg.simWaiting,
            ratePerSecond: cfg.simAdmitPerSecond,
            seconds: cfg.simSeconds,
            start,
            joinSeconds: cfg.simJoinSeconds,
          });
          r.checkins.push(c);
          log(`  ${start}: mean ${c.mean.toFixed(0)}/s, p99 ${c.p99}/s, max ${c.max}/s`);
        }
      });
    }
    if (has("lifecycle")) {
      await step("engine in-process (admissions, KV writes)", async () => {
        r.lifecycle = await runLifecycle({
          visitors: cfg.lifecycleVisitors,
          ratePerSecond: cfg.simAdmitPerSecond,
          minutes: cfg.admitMinutes,
        });
        const lc = r.lifecycle;
        log(
          `  admitted per minute ${
            lc.admittedPerMinute.join(", ")
          }; writes per visitor max ${lc.writesMax}`,
        );
      });
    }
    if (seeds) {
      const pending: Promise<SeededLine[]> = seeds;
      await step("status latency, short and long line interleaved", async () => {
        r.latency = await lineLatencies(e, await pending);
      });
    }
  } finally {
    await stopAll();
    if (!cfg.keepTmp) await Deno.remove(dir, { recursive: true }).catch(() => {});
    else log(`temp files kept in ${dir}`);
  }
  r.finishedAt = new Date();
  const old = await Deno.readTextFile(cfg.resultsPath).catch(() => "");
  await Deno.writeTextFile(
    cfg.resultsPath,
    keepLoadSection(old, renderMarkdown(r, notes(r, cfg, tool))),
  );
  // Keep the report as `deno fmt` wants it, so `deno task check` stays clean after a run.
  await output(Deno.execPath(), ["fmt", "--quiet", cfg.resultsPath]);
  log(consoleSummary(r));
  log(`\nwrote ${cfg.resultsPath}`);
  const failed = targets(r).some((t) => t.pass === false) || r.failures.length > 0;
  if (cfg.strict && failed) Deno.exit(1);
}

if (import.meta.main) await main();
