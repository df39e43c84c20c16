/**
 * One raw HTTP/1.1 request over a socket, for what no `Request` can carry: a `TRACE` method, a
 * `Host` header that is no host. The tests of such requests use it against a served app.
 */

/** Sends `method path` with `host` to `base` (http://127.0.0.1:port); the answer's status and text. */
export async function rawRequest(
  base: string,
  method: string,
  path: string,
  host = "localhost",
): Promise<{ status: number; text: string }> {
  const { port } = new URL(base);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  try {
    const head = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
    await conn.write(new TextEncoder().encode(head));
    let text = "";
    const buf = new Uint8Array(16384);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    return { status: Number(text.split(" ")[1]), text };
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
}
