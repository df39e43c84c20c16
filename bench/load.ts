/**
 * Load generation against a server in another process: wrk (with a generated Lua script) when it
 * is installed, else the Deno generator in loadgen.ts, also in its own process. One tool is used
 * for a whole run, so every ratio compares like with like.
 */
import { output, start } from "./procs.ts";

/** What to send, how hard, for how long. */
export interface LoadSpec {
  name: string;
  /** Base URL, e.g. `http://127.0.0.1:8000`. */
  url: string;
  method: "GET" | "POST";
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** `tg_ticket` cookies, used round-robin (one per request). */
  tickets?: string[];
  /** Replace a ticket with the one its response sets (needs one connection per thread). */
  follow?: boolean;
  connections: number;
  threads: number;
  durationSec: number;
}

/** Throughput and latency of one load run. */
export interface LoadResult {
  tool: "wrk" | "deno";
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  /** Responses with a status outside 2xx and 3xx. */
  non2xx: number;
  socketErrors: number;
}

/** The load tool of this run. */
export type LoadTool = "wrk" | "deno";

/** wrk's version line, or null when wrk cannot be run. */
export async function wrkVersion(): Promise<string | null> {
  const out = await output("wrk", ["--version"]);
  const line = out?.split("\n").find((l) => /^wrk /.test(l));
  return line?.trim() ?? null;
}

const luaString = (s: string) => `[==[${s}]==]`;

/** Lua that prints wrk's numbers as one JSON line. */
const WRK_DONE = `
function done(summary, latency, requests)
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"p50":%.1f,"p90":%.1f,"p99":%.1f,"mean":%.1f,' ..
    '"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.mean, summary.errors.status, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.timeout))
end
`;

/**
 * The wrk Lua script for `s`. Without tickets it only sets `wrk.method/body/headers`, so wrk
 * sends its static request (a Lua `request()` per request costs wrk about a third of its
 * throughput); with tickets, `request()` returns prebuilt requests, or builds them when
 * following Set-Cookie.
 */
export function wrkScript(s: LoadSpec): string {
  const tickets = s.tickets ?? [];
  const headers = Object.entries(s.headers ?? {})
    .map(([k, v]) => `[ ${luaString(k)} ] = ${luaString(v)}`).join(", ");
  if (tickets.length === 0) {
    return `
wrk.method = ${luaString(s.method)}
${s.body ? `wrk.body = ${luaString(s.body)}` : ""}
${
      Object.entries(s.headers ?? {}).map(([k, v]) =>
        `wrk.headers[ ${luaString(k)} ] = ${luaString(v)}`
      ).join("\n")
    }
${WRK_DONE}`;
  }
  const follow = !!s.follow;
  return `
local method, path = ${luaString(s.method)}, ${luaString(s.path)}
local body = ${s.body ? luaString(s.body) : "nil"}
local base = { ${headers} }
local tickets = { ${tickets.map(luaString).join(",\n")} }
local n = #tickets
local follow = ${follow}
local threads_total = ${s.threads}
local idx, cur, reqs = 0, 0, {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("tno", counter)
end

local function build(i)
  local h = {}
  for k, v in pairs(base) do h[k] = v end
  h["Cookie"] = "tg_ticket=" .. tickets[i]
  return wrk.format(method, path, h, body)
end

function init(args)
  idx = math.floor(((tno or 1) - 1) * n / threads_total)
  if not follow then
    for i = 1, n do reqs[i] = build(i) end
  end
end

function request()
  idx = idx % n + 1
  cur = idx
  if follow then return build(idx) end
  return reqs[idx]
end
${
    follow
      ? `
function response(status, headers, body)
  local sc = headers["set-cookie"] or headers["Set-Cookie"]
  if sc then
    local t = string.match(sc, "tg_ticket=([^;]+)")
    if t then tickets[cur] = t end
  end
end
`
      : ""
  }${WRK_DONE}`;
}

async function runWrk(s: LoadSpec, dir: string): Promise<LoadResult> {
  const script = `${dir}/${s.name}.lua`;
  await Deno.writeTextFile(script, wrkScript(s));
  const log = `${dir}/${s.name}.wrk.log`;
  const p = await start(`wrk ${s.name}`, "wrk", [
    "-t",
    String(s.threads),
    "-c",
    String(s.connections),
    "-d",
    `${s.durationSec}s`,
    "--timeout",
    "10s",
    "-s",
    script,
    s.url + s.path,
  ], { logPath: log });
  const status = await p.finished();
  await p.stop();
  const text = await Deno.readTextFile(log);
  const line = text.split("\n").find((l) => l.startsWith("WRKJSON "));
  if (!status.success || !line) throw new Error(`wrk ${s.name} failed:\n${text.slice(-2000)}`);
  const j = JSON.parse(line.slice(8));
  const seconds = j.duration_us / 1e6;
  return {
    tool: "wrk",
    requests: j.requests,
    seconds,
    rps: j.requests / seconds,
    p50Ms: j.p50 / 1000,
    p90Ms: j.p90 / 1000,
    p99Ms: j.p99 / 1000,
    meanMs: j.mean / 1000,
    non2xx: j.status,
    socketErrors: j.connect + j.read + j.write + j.timeout,
  };
}

async function runDeno(s: LoadSpec, dir: string): Promise<LoadResult> {
  const specPath = `${dir}/${s.name}.json`;
  await Deno.writeTextFile(specPath, JSON.stringify(s));
  const log = `${dir}/${s.name}.loadgen.log`;
  const gen = new URL("./loadgen.ts", import.meta.url).pathname;
  const p = await start(`loadgen ${s.name}`, Deno.execPath(), ["run", "-A", gen, specPath], {
    logPath: log,
  });
  const status = await p.finished();
  await p.stop();
  const text = await Deno.readTextFile(log);
  const line = text.split("\n").find((l) => l.startsWith("LOADJSON "));
  if (!status.success || !line) throw new Error(`loadgen ${s.name} failed:\n${text.slice(-2000)}`);
  return JSON.parse(line.slice(9));
}

/** Runs `s` with `tool`; scripts and logs go to `dir`. */
export function runLoad(tool: LoadTool, s: LoadSpec, dir: string): Promise<LoadResult> {
  if (s.follow && s.connections !== s.threads && tool === "wrk") {
    throw new Error(`${s.name}: following tickets needs one connection per wrk thread`);
  }
  return tool === "wrk" ? runWrk(s, dir) : runDeno(s, dir);
}
