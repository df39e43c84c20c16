/**
 * Real reverse proxies in front of a real Tollgate and a small site, all on loopback: Debian's
 * nginx and Caddy started from the very files in docs/examples/, with only their ports (and,
 * where a test says so, the one documented fail-open switch) substituted.
 */
import { serveApp } from "../live_app.ts";
import { type Config, parseEnv } from "../../lib/config.ts";
import { assert } from "../assert.ts";
import { freePort, sleep } from "../server_procs.ts";
import { nginxArgs, type Ports, render, renderNginx } from "./examples.ts";

export type { Ports };

/** Debian's binaries (`.ci/run` installs them when missing). */
export const NGINX = "/usr/sbin/nginx";
export const CADDY = "/usr/bin/caddy";

/** Null when `bin` is installed, else the reason a test skips. */
export function missing(bin: string): string | null {
  try {
    Deno.statSync(bin);
    return null;
  } catch {
    return `${bin} is not installed (apt-get install -y nginx caddy; .ci/run does it)`;
  }
}

/** The environment the examples tell an operator to start Tollgate with. */
export const EXAMPLE_ENV = {
  BASE_PATH: "/_tollgate",
  TRUSTED_PROXIES: "127.0.0.1",
  CLIENT_IP_HEADER: "x-forwarded-for",
  VERIFY_TOKEN_IN_QUERY: "0",
};

/** What the site saw of one request. */
export interface SiteHit {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

/** The small site behind the proxy: records every request, answers each path plainly. */
export interface Site {
  port: number;
  hits: SiteHit[];
  close(): Promise<void>;
}

/** Starts the site on 127.0.0.1 and a free port. */
export function startSite(): Site {
  const hits: SiteHit[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const body = await req.text();
    hits.push({ method: req.method, path: url.pathname + url.search, headers: req.headers, body });
    const type = url.pathname.endsWith(".css")
      ? "text/css"
      : url.pathname === "/status" || req.method !== "GET"
      ? "application/json"
      : "text/html; charset=utf-8";
    const text = type === "text/html; charset=utf-8"
      ? `<!doctype html><title>Shop</title><h1 id="site">site page ${url.pathname}</h1>`
      : type === "text/css"
      ? "h1{color:teal}"
      : JSON.stringify({ site: true, method: req.method, path: url.pathname, body });
    return new Response(text, { headers: { "content-type": type } });
  });
  return { port: server.addr.port, hits, close: () => server.shutdown() };
}

/** Tollgate served in this process (createApp's `fetch`, ticks on) over in-memory KV. */
export type Tollgate = Awaited<ReturnType<typeof serveApp>> & { port: number; config: Config };

/**
 * Starts Tollgate with the examples' environment (plus `env`), as `main.ts` reads it: a variable
 * this build does not know is ignored. Each queue waits: one visitor took the instant slot and
 * the rate is tiny, so only `/admit` lets anyone else in.
 */
export async function startTollgate(
  queues: string[],
  env: Record<string, string> = {},
): Promise<Tollgate> {
  const config: Config = {
    ...parseEnv({ ...EXAMPLE_ENV, QUEUES: queues.join(","), ...env }),
    TOKEN_SECRET: "proxy-test-secret-proxy-test-secret-0123",
    DENO_KV_PATH: ":memory:",
    TOLLGATE_ENV: "test",
  };
  const app = await serveApp(config);
  for (const q of queues) {
    await app.services.engine.setRate(q, 0.01);
    await app.services.engine.join(q, null);
  }
  return { ...app, port: +new URL(app.base).port, config };
}

/** A running proxy. */
export interface Proxy {
  base: string;
  stop(): Promise<void>;
  log(): string;
}

async function spawn(
  cmd: string,
  args: string[],
  port: number,
  env: Record<string, string> = {},
): Promise<Proxy> {
  const child = new Deno.Command(cmd, {
    args,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out: string[] = [];
  const drain = (s: ReadableStream<Uint8Array<ArrayBuffer>>) =>
    (async () => {
      for await (const c of s.pipeThrough(new TextDecoderStream())) out.push(c);
    })().catch(() => {});
  const done = Promise.all([drain(child.stdout), drain(child.stderr)]);
  let exited = false;
  child.status.then(() => exited = true);
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port });
      c.close();
      break;
    } catch { /* not listening yet */ }
    if (exited) {
      await done;
      throw new Error(`${cmd} exited: ${out.join("")}`);
    }
    assert(Date.now() < deadline, `${cmd} did not listen on ${port}: ${out.join("")}`);
    await sleep(50);
  }
  return {
    base: `http://127.0.0.1:${port}`,
    log: () => out.join(""),
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      const t = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
      }, 5000);
      await child.status;
      clearTimeout(t);
      await done;
    },
  };
}

/**
 * nginx from docs/examples/`file` in the foreground, its pid file and error log in a temporary
 * directory (command-line settings: the file stays as shipped).
 */
export async function startNginx(
  ports: Ports,
  file = "nginx.conf",
  extra: [string, string][] = [],
): Promise<Proxy> {
  return await startNginxText(ports.proxy, renderNginx(ports, file, extra));
}

/** nginx from the configuration `text`, listening on `port` (as `startNginx` runs it). */
export async function startNginxText(port: number, text: string): Promise<Proxy> {
  const dir = await Deno.makeTempDir({ prefix: "tollgate-nginx-" });
  await Deno.writeTextFile(`${dir}/nginx.conf`, text);
  const p = await spawn(NGINX, nginxArgs(dir), port);
  return {
    ...p,
    log: () => p.log() + readOr(`${dir}/error.log`),
    async stop() {
      await p.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

function readOr(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}

/**
 * Caddy from docs/examples/`file`, through Caddy's own Caddyfile adapter; the adapted config
 * only loses the admin endpoint (a fixed port another Caddy may hold), and Caddy's storage goes
 * to a temporary directory.
 */
export async function startCaddy(
  ports: Ports,
  file = "Caddyfile",
  extra: [string, string][] = [],
): Promise<Proxy> {
  const text = render(file, [
    ["shop.example.com {", `http://127.0.0.1:${ports.proxy} {`],
    ["127.0.0.1:8000", `127.0.0.1:${ports.tollgate}`],
    ["127.0.0.1:3000", `127.0.0.1:${ports.site}`],
    ...extra,
  ]);
  return await startCaddyText(ports.proxy, text);
}

/** Caddy from the Caddyfile `text`, listening on `port` (as `startCaddy` runs it). */
export async function startCaddyText(port: number, text: string): Promise<Proxy> {
  const dir = await Deno.makeTempDir({ prefix: "tollgate-caddy-" });
  const env = { HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir };
  await Deno.writeTextFile(`${dir}/Caddyfile`, text);
  const adapted = await new Deno.Command(CADDY, {
    args: ["adapt", "--config", `${dir}/Caddyfile`, "--adapter", "caddyfile"],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  assert(adapted.success, `caddy adapt: ${dec.decode(adapted.stderr)}`);
  const json = JSON.parse(dec.decode(adapted.stdout));
  json.admin = { disabled: true };
  await Deno.writeTextFile(`${dir}/caddy.json`, JSON.stringify(json));
  const p = await spawn(CADDY, ["run", "--config", `${dir}/caddy.json`], port, env);
  return {
    ...p,
    async stop() {
      await p.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** Free loopback ports for the proxy, with Tollgate's and the site's. */
export function portsFor(tollgate: number, site: number): Ports {
  return { proxy: freePort(), tollgate, site };
}
