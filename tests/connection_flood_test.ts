/**
 * The real server (main.ts) under a connection flood, started with a low descriptor limit: idle
 * and slow-header connections past the limit must not end the process (they did: `Too many open
 * files` from Deno.serve's accept loop); ordinary joins are answered once the flood's
 * connections are shed, a connection that never finishes its request head is closed after the
 * header timeout, and an idle keep-alive connection after the idle timeout. A second server
 * cannot read its limit, so its cap lies above it and `accept` itself runs out of descriptors.
 */
import { assert, assertEquals } from "./assert.ts";
import { sleep, spawnServer, waitReady } from "./server_procs.ts";

const SECRET = "flood-test-secret-flood-test-secret-0123";
const FD_LIMIT = 256;
const enc = new TextEncoder();

/** Starts main.ts under `ulimit -n FD_LIMIT`; `exited()` is its status once it ended. */
function start(env: Record<string, string>, flags: string[] = []) {
  const s = spawnServer(
    { ...env, TOKEN_SECRET: SECRET, DENO_KV_PATH: ":memory:" },
    { fdLimit: FD_LIMIT, flags },
  );
  let exited: Deno.CommandStatus | null = null;
  s.child.status.then((st) => exited = st);
  return { ...s, exited: () => exited };
}
type Started = ReturnType<typeof start>;

/** Resolves with the ms until the peer closed `conn` (a read returns end of stream or fails). */
async function closedAfter(conn: Deno.Conn, limitMs: number): Promise<number> {
  const t0 = performance.now();
  const buf = new Uint8Array(4096);
  const timer = setTimeout(() => conn.close(), limitMs);
  try {
    while ((await conn.read(buf)) !== null) { /* a response; read on */ }
  } catch { /* reset, or closed by the timer */ }
  clearTimeout(timer);
  return performance.now() - t0;
}

async function join(port: number): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}/join`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ queue: "default" }),
  });
  await r.body?.cancel();
  return r.status;
}

/** This server's `/metrics` in the Prometheus format, and a reader of one counter series. */
async function metrics(s: Started) {
  const text = await (await fetch(`http://127.0.0.1:${s.port}/metrics?format=prometheus`, {
    headers: { authorization: `Bearer ${SECRET}` },
  })).text();
  const series = (name: string, reason: string) =>
    Number(new RegExp(`^${name}\\{reason="${reason}"\\} (\\d+)`, "m").exec(text)?.[1] ?? 0);
  return { text, series };
}

/** How many of the server's log lines carry `msg`. */
const logLines = (s: Started, msg: string) =>
  s.log.join("").split("\n").filter((l) => l.includes(`"msg":"${msg}"`)).length;

/**
 * Opens more connections than the descriptor limit, half idle, half with a request head that
 * never ends, then sends ordinary joins: the server must live and answer every one.
 */
async function floodThenJoin(s: Started): Promise<Deno.Conn[]> {
  const flood: Deno.Conn[] = [];
  for (let i = 0; i < FD_LIMIT + 100; i++) {
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
      flood.push(c);
      if (i % 2) {
        await c.write(enc.encode("POST /join HTTP/1.1\r\nHost: x\r\nX-A: ")).catch(() => {});
      }
    } catch { /* refused or reset: the server sheds */ }
  }
  await sleep(200);
  assertEquals(s.exited(), null, `the server exited: ${s.log.join("")}`);
  // Ordinary joins, on new connections, right after the flood.
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push(await join(s.port));
  assert(statuses.every((st) => st === 200 || st === 202), `joins answered ${statuses}`);
  assertEquals(s.exited(), null);
  return flood;
}

async function stop(s: Started, flood: Deno.Conn[]) {
  for (const c of flood) {
    try {
      c.close();
    } catch { /* closed by the server */ }
  }
  try {
    s.child.kill("SIGTERM");
  } catch { /* gone */ }
  await s.child.status;
  await s.done;
}

Deno.test({
  name: "connection flood past the descriptor limit: the process lives and serves joins",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const s = start({ HEADER_TIMEOUT_MS: "1500", IDLE_TIMEOUT_MS: "2500" });
    let flood: Deno.Conn[] = [];
    try {
      await waitReady(s);
      flood = await floodThenJoin(s);
      // A connection that never finishes its request head is closed after the header timeout.
      const slow = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
      await slow.write(enc.encode("GET /health HTTP/1.1\r\nHost: x\r\n"));
      const slowMs = await closedAfter(slow, 8000);
      assert(slowMs >= 1200 && slowMs < 4000, `slow head closed after ${slowMs} ms`);
      // A keep-alive connection idle after its response is closed after the idle timeout.
      const idle = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
      await idle.write(enc.encode("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"));
      const idleMs = await closedAfter(idle, 8000);
      assert(idleMs >= 2000 && idleMs < 5000, `idle keep-alive closed after ${idleMs} ms`);

      const m = await metrics(s);
      const closed = (r: string) => m.series("tollgate_http_connections_closed_total", r);
      assert(closed("cap") + closed("descriptors") >= 100, `too few shed:\n${m.text}`);
      assert(closed("header_timeout") >= 1 && closed("idle_timeout") >= 1, m.text);
      assert(/^tollgate_http_connections_limit 192$/m.test(m.text), "cap: 3/4 of 256 descriptors");
      assertEquals(logLines(s, "connection cap reached"), 1, "logged once");
    } finally {
      await stop(s, flood);
    }
  },
});

Deno.test({
  name: "descriptors exhausted at accept (the cap above the limit): shed, keep accepting, log once",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    // Without /proc/self/limits the service cannot know its limit: MAX_CONNECTIONS (20,000) is the
    // cap, so the descriptors run out before it and `accept` fails with "Too many open files".
    const s = start({}, ["--deny-read=/proc/self/limits"]);
    let flood: Deno.Conn[] = [];
    try {
      await waitReady(s);
      flood = await floodThenJoin(s);
      const m = await metrics(s);
      assert(m.series("tollgate_http_accept_errors_total", "descriptors") >= 1, m.text);
      assert(m.series("tollgate_http_connections_closed_total", "descriptors") >= 1, m.text);
      assertEquals(logLines(s, "file descriptors exhausted"), 1, "logged once");
    } finally {
      await stop(s, flood);
    }
  },
});
