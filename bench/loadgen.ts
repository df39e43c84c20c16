/**
 * A small HTTP/1.1 load generator for when wrk is missing: keep-alive connections over raw TCP
 * (no fetch, whose client costs more per request than the servers measured here), one request
 * in flight per connection. Run as its own process:
 * `deno run -A bench/loadgen.ts spec.json`; prints `LOADJSON {...}` (a `LoadResult`).
 */
import type { LoadResult, LoadSpec } from "./load.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Builds the request bytes; `ticket` becomes the `tg_ticket` cookie. */
function buildRequest(s: LoadSpec, host: string, ticket?: string): Uint8Array {
  const lines = [`${s.method} ${s.path} HTTP/1.1`, `Host: ${host}`];
  for (const [k, v] of Object.entries(s.headers ?? {})) lines.push(`${k}: ${v}`);
  if (ticket) lines.push(`Cookie: tg_ticket=${ticket}`);
  const body = s.body ? enc.encode(s.body) : null;
  if (body) lines.push(`Content-Length: ${body.length}`);
  const head = enc.encode(lines.join("\r\n") + "\r\n\r\n");
  if (!body) return head;
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

interface Parsed {
  consumed: number;
  status: number;
  ticket?: string;
}

function indexOfHeaderEnd(b: Uint8Array, len: number): number {
  for (let i = 3; i < len; i++) {
    if (b[i] === 10 && b[i - 1] === 13 && b[i - 2] === 10 && b[i - 3] === 13) return i + 1;
  }
  return -1;
}

/** Parses one complete response from `b[0..len)`, or returns null when more bytes are needed. */
function parseResponse(b: Uint8Array, len: number): Parsed | null {
  const headEnd = indexOfHeaderEnd(b, len);
  if (headEnd < 0) return null;
  const head = dec.decode(b.subarray(0, headEnd));
  const lines = head.split("\r\n");
  const status = Number(lines[0].split(" ")[1]);
  let length = 0, chunked = false, ticket: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const c = lines[i].indexOf(":");
    if (c < 0) continue;
    const name = lines[i].slice(0, c).toLowerCase();
    const value = lines[i].slice(c + 1).trim();
    if (name === "content-length") length = Number(value);
    else if (name === "transfer-encoding" && /chunked/i.test(value)) chunked = true;
    else if (name === "set-cookie") {
      const m = /^tg_ticket=([^;]+)/.exec(value);
      if (m) ticket = m[1];
    }
  }
  if (!chunked) {
    return headEnd + length <= len ? { consumed: headEnd + length, status, ticket } : null;
  }
  let p = headEnd;
  for (;;) {
    let eol = -1;
    for (let i = p + 1; i < len; i++) {
      if (b[i] === 10 && b[i - 1] === 13) {
        eol = i + 1;
        break;
      }
    }
    if (eol < 0) return null;
    const size = parseInt(dec.decode(b.subarray(p, eol - 2)), 16);
    const next = eol + size + 2;
    if (next > len) return null;
    p = next;
    if (size === 0) return { consumed: p, status, ticket };
  }
}

/** Runs the load described by `s` and measures it. */
export async function generateLoad(s: LoadSpec): Promise<LoadResult> {
  const url = new URL(s.url);
  const host = url.host;
  const tickets = s.tickets ? [...s.tickets] : [];
  const n = tickets.length;
  const fixed = n === 0
    ? [buildRequest(s, host)]
    : s.follow
    ? []
    : tickets.map((t) => buildRequest(s, host, t));
  const lat: number[] = [];
  let non2xx = 0, errors = 0, next = 0;
  const startedAt = performance.now();
  const endAt = startedAt + s.durationSec * 1000;
  const worker = async () => {
    let conn: Deno.TcpConn | null = null;
    let buf = new Uint8Array(64 * 1024);
    while (performance.now() < endAt) {
      try {
        conn ??= await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
        const i = n === 0 ? 0 : next++ % n;
        const req = n === 0 ? fixed[0] : s.follow ? buildRequest(s, host, tickets[i]) : fixed[i];
        const t0 = performance.now();
        for (let w = 0; w < req.length;) w += await conn.write(req.subarray(w));
        let len = 0;
        let parsed: Parsed | null = null;
        while (!parsed) {
          if (len === buf.length) {
            const bigger = new Uint8Array(buf.length * 2);
            bigger.set(buf);
            buf = bigger;
          }
          const got = await conn.read(buf.subarray(len));
          if (got === null) throw new Error("connection closed");
          len += got;
          parsed = parseResponse(buf, len);
        }
        lat.push(performance.now() - t0);
        if (parsed.status < 200 || parsed.status >= 400) non2xx++;
        if (s.follow && parsed.ticket && n > 0) tickets[i] = parsed.ticket;
      } catch {
        errors++;
        try {
          conn?.close();
        } catch { /* closed */ }
        conn = null;
      }
    }
    try {
      conn?.close();
    } catch { /* closed */ }
  };
  await Promise.all(Array.from({ length: s.connections }, worker));
  const seconds = (performance.now() - startedAt) / 1000;
  lat.sort((a, b) => a - b);
  const pct = (p: number) =>
    lat.length ? lat[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)] : 0;
  return {
    tool: "deno",
    requests: lat.length,
    seconds,
    rps: lat.length / seconds,
    p50Ms: pct(50),
    p90Ms: pct(90),
    p99Ms: pct(99),
    meanMs: lat.reduce((a, b) => a + b, 0) / Math.max(1, lat.length),
    non2xx,
    socketErrors: errors,
  };
}

if (import.meta.main) {
  const spec: LoadSpec = JSON.parse(await Deno.readTextFile(Deno.args[0]));
  const r = await generateLoad(spec);
  console.log("LOADJSON " + JSON.stringify(r));
}
