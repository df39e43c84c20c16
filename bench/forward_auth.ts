/**
 * The forward-auth bench: `deno run -A bench/forward_auth.ts`. An admitted request (a valid
 * `tg_access` cookie) through nginx with docs/examples/nginx.conf as shipped (auth_request to
 * Tollgate, keep-alive upstream), against the same file with its `auth_request` line taken out
 * (nginx straight to the site), interleaved in slices within one run. Beside them, the same
 * example with its checks answered by bench/check_floor_server.ts (a Deno server that answers 204
 * and does nothing else: what any check answered by a Deno process costs), and the optional
 * per-cookie check cache of docs/forward-auth.md (`BENCH_FA_CACHE=0` leaves it out).
 *
 * Every server is its own process: the site (bench/baseline_server.ts: Hono answering
 * `Hello, world`, the worst case, where the check is all there is to measure), Tollgate
 * (main.ts with the example's environment), each nginx, and the load tool (wrk when installed).
 * Knobs: the BENCH_* variables of bench/config.ts (duration, rounds, warm-up, connections).
 */
import { Signer } from "../lib/tokens.ts";
import { checkCacheSwaps, nginxArgs, renderNginx } from "../testing/proxy_examples.ts";
import { readConfig } from "./config.ts";
import { interleave, type Measured, type PhaseEnv, startBaseline } from "./http_phases.ts";
import { type LoadSpec, wrkVersion } from "./load.ts";
import { freePort, installCleanup, type Proc, ROOT, start, stopAll, waitReady } from "./procs.ts";
import { cpuSeconds } from "./proxy.ts";

/** The goal: an admitted request through the check costs at most this much throughput. */
export const FORWARD_AUTH_TARGET = 0.7;

const NGINX = "/usr/sbin/nginx";

/** One nginx from the example (with `swaps`) in its own directory; ready once `probe` is 200. */
async function startNginx(
  e: PhaseEnv,
  name: string,
  ports: { tollgate: number; site: number },
  swaps: [string, string][],
  probe: string,
): Promise<{ proc: Proc; url: string }> {
  const dir = `${e.dir}/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  const proxy = freePort();
  await Deno.writeTextFile(
    `${dir}/nginx.conf`,
    renderNginx({ proxy, ...ports }, "nginx.conf", [
      // No access log: the bench measures the check, not the disk.
      ["    server {\n", "    access_log off;\n\n    server {\n"],
      ...swaps,
    ]),
  );
  const proc = await start(name, NGINX, nginxArgs(dir), { logPath: `${dir}/out.log` });
  const url = `http://127.0.0.1:${proxy}`;
  await waitReady(url + probe, proc);
  return { proc, url };
}

/** CPU seconds of nginx's master and its workers (their children), from /proc. */
function nginxCpu(master: number): number | null {
  let total = cpuSeconds(master);
  if (total === null) return null;
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === master) total += cpuSeconds(Number(e.name)) ?? 0;
    } catch { /* gone */ }
  }
  return total;
}

/** The sites behind nginx: Hono's hello (the worst case) and a server-rendered shop page. */
const SITES = {
  hello: {
    start: (e: PhaseEnv) => startBaseline(e),
    valid: (body: string) => body === "Hello, world",
  },
  page: {
    start: async (e: PhaseEnv) => {
      const port = freePort();
      const proc = await start("page site", Deno.execPath(), [
        "run",
        "-A",
        new URL("./proxy.ts", import.meta.url).pathname,
        "--page-origin",
        String(port),
      ], { cwd: ROOT, logPath: `${e.dir}/page-site.log` });
      const url = `http://127.0.0.1:${port}`;
      await waitReady(`${url}/`, proc);
      return { proc, url };
    },
    valid: (body: string) => body.startsWith("<!doctype html>") && body.length > 25_000,
  },
};

