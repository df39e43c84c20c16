/**
 * The HTTP throughput measurements: joins and status against a real main.ts process, each
 * interleaved with the baseline server in short slices (A B A B ...). These machines are shared
 * and noisy; interleaving makes both sides of a ratio see the same noise. Every server is its
 * own process.
 */
import type { BenchConfig } from "./config.ts";
import { type LoadResult, type LoadSpec, type LoadTool, runLoad } from "./load.ts";
import { freePort, type Proc, ROOT, start, waitReady } from "./procs.ts";
import { removeKv, seedFile } from "./seeding.ts";
import { joinVisitors, notDueTickets } from "./tickets.ts";

/** Where a phase's files go and which load tool it uses. */
export interface PhaseEnv {
  cfg: BenchConfig;
  tool: LoadTool;
  dir: string;
  log: (msg: string) => void;
}

/** A measured spec: all its slices merged, and the slices. */
export interface Measured {
  total: LoadResult;
  slices: LoadResult[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor((s.length - 1) / 2)];
};

/** Merges slices: counts add up; latency percentiles are the median of the slices'. */
export function merge(slices: LoadResult[]): LoadResult {
  const requests = slices.reduce((a, s) => a + s.requests, 0);
  const seconds = slices.reduce((a, s) => a + s.seconds, 0);
  return {
    tool: slices[0].tool,
    requests,
    seconds,
    rps: requests / seconds,
    p50Ms: median(slices.map((s) => s.p50Ms)),
    p90Ms: median(slices.map((s) => s.p90Ms)),
    p99Ms: median(slices.map((s) => s.p99Ms)),
    meanMs: slices.reduce((a, s) => a + s.meanMs * s.requests, 0) / Math.max(1, requests),
    non2xx: slices.reduce((a, s) => a + s.non2xx, 0),
    socketErrors: slices.reduce((a, s) => a + s.socketErrors, 0),
  };
}

/**
 * Warms each spec up once, then runs `rounds` rounds of one slice per spec, in order; each
 * spec's `durationSec` is its total measured time.
 */
export async function interleave(e: PhaseEnv, specs: LoadSpec[]): Promise<Measured[]> {
  const rounds = e.cfg.rounds;
  if (e.cfg.warmupSec > 0) {
    for (const s of specs) {
      await runLoad(
        e.tool,
        { ...s, name: `${s.name}-warmup`, durationSec: e.cfg.warmupSec },
        e.dir,
      );
    }
  }
  const slices: LoadResult[][] = specs.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [j, s] of specs.entries()) {
      const slice = Math.max(1, Math.round(s.durationSec / rounds));
      slices[j].push(
        await runLoad(e.tool, { ...s, name: `${s.name}-${i}`, durationSec: slice }, e.dir),
      );
    }
  }
  return specs.map((s, j) => {
    const total = merge(slices[j]);
    e.log(
      `  ${s.name}: ${Math.round(total.rps)} req/s, p50 ${total.p50Ms.toFixed(3)} ms, p99 ${
        total.p99Ms.toFixed(3)
      } ms` +
        (total.non2xx || total.socketErrors
          ? `, ${total.non2xx} non-2xx, ${total.socketErrors} socket errors`
          : ""),
    );
    return { total, slices: slices[j] };
  });
}

/** A running server process and its base URL. */
export interface Server {
  proc: Proc;
  url: string;
  secret: string;
}

/** Starts one of the reference servers in bench/ (`GET /` answers when it is ready). */
/** BENCH_DENO_FLAGS: flags for every server's `deno run` (e.g. `--cpu-prof --cpu-prof-dir=...`). */
function denoFlags(): string[] {
  return (Deno.env.get("BENCH_DENO_FLAGS") ?? "").split(" ").filter(Boolean);
}

