/**
 * The origin proxy benchmark: `deno run -A bench/proxy.ts`. For each origin profile it starts the
 * origin and Tollgate (main.ts with ORIGIN_URL pointing at it), each its own process, mints an
 * access token, and measures `GET /` through the proxy as an admitted visitor against `GET /` on
 * the origin directly, interleaved in slices within the same run (the load tool in another
 * process). Prints both, the ratio, and PASS/FAIL against the 0.6 target, per profile.
 *
 * Two origin profiles (`BENCH_PROXY_PROFILES=hello,page`, both by default):
 * - `hello`: bench/baseline_server.ts, Hono answering `Hello, world` (about 11 us of CPU). The
 *   worst case for any proxy: the proxy's own cost is all there is to measure.
 * - `page`: a representative page origin (`bench/proxy.ts --page-origin <port>`): each request
 *   renders a shop listing of 56 products from a template (prices with VAT and discounts, a
 *   ranking sort, nearest "also looked at" items, HTML escaping), about 29 KB of HTML and about
 *   0.3 to 0.5 ms of CPU on the bench machine (measured per run: "origin CPU").
 *
 * Beside them it measures the platform's ceiling: the least a fetch-based proxy can be (Deno.serve
 * handing each request to `fetch` and returning its response; `bench/proxy.ts --bare <port>
 * <origin>`), so Tollgate against it is the cost of our own code. Knobs: the BENCH_* variables
 * of bench/config.ts (duration, rounds, warm-up, connections, BENCH_STRICT).
 */
import { Signer } from "../lib/tokens.ts";
import { readConfig } from "./config.ts";
import { interleave, type Measured, type PhaseEnv, startBaseline } from "./http_phases.ts";
import { type LoadSpec, runLoad, wrkVersion } from "./load.ts";
import { freePort, installCleanup, type Proc, ROOT, start, stopAll, waitReady } from "./procs.ts";

