/**
 * Origin proxy test helpers: a recording origin server on loopback, Tollgate's real
 * `createApp().fetch` served by `Deno.serve`, access tokens, and a raw HTTP/1.1 exchange for
 * headers `fetch` will not send or show.
 */
import { makeApp, type TestApp } from "./helpers.ts";

export { within } from "./fixtures/https_receiver.ts";

/** One request as the origin received it. */
export interface SeenRequest {
  method: string;
  /** Path and query exactly as received. */
  path: string;
  headers: Record<string, string>;
  bytes: number;
  sha256: string;
}

/** A running origin. */
export interface Origin {
  url: string;
  port: number;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** Hex SHA-256 of `bytes`. */
export async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...d].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function readAll(req: Request): Promise<Uint8Array<ArrayBuffer>> {
  return req.body ? new Uint8Array(await req.arrayBuffer()) : new Uint8Array(0);
}

/**
 * Starts an origin: `special` may answer a request itself (return null to fall through); the
 * default answers `/code/<n>` with status n, and anything else with a JSON echo of the request.
 */
export function startOrigin(
  special?: (req: Request, url: URL) => Response | null | Promise<Response | null>,
): Origin {
  const seen: SeenRequest[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const path = url.pathname + url.search;
    const own = special ? await special(req, url) : null;
    if (own) {
      seen.push({
        method: req.method,
        path,
        headers: Object.fromEntries(req.headers),
        bytes: -1,
        sha256: "",
      });
      return own;
    }
    const body = await readAll(req);
    const entry = {
      method: req.method,
      path,
      headers: Object.fromEntries(req.headers),
      bytes: body.length,
      sha256: await sha256(body),
    };
    seen.push(entry);
    const code = /^\/code\/(\d{3})$/.exec(url.pathname);
    if (code) {
      const status = Number(code[1]);
      const headers: Record<string, string> = { "x-origin-status": String(status) };
      if (status === 301) headers.location = "https://elsewhere.example/moved?to=1";
      const nullBody = status === 204 || status === 304;
      return new Response(nullBody ? null : `origin says ${status}`, { status, headers });
    }
    return Response.json(entry, { headers: { "x-origin": "echo" } });
  });
  const port = server.addr.port;
  return { url: `http://127.0.0.1:${port}`, port, seen, close: () => server.shutdown() };
}

/** Tollgate's served handler (fast paths, proxy gate, Hono) on a loopback port. */
export function serveApp(t: TestApp): { url: string; port: number; close(): Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, t.fetch);
  const port = server.addr.port;
  return { url: `http://127.0.0.1:${port}`, port, close: () => server.shutdown() };
}

/** An access token signed by the app's key at the app's clock time. */
export function tokenFor(t: TestApp, queue = "default", ttlSeconds = 60, sub = "visitor-0001") {
  return t.services.signer.signAccessToken(sub, queue, t.clock.now(), ttlSeconds);
}

/** A raw HTTP/1.1 exchange (`Connection: close`); returns the status, header lines and body. */
export async function rawExchange(
  port: number,
  head: string,
): Promise<{ status: number; headers: string[]; body: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(head));
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(65536);
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    chunks.push(buf.slice(0, n));
  }
  conn.close();
  const text = new TextDecoder().decode(
    chunks.reduce((a, c) => {
      const out = new Uint8Array(a.length + c.length);
      out.set(a);
      out.set(c, a.length);
      return out;
    }, new Uint8Array(0)),
  );
  const end = text.indexOf("\r\n\r\n");
  const lines = text.slice(0, end).split("\r\n");
  return {
    status: Number(lines[0].split(" ")[1]),
    headers: lines.slice(1).map((l) => l.toLowerCase()),
    body: text.slice(end + 4),
  };
}

/** An app proxying to `origin`, served on loopback, with a valid token. */
export async function proxiedApp(origin: Origin, config: Parameters<typeof makeApp>[0] = {}) {
  const t = await makeApp({ ORIGIN_URL: origin.url, ...config });
  const srv = serveApp(t);
  const token = await tokenFor(t);
  const stop = async () => {
    await srv.close();
    await origin.close();
    t.close();
  };
  return { t, srv, token, auth: { authorization: `Bearer ${token}` }, stop };
}