async function startReference(
  e: PhaseEnv,
  name: string,
  file: string,
  env: Record<string, string> = {},
): Promise<Server> {
  const port = freePort();
  const path = new URL(`./${file}`, import.meta.url).pathname;
  const proc = await start(name, Deno.execPath(), ["run", "-A", ...denoFlags(), path], {
    env: { PORT: String(port), ...env },
    cwd: ROOT,
    logPath: `${e.dir}/${name}.log`,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/`, proc);
  return { proc, url, secret: "" };
}

/** Starts the baseline: a tiny Deno.serve + Hono app answering plain text. */
export function startBaseline(e: PhaseEnv): Promise<Server> {
  return startReference(e, "baseline", "baseline_server.ts");
}

/**
 * The floors of a join (bench/join_floor_server.ts `FLOOR_LAYOUT`), each with its short label
 * (target line, slices) and its table label.
 */
export const JOIN_FLOORS = [
  ["visitor", "KV floor", "KV floor of a join (no queue logic)"],
  ["batch", "one record a batch", "join floor, one record a batch (no per-visitor record)"],
  ["none", "no KV", "join floor, no KV (the HTTP work alone)"],
] as const;

/** What a join floor writes. */
export type JoinFloorLayout = typeof JOIN_FLOORS[number][0];

/** Starts a floor of a join (bench/join_floor_server.ts) over its own KV file. */
function startJoinFloor(e: PhaseEnv, layout: JoinFloorLayout): Promise<Server> {
  return startReference(e, `join-floor-${layout}`, "join_floor_server.ts", {
    DENO_KV_PATH: `${e.dir}/join-floor-${layout}.kv`,
    FLOOR_LAYOUT: layout,
  });
}

/** Starts the HTTP floor of a status answer (bench/status_floor_server.ts). */
function startStatusFloor(e: PhaseEnv): Promise<Server> {
  return startReference(e, "status-floor", "status_floor_server.ts");
}

/**
 * The baseline's load: `GET /` with the throughput settings. With `tickets`, it is driven exactly
 * like the run it is compared with (wrk's per-request Lua rotation over the same cookies, which
 * alone costs wrk about a third of its throughput), so the ratio measures the server, not the tool.
 */
export function baselineSpec(
  e: PhaseEnv,
  b: Server,
  name: string,
  tickets?: string[],
): LoadSpec {
  return throughputSpec(e, name, b.url, {
    method: "GET",
    path: "/",
    ...(tickets ? { tickets } : {}),
  });
}

/** What a load run sends. */
type LoadRequest = Pick<LoadSpec, "method" | "path" | "body" | "headers" | "tickets">;

/** A throughput run of `request` against `url`, with the run's connections and duration. */
function throughputSpec(
  e: PhaseEnv,
  name: string,
  url: string,
  request: LoadRequest,
): LoadSpec {
  return {
    name,
    url,
    ...request,
    connections: e.cfg.connections,
    threads: e.cfg.threads,
    durationSec: e.cfg.durationSec,
  };
}

/**
 * Starts main.ts on a free port over `kvPath`: this tree's, or `tree`'s (bench/status_ab.ts runs
 * several), with a fresh secret or the one given.
 */
export async function startServer(
  e: PhaseEnv,
  name: string,
  kvPath: string,
  { tree = ROOT, secret = `bench-${crypto.randomUUID()}-${crypto.randomUUID()}` } = {},
): Promise<Server> {
  const port = freePort();
  const proc = await start(name, Deno.execPath(), ["run", "-A", ...denoFlags(), "main.ts"], {
    env: {
      DENO_KV_PATH: kvPath,
      TOKEN_SECRET: secret,
      PORT: String(port),
      MAX_WAITING_VISITORS: "50000000",
      // The load generator is one address: the per-client limit would measure itself.
      JOINS_PER_CLIENT_PER_MINUTE: "0",
      ADMIT_PER_SECOND: String(e.cfg.serverAdmitPerSecond),
      QUEUES: "default",
      TOLLGATE_ENV: "test",
    },
    cwd: tree,
    logPath: `${e.dir}/${name}.log`,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/health`, proc);
  return { proc, url, secret };
}

/** Operator metrics of the default queue. */
export async function metrics(s: Server): Promise<{ waiting: number; admittedTotal: number }> {
  const r = await fetch(`${s.url}/metrics?queue=default`, {
    headers: { authorization: `Bearer ${s.secret}` },
  });
  if (!r.ok) throw new Error(`GET /metrics answered ${r.status}: ${await r.text()}`);
  return await r.json();
}

/** A target and the baseline slices interleaved with it. */
export interface Paired {
  result: LoadResult;
  baseline: LoadResult;
  /** Requests per second of each slice, in order: target, then baseline. */
  slices: { result: number[]; baseline: number[] };
}

/** A measured run against the baseline slices it alternated with. */
function paired(target: Measured, base: Measured): Paired {
  return {
    result: target.total,
    baseline: base.total,
    slices: { result: target.slices.map((x) => x.rps), baseline: base.slices.map((x) => x.rps) },
  };
}

/** Results of the joins and status phase. */
export interface JoinsStatus {
  joins?: Paired;
  /** The floors of a join (bench/join_floor_server.ts), interleaved with the joins. */
  joinFloors?: Partial<Record<JoinFloorLayout, Paired>>;
  status?: Paired;
  waitingAfterJoins?: number;
  /** The HTTP floor of a status answer (bench/status_floor_server.ts), interleaved with it. */
  statusFloor?: Paired;
  /** Waiting on the status run's own seeded line when its tickets had joined. */
  statusLine?: number;
  statusTickets?: number;
  statusTicketJoins?: number;
}

/**
 * `POST /join` throughput, then `GET /status` throughput of waiters whose slot is not due, each
 * interleaved with the baseline `b`.
 */
export async function joinsAndStatus(
  e: PhaseEnv,
  b: Server,
  doJoins: boolean,
  doStatus: boolean,
): Promise<JoinsStatus> {
  const out: JoinsStatus = {};
  if (doJoins) {
    const s = await startServer(e, "server-joins", `${e.dir}/joins.kv`);
    try {
      const join: LoadRequest = {
        method: "POST",
        path: "/join",
        body: JSON.stringify({ queue: "default" }),
        headers: { "Content-Type": "application/json" },
      };
      const layouts = JOIN_FLOORS.map(([layout]) => layout);
      const floors: Server[] = [];
      try {
        for (const l of layouts) floors.push(await startJoinFloor(e, l));
        const [base, joins, ...measured] = await interleave(e, [
          baselineSpec(e, b, "baseline-j"),
          throughputSpec(e, "joins", s.url, join),
          ...floors.map((f, i) => throughputSpec(e, `join-floor-${layouts[i]}`, f.url, join)),
        ]);
        out.joins = paired(joins, base);
        out.joinFloors = Object.fromEntries(measured.map((m, i) => [layouts[i], paired(m, base)]));
      } finally {
        for (const f of floors) await f.proc.stop();
      }
      out.waitingAfterJoins = (await metrics(s)).waiting;
    } finally {
      await s.proc.stop();
    }
  }
  if (doStatus) {
    // Its own line, not the join runs' (their joiners never poll, and the first ones, who joined
    // a short line, lapse and are swept during the status slices). Seeded as joined now, so its
    // slots fill the next period and the polled newcomers' slots come after the run; no seeded
    // deadline falls within 10 minutes, so nobody is swept during it.
    const sd = await seedFile(e, e.cfg.statusLine, {
      joinLater: 0,
      name: "status-line",
      slackSec: 0,
      minLifeSec: 600,
    });
    let s: Server | null = null, floor: Server | null = null;
    try {
      s = await startServer(e, "server-status", sd.kvPath);
      floor = await startStatusFloor(e);
      // Slots must stay in the future through the three runs' warm-ups and slices, with slack
      // for the joins that find the tickets.
      const slices = Math.max(1, Math.round(e.cfg.durationSec / e.cfg.rounds)) * e.cfg.rounds;
      const until = Date.now() + (3 * (e.cfg.warmupSec + slices) + 60) * 1000;
      const got = await notDueTickets(s.url, e.cfg.statusTickets, until, e.cfg.statusTickets * 40);
      out.statusLine = (await metrics(s)).waiting;
      out.statusTickets = got.tickets.length;
      out.statusTicketJoins = got.joined;
      if (got.tickets.length < e.cfg.statusTickets) {
        e.log(
          `  warning: only ${got.tickets.length} of ${e.cfg.statusTickets} tickets are not due in ` +
            `time (line of ${out.statusLine}); some status calls will be due check-ins`,
        );
      }
      const tickets = got.tickets.length
        ? got.tickets
        : await joinVisitors(s.url, e.cfg.statusTickets);
      const ticketTexts = tickets.map((t) => t.ticket);
      const poll: LoadRequest = {
        method: "GET",
        path: "/status?queue=default",
        tickets: ticketTexts,
      };
      const [base, status, httpFloor] = await interleave(e, [
        baselineSpec(e, b, "baseline-s", ticketTexts),
        throughputSpec(e, "status", s.url, poll),
        throughputSpec(e, "status-floor", floor.url, poll),
      ]);
      out.status = paired(status, base);
      out.statusFloor = paired(httpFloor, base);
    } finally {
      await floor?.proc.stop();
      await s?.proc.stop();
      await removeKv(sd.kvPath);
    }
  }
  return out;
}
