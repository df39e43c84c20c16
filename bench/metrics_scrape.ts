/**
 * What a Prometheus scrape costs the joins: `POST /join` at full speed (wrk, or the Deno load
 * generator) against a real main.ts process, in interleaved rounds without scraping, with a scrape
 * every second, and with ten a second (a margin), the order rotating each round. Prints the
 * ratios and writes its own section of bench/RESULTS.md. Noisy machines blur a few percent, so it
 * also times the scrape itself in this process (the same app code over in-memory KV): its share of
 * a second is the most a scrape a second can take from a server bound by its main thread.
 *
 * `deno run -A bench/metrics_scrape.ts` (not part of `deno task bench`). Knobs:
 * `BENCH_SCRAPE_ROUNDS` (6), `BENCH_SCRAPE_SECONDS` (4 per round and arm),
 * `BENCH_SCRAPE_QUEUES` (10 queues in the exposition), `BENCH_CONNECTIONS` (64).
 */
import { createApp } from "../app.ts";
import { cryptoRandom, FakeClock } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import { type LoadResult, type LoadSpec, type LoadTool, runLoad, wrkVersion } from "./load.ts";
import { freePort, installCleanup, ROOT, start, stopAll, waitReady } from "./procs.ts";

const env = (name: string, def: number) => Number(Deno.env.get(name) ?? def);
const ROUNDS = env("BENCH_SCRAPE_ROUNDS", 6);
const SECONDS = env("BENCH_SCRAPE_SECONDS", 4);
const QUEUES = env("BENCH_SCRAPE_QUEUES", 10);
const CONNECTIONS = env("BENCH_CONNECTIONS", 64);
const RESULTS = new URL("./RESULTS.md", import.meta.url).pathname;
const BEGIN = "<!-- bench/metrics_scrape.ts: begin -->";
const END = "<!-- bench/metrics_scrape.ts: end -->";

/** One arm of the comparison: how often it scrapes (0: never). */
interface Arm {
  label: string;
  everyMs: number;
  runs: LoadResult[];
  /** Server CPU (user + system) per join of each run, in microseconds. */
  cpuPerJoinUs: number[];
  scrapes: number[];
  bytes: number;
}

/** Scrapes `url` every `everyMs` until `stop`; returns each scrape's duration (ms). */
async function scrapeLoop(url: string, token: string, everyMs: number, stop: Promise<unknown>) {
  const times: number[] = [];
  let bytes = 0, done = false;
  stop.then(() => (done = true));
  while (!done) {
    const t0 = performance.now();
    const res = await fetch(url, {
      headers: {
        authorization: `Bearer ${token}`,
        accept: OPENMETRICS,
      },
    });
    bytes = (await res.text()).length;
    if (res.status !== 200) throw new Error(`scrape answered ${res.status}`);
    times.push(performance.now() - t0);
    await Promise.race([new Promise((r) => setTimeout(r, everyMs)), stop]);
  }
  return { times, bytes };
}

/**
 * Milliseconds one scrape (OpenMetrics, `queues` queues with waiters) takes through the served
 * `fetch` of an app in this process, the median of `n` after a warm-up: back to back (queue views
 * cached), and with the app's clock moved a second before each (every view reloads from the
 * store, as when Prometheus scrapes queues nobody else touches).
 */
async function scrapeCostMs(queues: string[], n = 300): Promise<{ cached: number; fresh: number }> {
  const kv = await Deno.openKv(":memory:");
  const token = "bench-metrics-token-0123456789";
  const clock = new FakeClock(Date.now());
  const { fetch } = await createApp({
    kv,
    clock,
    config: testConfig({ QUEUES: queues, METRICS_TOKEN: token, ADMIT_PER_SECOND: 1 }),
    fetch: globalThis.fetch,
    random: cryptoRandom,
    autoTick: false,
  });
  const call = async (path: string, init?: RequestInit) => {
    const res = await fetch(new Request(`http://bench.local${path}`, init));
    return await res.text();
  };
  for (const q of queues) {
    for (let i = 0; i < 20; i++) {
      await call("/join", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ queue: q }),
      });
    }
  }
  const scrape = () =>
    call("/metrics", { headers: { authorization: `Bearer ${token}`, accept: OPENMETRICS } });
  const timed = async (before: () => void) => {
    for (let i = 0; i < 50; i++) before(), await scrape();
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      before();
      const t0 = performance.now();
      await scrape();
      times.push(performance.now() - t0);
    }
    return median(times);
  };
  const cached = await timed(() => {});
  const fresh = await timed(() => clock.advance(1000));
  kv.close();
  return { cached, fresh };
}