/** The proxied/direct throughput ratio the proxy must reach. */
export const PROXY_TARGET = 0.6;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. */
export function cpuSeconds(pid: number): number | null {
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

const NAMES = ["Trail", "Summit", "Harbor", "Cedar", "Aurora", "Granite", "Meadow", "Vista"];
const KINDS = ["Backpack", "Jacket", "Boots", "Tent", "Lantern", "Bottle", "Gloves", "Scarf"];
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const eur = (n: number) => `€${n.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ",")}`;

/** One shop listing page, computed afresh: what a typical server-rendered page does per request. */
export function renderPage(page: number): string {
  let seed = 2166136261 ^ page;
  const rnd = () => (seed = Math.imul(seed ^ (seed >>> 15), 2246822507) >>> 0) / 4294967296;
  const items = Array.from({ length: 56 }, (_, i) => {
    const name = `${NAMES[Math.floor(rnd() * 8)]} ${KINDS[Math.floor(rnd() * 8)]} "${i}" & co`;
    const base = 10 + rnd() * 290, discount = rnd() < 0.3 ? Math.round(rnd() * 40) : 0;
    const price = base * (1 - discount / 100) * 1.19, rating = 1 + rnd() * 4;
    const reviews = Math.floor(rnd() * 5000);
    return { name, base, discount, price, rating, reviews };
  });
  const score = (it: typeof items[0]) => it.rating * Math.log1p(it.reviews) - it.price / 100;
  items.sort((a, b) => score(b) - score(a));
  // "Customers also looked at": the three nearest items by price and rating.
  const related = items.map((a) => {
    const best: { j: number; d: number }[] = [];
    items.forEach((b, j) => {
      const d = a === b ? Infinity : Math.hypot((a.price - b.price) / 50, a.rating - b.rating);
      if (best.length === 3 && d >= best[2].d) return;
      best.push({ j, d });
      best.sort((x, y) => x.d - y.d);
      if (best.length > 3) best.pop();
    });
    return best.map((x) => `<a href="#r${x.j + 1}">#${x.j + 1}</a>`).join(" ");
  });
  const cards = items.map((it, i) => {
    const stars = Math.round(it.rating);
    const was = it.discount ? ` <s>${eur(it.base * 1.19)}</s> <em>-${it.discount}%</em>` : "";
    return `<li class="card" id="r${i + 1}"><a href="/product/${page}-${i}"><h3>${
      esc(it.name)
    }</h3></a><p class="price">${eur(it.price)}${was}</p><p class="rating">${
      "★".repeat(stars) + "☆".repeat(5 - stars)
    } (${it.reviews} reviews)</p><p class="related">Also: ${related[i]}</p><p>${
      esc(
        `Hand-picked ${it.name.toLowerCase()} for every season, with free returns within 30 ` +
          "days and a two-year warranty. Tested on the trail by our own team in rain, snow and " +
          "summer heat; repairs are free for the first year.",
      )
    }</p></li>`;
  }).join("\n");
  const avg = items.reduce((a, it) => a + it.price, 0) / items.length;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop, page ${page}` +
    `</title><style>body{font:16px system-ui}.card{border:1px solid #ddd}</style></head><body>` +
    `<header><nav><a href="/">Home</a> <a href="/cart">Cart</a></nav><h1>Outdoor gear</h1>` +
    `</header><main><ul>\n${cards}\n</ul><p>${items.length} products, average ${eur(avg)}</p>` +
    `</main><footer>${
      "<p>Shipping, returns, privacy, imprint.</p>".repeat(4)
    }</footer></body></html>`;
}

/** The page origin (its own process): each request renders the next of 50 listing pages. */
function pageOrigin(port: number): void {
  let n = 0;
  const onListen = () => console.log(`page origin on ${port}`);
  Deno.serve({ hostname: "127.0.0.1", port, onListen }, () =>
    new Response(renderPage(n++ % 50), {
      headers: { "content-type": "text/html; charset=utf-8" },
    }));
}

/** An origin profile: how to start it and what its `GET /` answers. */
interface Profile {
  name: "hello" | "page";
  start(e: PhaseEnv): Promise<{ proc: Proc; url: string }>;
  valid(body: string): boolean;
}

/** Starts this file in one of its server modes on a free port; answers once `/` does. */
async function startSelf(e: PhaseEnv, name: string, mode: string, ...args: string[]) {
  const port = freePort();
  const self = new URL(import.meta.url).pathname;
  const proc = await start(
    name,
    Deno.execPath(),
    ["run", "-A", self, mode, String(port), ...args],
    {
      cwd: ROOT,
      logPath: `${e.dir}/${name.replace(/ /g, "-")}.log`,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/`, proc);
  return { proc, url };
}

const PROFILES: Profile[] = [
  { name: "hello", start: (e) => startBaseline(e), valid: (b) => b === "Hello, world" },
  {
    name: "page",
    start: (e) => startSelf(e, "page origin", "--page-origin"),
    valid: (b) => b.startsWith("<!doctype html>") && b.length > 25_000,
  },
];

/** One profile measured: direct, proxied and bare fetch proxy, with CPU per request. */
async function measure(e: PhaseEnv, p: Profile): Promise<boolean> {
  const { cfg } = e;
  const origin = await p.start(e);
  const port = freePort();
  const secret = `bench-${crypto.randomUUID()}-${crypto.randomUUID()}`;
  const proc = await start("tollgate", Deno.execPath(), ["run", "-A", "main.ts"], {
    env: {
      DENO_KV_PATH: `${e.dir}/proxy-${p.name}.kv`,
      TOKEN_SECRET: secret,
      PORT: String(port),
      ORIGIN_URL: origin.url,
      QUEUES: "default",
      TOLLGATE_ENV: "test",
    },
    cwd: ROOT,
    logPath: `${e.dir}/tollgate-${p.name}.log`,
  });
  const bare = await startSelf(e, `bare proxy ${p.name}`, "--bare", origin.url);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/health`, proc);
  const token = await new Signer(secret).signAccessToken("bench", "default", Date.now(), 3600);
  const headers = { Cookie: `tg_access=${token}` };

  // The proxy must really proxy (and refuse without the token) before it is measured.
  const ok = await fetch(`${url}/`, { headers });
  const text = await ok.text();
  if (ok.status !== 200 || !p.valid(text)) {
    throw new Error(`proxied GET / answered ${ok.status} ${JSON.stringify(text.slice(0, 200))}`);
  }
  const refused = await fetch(`${url}/`, { redirect: "manual" });
  await refused.body?.cancel();
  if (refused.status !== 302) throw new Error(`GET / without a token: ${refused.status}`);

  // Every run sends the same cookie, so each server reads the same request.
  const spec = (name: string, base: string): LoadSpec => ({
    name: `${p.name}-${name}`,
    url: base,
    method: "GET",
    path: "/",
    headers,
    connections: cfg.connections,
    threads: cfg.threads,
    durationSec: cfg.durationSec,
  });
  const specs = [spec("direct", origin.url), spec("proxied", url), spec("bare", bare.url)];
  // Warm-ups first, so the CPU counted below belongs to the measured requests only.
  if (cfg.warmupSec > 0) {
    for (const s of specs) {
      await runLoad(e.tool, { ...s, name: `${s.name}-warmup`, durationSec: cfg.warmupSec }, e.dir);
    }
  }
  const pids = [proc, bare.proc, origin.proc].map((x) => x.child.pid);
  const cpu0 = pids.map(cpuSeconds);
  const [direct, proxied, ceiling] = await interleave(
    { ...e, cfg: { ...cfg, warmupSec: 0 } },
    specs,
  );
  const cpu1 = pids.map(cpuSeconds);
  // CPU per request of each process: less noisy than throughput on a shared machine (each is
  // all but idle outside its own slices; the origin serves all three runs).
  const perRequest = (i: number, requests: number) =>
    cpu0[i] === null || cpu1[i] === null
      ? "n/a"
      : `${Math.round(((cpu1[i]! - cpu0[i]!) * 1e6) / requests)} us`;
  const all = direct.total.requests + proxied.total.requests + ceiling.total.requests;
  const rps = (m: Measured) => Math.round(m.total.rps);
  const ratio = proxied.total.rps / direct.total.rps;
  const errors = proxied.total.non2xx + proxied.total.socketErrors;
  const pass = ratio >= PROXY_TARGET && errors === 0;
  const slices = (m: Measured) => m.slices.map((s) => Math.round(s.rps)).join(", ");
  console.log(
    `\n[${p.name}] origin answers ${text.length} bytes` +
      `\ndirect            ${rps(direct)} req/s (slices ${slices(direct)})` +
      `\nproxied           ${rps(proxied)} req/s (slices ${slices(proxied)}; p50 ${
        proxied.total.p50Ms.toFixed(2)
      } ms, p99 ${proxied.total.p99Ms.toFixed(2)} ms, ${errors} errors)` +
      `\nbare fetch proxy  ${rps(ceiling)} req/s (slices ${slices(ceiling)})` +
      `\nCPU/request       tollgate ${perRequest(0, proxied.total.requests)}, bare ${
        perRequest(1, ceiling.total.requests)
      }, origin ${perRequest(2, all)}` +
      `\nbare / direct     ${(ceiling.total.rps / direct.total.rps).toFixed(3)} (the ceiling)` +
      `\nproxied / bare    ${(proxied.total.rps / ceiling.total.rps).toFixed(3)} (our code)` +
      `\nratio             ${ratio.toFixed(3)} proxied / direct (target ${PROXY_TARGET}): ${
        pass ? "PASS" : "FAIL"
      }`,
  );
  await Promise.all([proc.stop(), bare.proc.stop(), origin.proc.stop()]);
  return pass;
}

async function main() {
  const cfg = readConfig(Deno.env.toObject());
  const names = (Deno.env.get("BENCH_PROXY_PROFILES") ?? "hello,page").split(",");
  const profiles = PROFILES.filter((p) => names.includes(p.name));
  installCleanup();
  const wrk = await wrkVersion();
  const tool = cfg.loadgen === "deno" || !wrk ? "deno" : "wrk";
  const dir = await Deno.makeTempDir({ prefix: "tollgate-proxy-bench-" });
  const e: PhaseEnv = { cfg, tool, dir, log: (m) => console.log(m) };
  console.log(
    `load tool: ${tool === "wrk" ? wrk : "bench/loadgen.ts"}; ${cfg.connections} connections, ` +
      `${cfg.threads} thread(s), ${cfg.durationSec} s each in ${cfg.rounds} slices; ` +
      `profiles ${profiles.map((p) => p.name).join(", ")}`,
  );
  try {
    let pass = true;
    for (const p of profiles) pass = (await measure(e, p)) && pass;
    if (!pass && cfg.strict) Deno.exitCode = 1;
  } finally {
    await stopAll();
    if (!cfg.keepTmp) await Deno.remove(dir, { recursive: true }).catch(() => {});
    else console.log(`temp files kept in ${dir}`);
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "--bare") bareProxy(Number(Deno.args[1]), Deno.args[2]);
  else if (Deno.args[0] === "--page-origin") pageOrigin(Number(Deno.args[1]));
  else await main();
}
