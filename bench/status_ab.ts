/**
 * `GET /status` of two source trees side by side, with its floors, in the same run: req/s and the
 * server's CPU per request (utime + stime of the process, `/proc/PID/stat`, over each wrk slice,
 * divided by the requests answered). On a shared machine req/s swings with the neighbours; CPU per
 * request far less, so it is the figure to read first (bench/RESULTS.md, issue 31).
 *
 *   deno run -A bench/status_ab.ts before=/path/to/tree after=.
 *
 * One line is seeded (BENCH_STATUS_LINE, default 10,000), tickets found on the first tree's server
 * (numbered, not due within the run), then every tree's main.ts runs over its own copy of that
 * file with the same secret, beside the plain floor and the floor that verifies tickets
 * (bench/status_floor_server.ts). Each round runs one wrk slice (STATUS_AB_SLICE seconds, default
 * 4) per server in turn; STATUS_AB_ROUNDS rounds (default 6). BENCH_DENO_FLAGS apply to main.ts.
 * STATUS_AB_FLOORS=0 leaves the floors out; STATUS_AB_THREADS=1 prints each slice's CPU by thread;
 * STATUS_AB_PREPARED=dir keeps the line and tickets for a repeat within a few minutes. A run whose
 * tickets would fall due before it ends (slots come within about 4 minutes) is refused: use fewer
 * or shorter slices, or a longer line (50,000 gives room for two trees and both floors, 6 x 3 s).
 */
import { readConfig } from "./config.ts";
import { type PhaseEnv, type Server, startServer } from "./http_phases.ts";
import { runLoad } from "./load.ts";
import { freePort, installCleanup, type Proc, start, stopAll, waitReady } from "./procs.ts";
import { seedFile } from "./seeding.ts";
import { notDueTickets } from "./tickets.ts";

const env = Deno.env.toObject();
const rounds = Number(env.STATUS_AB_ROUNDS ?? 6);
const sliceSec = Number(env.STATUS_AB_SLICE ?? 4);
const trees = Deno.args.map((a) => a.split("=")).map(([name, dir]) => ({
  name,
  dir: Deno.realPathSync(dir),
}));
if (trees.length === 0) throw new Error("usage: status_ab.ts name=tree [name=tree ...]");
const cfg = readConfig({ BENCH_STATUS_LINE: "10000", ...env });
const dir = await Deno.makeTempDir({ prefix: "tollgate-status-ab-" });
const e: PhaseEnv = { cfg, tool: "wrk", dir, log: (m) => console.log(m) };
let secret = `bench-${crypto.randomUUID()}-${crypto.randomUUID()}`;
installCleanup();

/** main.ts of `tree` over `kvPath`, with the bench's server settings and the shared secret. */
function mainServer(name: string, tree: string, kvPath: string): Promise<Server> {
  return startServer(e, name, kvPath, { tree, secret });
}

