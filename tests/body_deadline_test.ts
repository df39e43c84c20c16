/**
 * Slow request bodies: a client that has not sent its whole body within BODY_TIMEOUT_MS gets 408
 * `request_timeout` (asked to close the connection), on the fast `/join` path and the Hono routes alike
 * (over real sockets); a body that arrives in time is answered as usual, and an upload forwarded
 * to the origin is not cut.
 */
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";
import { proxiedApp, serveApp, startOrigin } from "./origin_helpers.ts";

const DEADLINE = 300;
const enc = new TextEncoder();

/** Sends `head` and then nothing more; returns the status, the answer's body and its ms. */
async function halfSent(port: number, head: string) {
  const started = performance.now();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(enc.encode(head));
  // Without a deadline nothing would come back: give up (status 0) well after ours.
  const giveUp = setTimeout(() => conn.close(), DEADLINE + 3000);
  let text = "";
  const buf = new Uint8Array(16384);
  // Read until the whole answer (its Content-Length) is in: the server may keep the socket.
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    text += new TextDecoder().decode(buf.slice(0, n));
    const end = text.indexOf("\r\n\r\n");
    const len = /content-length: (\d+)/i.exec(text)?.[1];
    if (end >= 0 && len && text.length >= end + 4 + Number(len)) break;
  }
  const ms = performance.now() - started;
  clearTimeout(giveUp);
  try {
    conn.close();
  } catch { /* given up already */ }
  return {
    status: Number(text.split(" ")[1]),
    body: text.slice(text.indexOf("\r\n\r\n") + 4),
    headers: text.slice(0, text.indexOf("\r\n\r\n")).toLowerCase(),
    ms,
  };
}

const post = (path: string, length: number, partial: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${length}\r\n\r\n${partial}`;

Deno.test("slow bodies: 408 request_timeout at the deadline, on /join and the Hono routes; nothing changes", async () => {
  const t = await makeApp({ BODY_TIMEOUT_MS: DEADLINE });
  const srv = serveApp(t);
  try {
    const paths = ["/join", "/leave", "/api/admin/login", "/heartbeat"];
    // Many at once: each is answered at its deadline, none waits for the others.
    const all = await Promise.all(
      Array.from({ length: 200 }, (_, i) => halfSent(srv.port, post(paths[i % 4], 100, '{"que'))),
    );
    for (const r of all) {
      assertEquals(r.status, 408);
      assertEquals(JSON.parse(r.body).error.code, "request_timeout");
      assert(r.ms >= DEADLINE - 20 && r.ms < DEADLINE + 3000, `${r.ms} ms`);
      assert(r.headers.includes("connection: close"), r.headers);
    }
    // The bytes that did arrive parse as a join: still nothing may happen after the 408.
    const whole = await halfSent(srv.port, post("/join", 200, '{"queue":"default"}'));
    assertEquals(whole.status, 408);
    // A chunked body that never ends, too.
    const chunked = await halfSent(
      srv.port,
      "POST /join HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        'Transfer-Encoding: chunked\r\n\r\n5\r\n{"que\r\n',
    );
    assertEquals(chunked.status, 408);
    await new Promise((r) => setTimeout(r, 50)); // any handler still running has finished
    const m = await t.engine.metrics("default");
    assertEquals([m.waiting, m.entered, m.holding], [0, 0, 0], "no place taken");
  } finally {
    await srv.close();
    t.close();
  }
});

Deno.test("slow bodies: under BASE_PATH the prefixed paths have the deadline too", async () => {
  const t = await makeApp({ BODY_TIMEOUT_MS: DEADLINE, BASE_PATH: "/_tollgate" });
  const srv = serveApp(t);
  try {
    for (const path of ["/_tollgate/join", "/_tollgate/leave"]) {
      const r = await halfSent(srv.port, post(path, 100, '{"queue":"default"}'));
      assertEquals([r.status, JSON.parse(r.body).error.code], [408, "request_timeout"], path);
    }
    const m = await t.engine.metrics("default");
    assertEquals([m.waiting, m.entered, m.holding], [0, 0, 0], "no place taken");
  } finally {
    await srv.close();
    t.close();
  }
});

Deno.test("slow bodies: a body sent in pieces within the deadline is answered as usual", async () => {
  const t = await makeApp({ BODY_TIMEOUT_MS: DEADLINE });
  const srv = serveApp(t);
  try {
    const body = enc.encode(JSON.stringify({ queue: "default" }));
    const stream = new ReadableStream<Uint8Array>({
      async start(c) {
        for (let i = 0; i < body.length; i += 4) {
          c.enqueue(body.slice(i, i + 4));
          await new Promise((r) => setTimeout(r, 10));
        }
        c.close();
      },
    });
    const r = await fetch(`${srv.url}/join`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
    });
    assertEquals(r.status, 200);
    assertEquals((await r.json()).queue, "default");
    // A handler slower than the deadline after the body arrived is not cut off either.
    const late = await t.fetch(
      new Request("http://x/join", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ queue: "default" }),
      }),
    );
    assertEquals(late.status, 200);
    await late.body?.cancel();
  } finally {
    await srv.close();
    t.close();
  }
});

Deno.test("slow bodies: an upload forwarded to the origin is not held to the deadline", async () => {
  const origin = startOrigin();
  const { t, srv, auth, stop } = await proxiedApp(origin, { BODY_TIMEOUT_MS: DEADLINE });
  try {
    assertEquals(t.config.BODY_TIMEOUT_MS, DEADLINE);
    const stream = new ReadableStream<Uint8Array>({
      async start(c) {
        for (let i = 0; i < 4; i++) {
          c.enqueue(enc.encode("x".repeat(1000)));
          await new Promise((r) => setTimeout(r, DEADLINE / 2));
        }
        c.close();
      },
    });
    const r = await fetch(`${srv.url}/upload`, { method: "POST", headers: auth, body: stream });
    assertEquals(r.status, 200);
    assertEquals((await r.json()).bytes, 4000);
  } finally {
    await stop();
  }
});
