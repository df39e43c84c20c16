/**
 * The origin proxy benchmark: `deno run -A bench/proxy.ts`. Starts a small origin (the baseline
 * server: plain Hono text) and Tollgate (main.ts with ORIGIN_URL pointing at it), each its own
 * process, mints an access token, and measures `GET /` through the proxy as an admitted visitor
 * against `GET /` on the origin directly, interleaved in slices within the same run (the load
 * tool in another process). Prints both, the ratio, and PASS/FAIL against the 0.6 target.
 *
 * Beside them it measures the platform's ceiling: the least a fetch-based proxy can be (Deno.serve
 * handing each request to `fetch` and returning its response; `bench/proxy.ts --bare <port>
 * <origin>`), so Tollgate against it is the cost of our own code. Knobs: the BENCH_* variables
 * of bench/config.ts (duration, rounds, warm-up, connections, BENCH_STRICT).
 */
import { Signer } from "../lib/tokens.ts";
import { readConfig } from "./config.ts";
import { interleave, type PhaseEnv, ROOT, startBaseline } from "./http_phases.ts";
import { type LoadSpec, runLoad, wrkVersion } from "./load.ts";
import { freePort, installCleanup, start, stopAll, waitReady } from "./procs.ts";

/** The proxied/direct throughput ratio the proxy must reach. */
export const PROXY_TARGET = 0.6;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command name (which may hold spaces) start after the last ")".
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return null;
  }
}

/** The bare fetch proxy (its own process). */
function bareProxy(port: number, origin: string): void {
  const onListen = () => console.log(`bare proxy on ${port}`);
  Deno.serve({ hostname: "127.0.0.1", port, onListen }, (r) => {
    const u = r.url;
    return fetch(origin + u.slice(u.indexOf("/", 8)), { headers: r.headers });
  });
}

async function main() {
  const cfg = readConfig(Deno.env.toObject());
  installCleanup();
  const wrk = await wrkVersion();
  const tool = cfg.loadgen === "deno" || !wrk ? "deno" : "wrk";
  const dir = await Deno.makeTempDir({ prefix: "tollgate-proxy-bench-" });
  const e: PhaseEnv = { cfg, tool, dir, log: (m) => console.log(m) };
  try {
    const origin = await startBaseline(e);
    const port = freePort();
    const secret = `bench-${crypto.randomUUID()}-${crypto.randomUUID()}`;
    const proc = await start("tollgate", Deno.execPath(), ["run", "-A", "main.ts"], {
      env: {
        DENO_KV_PATH: `${dir}/proxy.kv`,
        TOKEN_SECRET: secret,
        PORT: String(port),
        ORIGIN_URL: origin.url,
        QUEUES: "default",
        TOLLGATE_ENV: "test",
      },
      cwd: ROOT,
      logPath: `${dir}/tollgate.log`,
    });
    const barePort = freePort();
    const self = new URL(import.meta.url).pathname;
    const bare = await start(
      "bare proxy",
      Deno.execPath(),
      ["run", "-A", self, "--bare", String(barePort), origin.url],
      { cwd: ROOT, logPath: `${dir}/bare.log` },
    );
    const url = `http://127.0.0.1:${port}`;
    const bareUrl = `http://127.0.0.1:${barePort}`;
    await waitReady(`${url}/health`, proc);
    await waitReady(`${bareUrl}/`, bare);
    const token = await new Signer(secret).signAccessToken("bench", "default", Date.now(), 3600);
    const headers = { Cookie: `tg_access=${token}` };

    // The proxy must really proxy (and refuse without the token) before it is measured.
    const ok = await fetch(`${url}/`, { headers });
    const text = await ok.text();
    if (ok.status !== 200 || text !== "Hello, world") {
      throw new Error(`proxied GET / answered ${ok.status} ${JSON.stringify(text.slice(0, 200))}`);
    }
    const refused = await fetch(`${url}/`, { redirect: "manual" });
    await refused.body?.cancel();
    if (refused.status !== 302) throw new Error(`GET / without a token: ${refused.status}`);

    console.log(
      `load tool: ${tool === "wrk" ? wrk : "bench/loadgen.ts"}; ${cfg.connections} connections, ` +
        `${cfg.threads} thread(s), ${cfg.durationSec} s each in ${cfg.rounds} slices`,
    );
    // Every run sends the same cookie, so each server reads the same request.
    const spec = (name: string, base: string): LoadSpec => ({
      name,
      url: base,
      method: "GET",
      path: "/",
      headers,
      connections: cfg.connections,
      threads: cfg.threads,
      durationSec: cfg.durationSec,
    });
    const specs = [
      spec("direct", origin.url),
      spec("proxied", url),
      spec("bare-fetch-proxy", bareUrl),
    ];
    // Warm-ups first, so the CPU counted below belongs to the measured requests only.
    if (cfg.warmupSec > 0) {
      for (const s of specs) {
        await runLoad(tool, { ...s, name: `${s.name}-warmup`, durationSec: cfg.warmupSec }, dir);
      }
    }
    const cpu0 = [cpuSeconds(proc.child.pid), cpuSeconds(bare.child.pid)];
    const [direct, proxied, ceiling] = await interleave(
      { ...e, cfg: { ...cfg, warmupSec: 0 } },
      specs,
    );
    const cpu1 = [cpuSeconds(proc.child.pid), cpuSeconds(bare.child.pid)];
    // CPU per request of each proxy process: less noisy than throughput on a shared machine
    // (each is all but idle outside its own slices).
    const perRequest = (i: number, m: typeof direct) =>
      cpu0[i] === null || cpu1[i] === null
        ? "n/a"
        : `${Math.round(((cpu1[i]! - cpu0[i]!) * 1e6) / m.total.requests)} us CPU/request`;
    const rps = (m: typeof direct) => Math.round(m.total.rps);
    const ratio = proxied.total.rps / direct.total.rps;
    const errors = proxied.total.non2xx + proxied.total.socketErrors;
    const pass = ratio >= PROXY_TARGET && errors === 0;
    const slices = (m: typeof direct) => m.slices.map((s) => Math.round(s.rps)).join(", ");
    console.log(
      `\ndirect            ${rps(direct)} req/s (slices ${slices(direct)})` +
        `\nproxied           ${rps(proxied)} req/s (slices ${slices(proxied)}; p50 ${
          proxied.total.p50Ms.toFixed(2)
        } ms, p99 ${proxied.total.p99Ms.toFixed(2)} ms, ${errors} errors)` +
        `\nbare fetch proxy  ${rps(ceiling)} req/s (slices ${slices(ceiling)})` +
        `\nproxy CPU         tollgate ${perRequest(0, proxied)}, bare ${perRequest(1, ceiling)}` +
        `\nbare / direct     ${(ceiling.total.rps / direct.total.rps).toFixed(3)} (the ceiling)` +
        `\nproxied / bare    ${(proxied.total.rps / ceiling.total.rps).toFixed(3)} (our code)` +
        `\nratio             ${ratio.toFixed(3)} proxied / direct (target ${PROXY_TARGET}): ${
          pass ? "PASS" : "FAIL"
        }`,
    );
    if (!pass && cfg.strict) Deno.exitCode = 1;
  } finally {
    await stopAll();
    if (!cfg.keepTmp) await Deno.remove(dir, { recursive: true }).catch(() => {});
    else console.log(`temp files kept in ${dir}`);
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "--bare") bareProxy(Number(Deno.args[1]), Deno.args[2]);
  else await main();
}