/** bench/status_floor_server.ts, plain or verifying tickets. */
async function floorServer(name: string, verify: boolean): Promise<Server> {
  const port = freePort();
  const path = new URL("./status_floor_server.ts", import.meta.url).pathname;
  const proc = await start(name, Deno.execPath(), ["run", "-A", path], {
    env: { PORT: String(port), TOKEN_SECRET: secret, FLOOR_VERIFY: verify ? "ticket" : "" },
    logPath: `${dir}/${name}.log`,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/`, proc);
  return { proc, url, secret };
}

/** User + system CPU of a process so far, in microseconds (clock ticks of 10 ms). */
async function cpuUs(p: Proc): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${p.child.pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10_000; // utime, stime (fields 14, 15)
}

/** Copies a KV file with its SQLite side files. */
async function copyKv(from: string, to: string): Promise<void> {
  for (const suffix of ["", "-shm", "-wal"]) {
    await Deno.copyFile(from + suffix, to + suffix).catch(() => {});
  }
}

/** CPU so far of each thread of a process by thread name, in microseconds (live threads only). */
async function threadCpuUs(p: Proc): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const t of Deno.readDir(`/proc/${p.child.pid}/task`)) {
    try {
      const stat = await Deno.readTextFile(`/proc/${p.child.pid}/task/${t.name}/stat`);
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[0-9]+$/, "N");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 10_000);
    } catch { /* the thread ended */ }
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;

try {
  // STATUS_AB_PREPARED=dir: the line and tickets of an earlier run in dir (made when missing),
  // for quick repeats; its tickets' visitors lapse about 10 minutes after it was made.
  const prepared = env.STATUS_AB_PREPARED;
  let linePath: string, tickets: string[];
  try {
    if (!prepared) throw new Error("not prepared");
    ({ tickets, secret } = JSON.parse(await Deno.readTextFile(`${prepared}/tickets.json`)));
    linePath = `${prepared}/line.kv`;
  } catch {
    const sd = await seedFile(e, cfg.statusLine, { joinLater: 0, name: "line", minLifeSec: 600 });
    const first = await mainServer("tickets", trees[0].dir, sd.kvPath);
    // Not due before the run ends: each server's warm-up and slices, and 2.5 minutes for the search.
    const servers = trees.length + (env.STATUS_AB_FLOORS === "0" ? 0 : 2);
    const until = Date.now() + (servers * (2 + rounds * sliceSec) + 150) * 1000;
    const got = await notDueTickets(first.url, cfg.statusTickets, until, cfg.statusTickets * 40);
    await first.proc.stop();
    console.log(`${got.tickets.length} tickets not due (${got.joined} joins)`);
    tickets = got.tickets.map((t) => t.ticket);
    if (tickets.length < 100) throw new Error("too few tickets not due: shorten the run");
    linePath = sd.kvPath;
    if (prepared) {
      await Deno.mkdir(prepared, { recursive: true });
      await copyKv(linePath, `${prepared}/line.kv`);
      await Deno.writeTextFile(`${prepared}/tickets.json`, JSON.stringify({ tickets, secret }));
    }
  }
  const servers: { name: string; s: Server }[] = [];
  for (const t of trees) {
    const kv = `${dir}/${t.name}.kv`;
    await copyKv(linePath, kv);
    servers.push({ name: `GET /status, ${t.name}`, s: await mainServer(t.name, t.dir, kv) });
  }
  if (env.STATUS_AB_FLOORS !== "0") {
    servers.push({ name: "HTTP floor", s: await floorServer("floor", false) });
    servers.push({ name: "HTTP floor + ticket verified", s: await floorServer("floor-v", true) });
  }
  const spec = (s: Server, name: string, sec: number) => ({
    name,
    url: s.url,
    method: "GET" as const,
    path: "/status?queue=default",
    tickets,
    connections: cfg.connections,
    threads: cfg.threads,
    durationSec: sec,
  });
  for (const [i, x] of servers.entries()) await runLoad("wrk", spec(x.s, `warm-${i}`, 2), dir);
  const rps: number[][] = servers.map(() => []), us: number[][] = servers.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, x] of servers.entries()) {
      const t0 = await threadCpuUs(x.s.proc);
      const c0 = await cpuUs(x.s.proc);
      const res = await runLoad("wrk", spec(x.s, `r${r}-${i}`, sliceSec), dir);
      const c1 = await cpuUs(x.s.proc);
      const t1 = await threadCpuUs(x.s.proc);
      if (env.STATUS_AB_THREADS === "1") {
        const per = [...t1].map(([k, v]) => [k, (v - (t0.get(k) ?? 0)) / res.requests] as const)
          .filter(([, v]) => v > 0.05).map(([k, v]) => `${k} ${v.toFixed(1)}`);
        console.log(`  ${x.name} threads, us/request: ${per.join(", ")}`);
      }
      if (res.non2xx || res.socketErrors) console.log(`  ${x.name}: ${res.non2xx} non-2xx`);
      rps[i].push(res.rps);
      us[i].push((c1 - c0) / res.requests);
    }
    console.log(
      `round ${r + 1}: ` +
        servers.map((x, i) => `${x.name} ${rps[i][r].toFixed(0)}/s ${us[i][r].toFixed(1)} us`).join(
          "; ",
        ),
    );
  }
  console.log(`\n| server | req/s median [range] | CPU us/request median [range] |`);
  for (const [i, x] of servers.entries()) {
    console.log(
      `| ${x.name} | ${median(rps[i]).toFixed(0)} [${range(rps[i])}] | ${
        median(us[i]).toFixed(1)
      } [${Math.min(...us[i]).toFixed(1)}-${Math.max(...us[i]).toFixed(1)}] |`,
    );
  }
  const ratio = (a: number, b: number, xs: number[][], inv = false) => {
    const per = xs[a].map((v, r) => inv ? xs[b][r] / v : v / xs[b][r]);
    return `${median(per).toFixed(2)} [${Math.min(...per).toFixed(2)}-${
      Math.max(...per).toFixed(2)
    }]`;
  };
  const nf = trees.length;
  console.log(`\nper-round ratios (median [range]); CPU ratios as floor CPU / status CPU:`);
  for (let t = 0; t < nf; t++) {
    for (const f of [nf, nf + 1].filter((f) => f < servers.length)) {
      console.log(
        `${servers[t].name} / ${servers[f].name}: req/s ${ratio(t, f, rps)}, CPU ${
          ratio(t, f, us, true)
        }`,
      );
    }
  }
} finally {
  await stopAll();
  if (env.BENCH_KEEP_TMP !== "1") await Deno.remove(dir, { recursive: true }).catch(() => {});
}