/**
 * CPU seconds (user + system, all threads) the process has used, from /proc. Unlike joins per
 * second it does not move when other processes take the cores, so CPU per join shows a scrape's
 * cost on a busy machine.
 */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of proc(5) (utime, stime), counted from the state field (3) here.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

const OPENMETRICS = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fmt = (n: number, d = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });

async function main() {
  installCleanup();
  const dir = await Deno.makeTempDir({ prefix: "tollgate-scrape-bench-" });
  const tool: LoadTool = (await wrkVersion()) ? "wrk" : "deno";
  const port = freePort();
  const token = `scrape-${crypto.randomUUID()}`;
  const names = Array.from({ length: QUEUES }, (_, i) => (i === 0 ? "default" : `q${i}`));
  const server = await start("server", Deno.execPath(), ["run", "-A", "main.ts"], {
    env: {
      DENO_KV_PATH: `${dir}/scrape.kv`,
      TOKEN_SECRET: `bench-${crypto.randomUUID()}-${crypto.randomUUID()}`,
      METRICS_TOKEN: token,
      PORT: String(port),
      MAX_WAITING_VISITORS: "50000000",
      ADMIT_PER_SECOND: "1",
      QUEUES: names.join(","),
      TOLLGATE_ENV: "test",
    },
    cwd: ROOT,
    logPath: `${dir}/server.log`,
  });
  const url = `http://127.0.0.1:${port}`;
  const spec = (name: string, durationSec: number): LoadSpec => ({
    name,
    url,
    method: "POST",
    path: "/join",
    body: JSON.stringify({ queue: "default" }),
    headers: { "Content-Type": "application/json" },
    connections: CONNECTIONS,
    threads: 1,
    durationSec,
  });
  const arms: Arm[] = [
    { label: "no scraping", everyMs: 0, runs: [], cpuPerJoinUs: [], scrapes: [], bytes: 0 },
    {
      label: "a scrape every second",
      everyMs: 1000,
      runs: [],
      cpuPerJoinUs: [],
      scrapes: [],
      bytes: 0,
    },
    {
      label: "ten scrapes a second",
      everyMs: 100,
      runs: [],
      cpuPerJoinUs: [],
      scrapes: [],
      bytes: 0,
    },
  ];
  const started = new Date();
  try {
    await waitReady(`${url}/health`, server);
    await runLoad(tool, spec("warmup", 2), dir);
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate the order so no arm always runs first (on a line that grows through the run).
      for (let k = 0; k < arms.length; k++) {
        const arm = arms[(r + k) % arms.length];
        const cpu0 = await cpuSeconds(server.child.pid);
        const load = runLoad(tool, spec(`r${r}-${arm.everyMs}`, SECONDS), dir);
        const scraped = arm.everyMs
          ? scrapeLoop(`${url}/metrics`, token, arm.everyMs, load.catch(() => {}))
          : null;
        arm.runs.push(await load);
        const cpu = (await cpuSeconds(server.child.pid)) - cpu0;
        arm.cpuPerJoinUs.push(cpu / arm.runs.at(-1)!.requests * 1e6);
        if (scraped) {
          const s = await scraped;
          arm.scrapes.push(...s.times);
          arm.bytes = s.bytes;
        }
        console.log(`round ${r + 1} ${arm.label}: ${fmt(arm.runs.at(-1)!.rps)} joins/s`);
      }
    }
  } finally {
    await stopAll();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  const base = arms[0];
  const baseRps = base.runs.reduce((n, x) => n + x.rps, 0) / base.runs.length;
  const spread = Math.max(...base.runs.map((x) => Math.abs(x.rps / baseRps - 1)));
  const rows = arms.map((a) => {
    const rps = a.runs.reduce((n, x) => n + x.rps, 0) / a.runs.length;
    // Per round, against the baseline of the same round.
    const ratios = a.runs.map((x, i) => x.rps / base.runs[i].rps);
    const cpu = median(a.cpuPerJoinUs);
    return { a, rps, ratio: median(ratios), ratios, cpu };
  });
  const cost = await scrapeCostMs(names);
  const lines = [
    BEGIN,
    "## Scraping /metrics during joins (bench/metrics_scrape.ts)",
    "",
    "`deno run -A bench/metrics_scrape.ts` (not part of `deno task bench`; this section is replaced",
    "by its next run). `POST /join` at full speed against one main.ts process (own KV file, " +
    `${QUEUES} queues in the exposition), ${tool}, ${CONNECTIONS} connections, ${ROUNDS} rounds ` +
    `of ${SECONDS} s per arm, the order rotating each round; the scraper (another process) asks ` +
    "for OpenMetrics with METRICS_TOKEN, as Prometheus does.",
    `Run ${started.toISOString()}, load average ${
      (await Deno.loadavg()).map((x) => x.toFixed(1)).join(" ")
    } at the end.`,
    "",
    "| arm | server CPU per join | x no scraping | joins/s (mean) | x no scraping (median of rounds) | per round | scrape p50 | scrape max | exposition |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(({ a, rps, ratio, ratios, cpu }) =>
      `| ${a.label} | ${fmt(cpu, 1)} us | ${a.everyMs ? (cpu / rows[0].cpu).toFixed(3) : ""} | ${
        fmt(rps)
      } | ${a.everyMs ? ratio.toFixed(3) : ""} | ${
        a.everyMs ? ratios.map((x) => x.toFixed(2)).join(", ") : ""
      } | ${a.scrapes.length ? fmt(median(a.scrapes), 1) + " ms" : ""} | ${
        a.scrapes.length ? fmt(Math.max(...a.scrapes), 1) + " ms" : ""
      } | ${a.bytes ? fmt(a.bytes) + " bytes" : ""} |`
    ),
    "",
    `Rounds without scraping differ from their mean by up to ${(spread * 100).toFixed(1)}% ` +
    `(joins/s per round: ${base.runs.map((x) => fmt(x.rps)).join(", ")}). The target: a scrape ` +
    "every second lowers joins by at most 5%, within that spread. Joins are bound by the " +
    "server's CPU, so the server's CPU per join (median of the rounds, from /proc, which other " +
    "processes on the machine move far less) measures the same cost with less noise.",
    "",
    `One scrape through the served handler in the bench's own process (same code, in-memory KV, ` +
    `${QUEUES} queues with waiters), median: ${fmt(cost.cached, 2)} ms back to back, ` +
    `${fmt(cost.fresh, 2)} ms when every queue view is reloaded first (each a second old, as ` +
    `between two scrapes a second apart). So a scrape every second occupies the main thread ` +
    `at most ${(cost.fresh / 10).toFixed(2)}% of the time: the most it can take from joins, ` +
    "which are bound by that thread.",
    END,
  ];
  console.log(lines.slice(lines.indexOf("") + 3).join("\n"));
  const old = await Deno.readTextFile(RESULTS).catch(() => "");
  const block = lines.join("\n");
  let text: string;
  if (old.includes(BEGIN) && old.includes(END)) {
    text = old.slice(0, old.indexOf(BEGIN)) + block + old.slice(old.indexOf(END) + END.length);
  } else {
    // Before the load scenarios' part (which appends at the end), after the proxy's.
    const at = old.indexOf("## Load scenarios");
    text = at < 0
      ? old.trimEnd() + "\n\n" + block + "\n"
      : old.slice(0, at) + block + "\n\n" + old.slice(at);
  }
  await Deno.writeTextFile(RESULTS, text);
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", RESULTS] }).output();
  console.log(`wrote ${RESULTS}`);
}

if (import.meta.main) await main();
