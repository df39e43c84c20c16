/**
 * The exposition against the real Prometheus tools (Debian's `prometheus` package): `promtool
 * check metrics` on the text format, `promtool check/test rules` on the shipped alerts, and a
 * Prometheus server scraping a Tollgate on loopback with the shipped scrape config, its rules
 * loaded, and every query of the shipped Grafana dashboard run against it.
 */
import { parse, stringify } from "yaml";
import { FakeClock } from "../lib/clock.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, operator } from "./helpers.ts";
import { scrape } from "./metrics_helpers.ts";
import { freePort, sleep } from "./server_procs.ts";

const PROMETHEUS = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
const DOCS = new URL("../docs/observability/", import.meta.url).pathname;
const TOKEN = "metrics-token-for-prometheus-0123";

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
const missing = [PROMETHEUS, PROMTOOL].filter((p) => !exists(p));
if (missing.length) {
  console.warn(
    `prometheus_test: skipped, ${missing.join(" and ")} missing ` +
      "(install Debian's package: apt-get install -y prometheus)",
  );
}
const ignore = missing.length > 0;

/** Runs promtool; returns its exit success and combined output. */
async function promtool(args: string[], opts: { stdin?: string; cwd?: string } = {}) {
  const child = new Deno.Command(PROMTOOL, {
    args,
    cwd: opts.cwd,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { ok: out.success, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

/** The real time (Prometheus scrapes in real time), in the shape `makeApp` takes. */
class WallClock extends FakeClock {
  override now(): number {
    return Date.now();
  }
}

type App = Awaited<ReturnType<typeof makeApp>>;

/** Requests through the served `fetch`, where the request metrics are taken. */
type Send = (path: string, init?: RequestInit) => Promise<Response>;

/**
 * Traffic that fills every family, sent with `send`: admissions, waiters, a refusal, status
 * polls, odd paths.
 */
async function traffic(t: App, send: Send): Promise<void> {
  const client = () => new Client({ request: send });
  for (let i = 0; i < 2; i++) await client().join();
  await t.engine.setPaused("default", true);
  const waiters = [];
  for (let i = 0; i < 4; i++) {
    const c = client();
    const res = await c.join();
    if (res.status === 202) waiters.push(c);
  }
  for (const c of waiters) await c.status();
  for (const path of ["/health", "/nowhere", "/api/admin/bootstrap"]) {
    await (await send(path)).body?.cancel();
  }
}

Deno.test({
  name: "promtool check metrics accepts the Prometheus text exposition",
  ignore,
  async fn() {
    const t = await makeApp({ METRICS_TOKEN: TOKEN, MAX_WAITING_VISITORS: 3 });
    try {
      await traffic(t, async (p, init) => await t.fetch(new Request(`http://127.0.0.1${p}`, init)));
      await t.engine.tick("default");
      const res = await scrape(t, "?format=prometheus", { authorization: `Bearer ${TOKEN}` });
      assertEquals(res.status, 200);
      assert(res.text.includes("tollgate_join_refusals_total"), "the refusal is exposed");
      const out = await promtool(["check", "metrics"], { stdin: res.text });
      assert(out.ok && out.text.trim() === "", `promtool check metrics:\n${out.text}`);
      // The checker can fail: a counter without `_total` is reported.
      const bad = await promtool(["check", "metrics"], {
        stdin: "# HELP x_things Things.\n# TYPE x_things counter\nx_things 1\n",
      });
      assert(!bad.ok && bad.text.includes("_total"), bad.text);
    } finally {
      t.close();
    }
  },
});

Deno.test({
  name: "the shipped alert rules pass promtool check rules and their unit tests",
  ignore,
  async fn() {
    const check = await promtool(["check", "rules", "alerts.yml"], { cwd: DOCS });
    assert(check.ok, check.text);
    assert(/SUCCESS: 5 rules found/.test(check.text), check.text);
    const test = await promtool(["test", "rules", "alerts_test.yml"], { cwd: DOCS });
    assert(test.ok, test.text);
  },
});

/** Prometheus' HTTP API: one instant query's result vector. */
async function query(
  base: string,
  expr: string,
): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = await res.json();
  if (body.status !== "success") throw new Error(`${expr}: ${JSON.stringify(body)}`);
  return body.data.result;
}

/** Polls `f` every 250 ms until it returns true, or fails after `ms` with `what`. */
async function until(what: string, ms: number, f: () => Promise<boolean>, log: () => string) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      if (await f()) return;
    } catch { /* not up yet */ }
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}\n${log()}`);
}

/** The shipped scrape config pointed at `target`, scraping and evaluating every second. */
function testConfig(target: string, tokenFile: string): string {
  const cfg = parse(Deno.readTextFileSync(`${DOCS}prometheus.yml`));
  cfg.global.scrape_interval = "1s";
  cfg.global.evaluation_interval = "1s";
  cfg.rule_files = cfg.rule_files.map((f: string) => `${DOCS}${f}`);
  const job = cfg.scrape_configs.find((j: { job_name: string }) => j.job_name === "tollgate");
  job.scrape_interval = "1s";
  job.scrape_timeout = "1s";
  job.authorization.credentials_file = tokenFile;
  job.static_configs = [{ targets: [target] }];
  return stringify(cfg);
}

Deno.test({
  name:
    "a real Prometheus scrapes Tollgate with the shipped config; rules and dashboard queries work",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const t = await makeApp({ METRICS_TOKEN: TOKEN, MAX_WAITING_VISITORS: 3 }, {
      clock: new WallClock(),
      autoTick: true,
    });
    const served: string[] = [];
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      async (req, info) => {
        const res = await t.fetch(req, info);
        if (new URL(req.url).pathname === "/metrics") {
          served.push(`${res.status} ${res.headers.get("content-type")}`);
        }
        return res;
      },
    );
    const dir = await Deno.makeTempDir({ prefix: "tollgate-prom-" });
    const tokenFile = `${dir}/token`;
    await Deno.writeTextFile(tokenFile, TOKEN + "\n");
    const configFile = `${dir}/prometheus.yml`;
    await Deno.writeTextFile(configFile, testConfig(`127.0.0.1:${server.addr.port}`, tokenFile));
    const checked = await promtool(["check", "config", configFile]);
    assert(checked.ok, checked.text);
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const prom = new Deno.Command(PROMETHEUS, {
      args: [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${dir}/data`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--log.level=warn",
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const logs: string[] = [];
    const reading = Promise.all([prom.stdout, prom.stderr].map(async (s) => {
      for await (const chunk of s.pipeThrough(new TextDecoderStream())) logs.push(chunk);
    }));
    const log = () => logs.join("").slice(-3000) + `\nserved: ${served.slice(-3).join(", ")}`;
    try {
      // Over loopback HTTP, as visitors would come.
      await traffic(t, (p, init) => fetch(`http://127.0.0.1:${server.addr.port}${p}`, init));
      await until("the waiting count in Prometheus", 30_000, async () => {
        const r = await query(base, 'tollgate_queue_waiting{queue="default"}');
        return r.length === 1 && r[0].value[1] === "3";
      }, log);
      const up = await query(base, 'up{job="tollgate"}');
      assertEquals(up.map((r) => r.value[1]), ["1"]);
      // Prometheus asked for OpenMetrics, and got it with the read-only token.
      assert(
        served.length > 0 && served.every((s) => s.startsWith("200 application/openmetrics-text")),
        served.join(),
      );
      const refused = await query(base, 'tollgate_join_refusals_total{cause="queue_full"}');
      // (Instance counters are per process: the first test of this file refused one too.)
      assert(refused.length === 1 && Number(refused[0].value[1]) >= 1, JSON.stringify(refused));

      // Every rule evaluated without an error.
      await until("rule evaluation", 15_000, async () => {
        const body = await (await fetch(`${base}/api/v1/rules`)).json();
        const rules = body.data.groups.flatMap((g: { rules: unknown[] }) => g.rules) as {
          name: string;
          health: string;
          lastError?: string;
        }[];
        assertEquals(rules.length, 5);
        const bad = rules.filter((r) => r.health === "err");
        assert(bad.length === 0, JSON.stringify(bad));
        return rules.every((r) => r.health === "ok");
      }, log);

      // The dashboard's queue variable and every panel query answer with data once rates exist.
      const labels = await (await fetch(
        `${base}/api/v1/label/queue/values?match[]=tollgate_queue_waiting`,
      )).json();
      assertEquals(labels.data, ["default"]);
      await until(
        "two scrapes for rates",
        15_000,
        async () => (await query(base, "rate(tollgate_http_requests_total[1m])")).length > 0,
        log,
      );
      const dash = JSON.parse(await Deno.readTextFile(`${DOCS}grafana-dashboard.json`));
      const panels = dash.panels as { title: string; targets: { expr: string }[] }[];
      assert(panels.length >= 12, "the panels of a sale");
      for (const p of panels) {
        for (const target of p.targets) {
          const expr = target.expr.replaceAll("$queue", ".+").replaceAll("$__rate_interval", "1m");
          const r = await query(base, expr);
          assert(r.length > 0, `panel "${p.title}": ${expr} returned nothing`);
          assert(
            r.every((x) => x.value[1] !== "NaN" || /quantile|\//.test(expr)),
            `${p.title}: NaN`,
          );
        }
      }
      // The operator pauses; the next scrape shows it (the rule inputs follow the store).
      const res = await t.fetch(
        new Request("http://127.0.0.1/pause", {
          method: "POST",
          headers: { ...operator(t.config), "content-type": "application/json" },
          body: JSON.stringify({ queue: "default", paused: false }),
        }),
      );
      assertEquals(res.status, 200);
      await until("the resume in Prometheus", 10_000, async () => {
        const r = await query(base, 'tollgate_queue_paused{queue="default"}');
        return r.length === 1 && r[0].value[1] === "0";
      }, log);
    } finally {
      prom.kill("SIGTERM");
      await prom.status;
      await reading.catch(() => {});
      await server.shutdown();
      t.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