/** One site measured: direct, checked as shipped, and (optionally) with the check cache. */
async function measure(
  e: PhaseEnv,
  name: keyof typeof SITES,
  tollgate: { proc: Proc; port: number; secret: string },
  withCache: boolean,
  floorPort: number,
): Promise<boolean> {
  const { cfg } = e;
  const profile = SITES[name];
  const site = await profile.start(e);
  const ports = { tollgate: tollgate.port, site: +new URL(site.url).port };
  const direct = await startNginx(e, `${name}-direct`, ports, [
    ["            auth_request /_tollgate_check;\n", ""],
  ], "/");
  const checked = await startNginx(e, `${name}-checked`, ports, [], "/_tollgate/health");
  // The same example, its checks answered by a Deno server that does nothing else.
  const floor = await startNginx(
    e,
    `${name}-floor`,
    { ...ports, tollgate: floorPort },
    [],
    "/_tollgate/health",
  );
  const cached = withCache
    ? await startNginx(
      e,
      `${name}-cached`,
      ports,
      checkCacheSwaps(`${e.dir}/${name}-checks`),
      "/_tollgate/health",
    )
    : null;
  const token = await new Signer(tollgate.secret).signAccessToken(
    "bench",
    "default",
    Date.now(),
    3600,
  );
  const headers = { Cookie: `tg_access=${token}` };
  // Each must really answer the site's page to the admitted visitor, and the checked ones
  // must refuse anyone else, before anything is measured.
  for (const s of [direct, checked, cached, floor]) {
    if (!s) continue;
    const ok = await fetch(`${s.url}/`, { headers });
    const text = await ok.text();
    if (ok.status !== 200 || !profile.valid(text)) {
      throw new Error(`${s.url}/ answered ${ok.status} ${JSON.stringify(text.slice(0, 200))}`);
    }
    if (s === direct || s === floor) continue;
    const no = await fetch(`${s.url}/`, { redirect: "manual" });
    await no.body?.cancel();
    if (no.status !== 302) throw new Error(`${s.url}/ without a token: ${no.status}`);
  }
  const spec = (label: string, url: string): LoadSpec => ({
    name: `${name}-${label}`,
    url,
    method: "GET",
    path: "/",
    headers,
    connections: cfg.connections,
    threads: cfg.threads,
    durationSec: cfg.durationSec,
  });
  const runs = [
    { label: "direct", proxy: direct },
    { label: "auth_request", proxy: checked },
    { label: "auth_request-floor", proxy: floor },
    ...(cached ? [{ label: "auth_request-cached", proxy: cached }] : []),
  ];
  // CPU per request of each process, counted around each run's slices only: less noisy than
  // throughput on a shared machine.
  const take = () => ({
    tollgate: cpuSeconds(tollgate.proc.child.pid) ?? 0,
    site: cpuSeconds(site.proc.child.pid) ?? 0,
    nginx: runs.map((r) => nginxCpu(r.proxy.proc.child.pid) ?? 0),
  });
  const before = take();
  const measured = await interleave(e, runs.map((r) => spec(r.label, r.proxy.url)));
  const after = take();
  // The site serves every run, each nginx its own; Tollgate answers the shipped run's checks
  // (the cached run asks it once per cookie every 5 s), so its CPU is counted against those.
  const checkedRequests = measured[1].total.requests;
  const allRequests = measured.reduce((a, m) => a + m.total.requests, 0);
  const us = (sec: number, n: number) => `${Math.round((sec * 1e6) / Math.max(1, n))} us`;
  const rps = (m: Measured) => Math.round(m.total.rps);
  const slices = (m: Measured) => m.slices.map((s) => Math.round(s.rps)).join(", ");
  const errors = (m: Measured) => m.total.non2xx + m.total.socketErrors;
  const [d, c, f, k] = measured;
  const ratio = c.total.rps / d.total.rps;
  const pass = ratio >= FORWARD_AUTH_TARGET && errors(c) === 0;
  const nginxUs = (i: number) => us(after.nginx[i] - before.nginx[i], measured[i].total.requests);
  console.log(
    `\n[${name}] site answers ${name === "hello" ? "12 bytes" : "about 29 KB"}` +
      `\nnginx straight to the site   ${rps(d)} req/s (slices ${slices(d)})` +
      `\nnginx auth_request, shipped  ${rps(c)} req/s (slices ${slices(c)}; p50 ${
        c.total.p50Ms.toFixed(2)
      } ms, p99 ${c.total.p99Ms.toFixed(2)} ms, ${errors(c)} errors)` +
      `\ncheck floor (Deno, 204 only) ${rps(f)} req/s (slices ${slices(f)}), ratio ${
        (f.total.rps / d.total.rps).toFixed(3)
      }; Tollgate's check / floor ${(c.total.rps / f.total.rps).toFixed(3)}` +
      (k
        ? `\nwith the check cache (5 s)   ${rps(k)} req/s (slices ${slices(k)}; ${
          errors(k)
        } errors), ratio ${(k.total.rps / d.total.rps).toFixed(3)}`
        : "") +
      `\nCPU/request                  site ${
        us(after.site - before.site, allRequests)
      }; nginx direct ${nginxUs(0)}, checked ${nginxUs(1)}, floor ${nginxUs(2)}${
        k ? `, cached ${nginxUs(3)}` : ""
      }; Tollgate per checked request ${us(after.tollgate - before.tollgate, checkedRequests)}` +
      `\nratio                        ${
        ratio.toFixed(3)
      } checked / direct (goal ${FORWARD_AUTH_TARGET}): ${pass ? "PASS" : "FAIL"}`,
  );
  await Promise.all([site.proc.stop(), ...runs.map((r) => r.proxy.proc.stop())]);
  return pass;
}

