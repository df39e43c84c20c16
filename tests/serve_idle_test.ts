/**
 * The bounded server (lib/http/serve.ts) on real sockets, for what its per-request bookkeeping
 * must keep: a connection is idle from the END of a response (a response streamed for longer
 * than the idle and header timeouts is never cut), requests closer together than the idle
 * timeout keep a keep-alive connection open, and at the cap the connection waiting longest goes,
 * never one with a response under way. tests/connections_test.ts has the same rules with a fake
 * clock; these fail if the server feeds the pool at the wrong moments.
 */
import { type BoundedServer, serveBounded } from "../lib/http/serve.ts";
import { assert } from "./assert.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const IDLE_MS = 400;
const SLOW_MS = 1200; // three idle timeouts, three header timeouts

/** A server whose `/slow` streams for SLOW_MS and whose other paths answer at once. */
function start(maxConnections = 10): BoundedServer {
  return serveBounded({
    port: 0,
    hostname: "127.0.0.1",
    maxConnections,
    headerTimeoutMs: IDLE_MS,
    idleTimeoutMs: IDLE_MS,
  }, (req) => {
    if (!req.url.endsWith("/slow")) return new Response("ok");
    let timer: ReturnType<typeof setTimeout> | undefined;
    return new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(enc.encode("first,"));
          timer = setTimeout(() => {
            c.enqueue(enc.encode("last"));
            c.close();
          }, SLOW_MS);
        },
        cancel: () => clearTimeout(timer),
      }),
    );
  });
}

/** Sends a GET of `path` on `conn` and reads its whole answer; throws if the server closes first. */
async function get(conn: Deno.Conn, path: string): Promise<string> {
  await conn.write(enc.encode(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`));
  const buf = new Uint8Array(4096);
  let text = "";
  // A streamed answer ends with its last chunk; the other is "ok" with a Content-Length.
  while (!(path === "/slow" ? text.endsWith("\r\n0\r\n\r\n") : text.endsWith("\r\n\r\nok"))) {
    const n = await conn.read(buf);
    if (n === null) throw new Error(`closed by the server mid-answer, after: ${text}`);
    text += dec.decode(buf.subarray(0, n));
  }
  return text;
}

/** Ms until the server closes `conn` (a read ends or fails), at most `limitMs`. */
async function closedAfter(conn: Deno.Conn, limitMs: number): Promise<number> {
  const t0 = performance.now();
  const timer = setTimeout(() => conn.close(), limitMs);
  try {
    while ((await conn.read(new Uint8Array(1024))) !== null) { /* nothing more is sent */ }
  } catch { /* reset, or closed by the timer */ }
  clearTimeout(timer);
  return performance.now() - t0;
}

function connect(s: BoundedServer): Promise<Deno.Conn> {
  return Deno.connect({ hostname: "127.0.0.1", port: s.addr.port });
}

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  ...opts,
  name:
    "bounded server: a response streamed past the idle timeout is not cut; idle counts from its end",
  fn: async () => {
    const s = start();
    try {
      const conn = await connect(s);
      const t0 = performance.now();
      const text = await get(conn, "/slow");
      assert(text.includes("first,") && text.includes("last"), text);
      assert(performance.now() - t0 >= SLOW_MS - 50, "the answer took its time");
      const ms = await closedAfter(conn, 5000);
      assert(ms >= IDLE_MS - 100 && ms < IDLE_MS + 1500, `closed ${ms} ms after the answer`);
    } finally {
      await s.shutdown();
    }
  },
});

Deno.test({
  ...opts,
  name: "bounded server: requests closer together than the idle timeout keep the connection open",
  fn: async () => {
    const s = start();
    try {
      const conn = await connect(s);
      const t0 = performance.now();
      for (let i = 0; i < 6; i++) {
        assert((await get(conn, "/fast")).startsWith("HTTP/1.1 200"));
        await new Promise((r) => setTimeout(r, IDLE_MS / 2));
      }
      assert(performance.now() - t0 > 2 * IDLE_MS, "open for more than two idle timeouts");
      const ms = await closedAfter(conn, 5000);
      assert(ms < IDLE_MS + 1500, `then closed when idle, after ${ms} ms`);
    } finally {
      await s.shutdown();
    }
  },
});

Deno.test({
  ...opts,
  name:
    "bounded server: at the cap the idle connection goes, not the one with a response under way",
  fn: async () => {
    const s = start(2);
    try {
      const idle = await connect(s);
      await get(idle, "/fast");
      const busy = await connect(s);
      const slow = get(busy, "/slow");
      await new Promise((r) => setTimeout(r, 100)); // its request is in
      const third = await connect(s);
      assert(await closedAfter(idle, 2000) < 1000, "the idle connection was shed");
      assert((await get(third, "/fast")).startsWith("HTTP/1.1 200"), "the newcomer is served");
      assert((await slow).includes("last"), "the streamed answer was finished");
      for (const c of [busy, third]) c.close();
    } finally {
      await s.shutdown();
    }
  },
});
