/**
 * A client that sends part of a body and hangs up is not the service's error: a sweep wrote one
 * "unhandled error while serving" line (error level) per such connection to `POST /join` (its
 * fast path read the body itself and let the socket's error escape), so anyone could fill the
 * error log. Served as main.ts serves (serveBounded over the app's fetch) on a real socket.
 */
import { serveBounded } from "../lib/http/serve.ts";
import { assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

Deno.test("a body cut off by the client writes no error line, on the join fast path or elsewhere", async () => {
  const t = await makeApp();
  const server = serveBounded({
    port: 0,
    hostname: "127.0.0.1",
    maxConnections: 100,
    headerTimeoutMs: 5_000,
    idleTimeoutMs: 5_000,
  }, t.fetch);
  const logged: string[] = [];
  const error = console.error;
  console.error = (...a: unknown[]) => logged.push(a.join(" "));
  try {
    for (const path of ["/join", "/heartbeat", "/api/admin/login"]) {
      for (let i = 0; i < 3; i++) {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
        await conn.write(new TextEncoder().encode(
          `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
            `Content-Length: 100\r\n\r\n{"queue":`,
        ));
        await new Promise((r) => setTimeout(r, 30));
        conn.close();
      }
    }
    await new Promise((r) => setTimeout(r, 200));
    assertEquals(logged.filter((l) => l.includes('"level":"error"')), []);
    // A whole body is still served.
    const ok = await fetch(`http://127.0.0.1:${server.addr.port}/join`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ queue: "default" }),
    });
    assertEquals(ok.status, 200, await ok.text());
  } finally {
    console.error = error;
    await server.shutdown();
    t.close();
  }
});