async function main() {
  const cfg = readConfig(Deno.env.toObject());
  const withCache = Deno.env.get("BENCH_FA_CACHE") !== "0";
  const sites = (Deno.env.get("BENCH_FA_SITES") ?? "hello,page").split(
    ",",
  ) as (keyof typeof SITES)[];
  installCleanup();
  const wrk = await wrkVersion();
  const tool = cfg.loadgen === "deno" || !wrk ? "deno" : "wrk";
  const dir = await Deno.makeTempDir({ prefix: "tollgate-fa-bench-" });
  // nginx's workers (not root) keep the check cache under it.
  await Deno.chmod(dir, 0o755);
  const e: PhaseEnv = { cfg, tool, dir, log: (m) => console.log(m) };
  console.log(
    `load tool: ${tool === "wrk" ? wrk : "bench/loadgen.ts"}; ${cfg.connections} connections, ` +
      `${cfg.threads} thread(s), ${cfg.durationSec} s each in ${cfg.rounds} slices; ` +
      `sites ${sites.join(", ")}`,
  );
  try {
    const port = freePort();
    const secret = `bench-${crypto.randomUUID()}-${crypto.randomUUID()}`;
    const proc = await start("tollgate", Deno.execPath(), ["run", "-A", "main.ts"], {
      env: {
        DENO_KV_PATH: `${dir}/tollgate.kv`,
        TOKEN_SECRET: secret,
        PORT: String(port),
        QUEUES: "default",
        TOLLGATE_ENV: "test",
        // The environment the example names.
        BASE_PATH: "/_tollgate",
        TRUSTED_PROXIES: "127.0.0.1",
        CLIENT_IP_HEADER: "x-forwarded-for",
        VERIFY_TOKEN_IN_QUERY: "0",
      },
      cwd: ROOT,
      logPath: `${dir}/tollgate.log`,
    });
    await waitReady(`http://127.0.0.1:${port}/_tollgate/health`, proc);
    const floorPort = freePort();
    const floor = await start("check floor", Deno.execPath(), [
      "run",
      "-A",
      new URL("./check_floor_server.ts", import.meta.url).pathname,
    ], { env: { PORT: String(floorPort) }, cwd: ROOT, logPath: `${dir}/check-floor.log` });
    await waitReady(`http://127.0.0.1:${floorPort}/_tollgate/health`, floor);
    let pass = true;
    for (const name of sites) {
      pass = (await measure(e, name, { proc, port, secret }, withCache, floorPort)) && pass;
    }
    if (!pass && cfg.strict) Deno.exitCode = 1;
  } finally {
    await stopAll();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
