/**
 * The load scenarios' HTTP client: keep-alive HTTP/1.1 over raw TCP, a fixed pool of
 * connections with one request in flight on each. Deno's `fetch` costs about twice the CPU per
 * request here (measured: 2.7k to 5.1k joins/s through fetch against 6.9k to 8.9k with wrk on the
 * same server), CPU the server under test shares on a 2-core machine. Unlike wrk it returns what
 * the scenarios read from every answer: status, body, and a new `tg_ticket`.
 */

const enc = new TextEncoder();
const dec = new TextDecoder();
const CRLF2 = [13, 10, 13, 10];

/** One request of a scenario. */
export interface Call {
  method: "GET" | "POST";
  path: string;
  /** JSON body. */
  body?: string;
  /** Sent as the `tg_ticket` cookie. */
  ticket?: string;
  /** Sent as `Authorization: Bearer`. */
  bearer?: string;
  /** More header lines (e.g. `x-forwarded-for`, to speak for a client behind a trusted proxy). */
  headers?: Record<string, string>;
}

/** One answer. `status` 0 means the connection failed (`error` says how). */
export interface Answer {
  status: number;
  body: string;
  /** The `tg_ticket` the answer set, if any. */
  ticket?: string;
  /** Wall-clock ms when the request was written (after waiting for a connection). */
  sentAt: number;
  /** Milliseconds from writing the request to the end of the answer. */
  ms: number;
  error?: string;
}

/** Index of the blank line ending the head in `b[0..len)`, searching from `from`; -1 if absent. */
function headEnd(b: Uint8Array, len: number, from: number): number {
  outer: for (let i = Math.max(0, from); i + 4 <= len; i++) {
    for (let k = 0; k < 4; k++) if (b[i + k] !== CRLF2[k]) continue outer;
    return i + 4;
  }
  return -1;
}

/** Decodes a chunked body in `b[start..len)`: the body and its end, or null when incomplete. */
function dechunk(b: Uint8Array, start: number, len: number): { body: string; end: number } | null {
  const parts: string[] = [];
  let p = start;
  for (;;) {
    let eol = p;
    while (eol + 1 < len && !(b[eol] === 13 && b[eol + 1] === 10)) eol++;
    if (eol + 1 >= len) return null;
    const size = parseInt(dec.decode(b.subarray(p, eol)), 16);
    const dataEnd = eol + 2 + size;
    if (dataEnd + 2 > len) return null;
    if (size === 0) return { body: parts.join(""), end: dataEnd + 2 };
    parts.push(dec.decode(b.subarray(eol + 2, dataEnd)));
    p = dataEnd + 2;
  }
}

/** The server closed the connection before any byte of an answer. */
class ClosedIdle extends Error {}

/** One keep-alive connection; reconnects after a failure. */
class Connection {
  #conn: Deno.TcpConn | null = null;
  #buf = new Uint8Array(16 * 1024);

  constructor(private hostname: string, private port: number) {}

  async exchange(req: Uint8Array): Promise<{ status: number; body: string; ticket?: string }> {
    const reused = this.#conn !== null;
    try {
      return await this.#exchangeOnce(req);
    } catch (e) {
      // A kept-alive connection the server closed while it sat idle (its idle timeout) ends
      // before any byte of an answer: the request was never served, so it is sent again once on
      // a new connection, as browsers do.
      if (!reused || !(e instanceof ClosedIdle)) throw e;
      this.close();
      return await this.#exchangeOnce(req);
    }
  }

  async #exchangeOnce(req: Uint8Array): Promise<{ status: number; body: string; ticket?: string }> {
    this.#conn ??= await Deno.connect({ hostname: this.hostname, port: this.port });
    const conn = this.#conn;
    try {
      for (let w = 0; w < req.length;) w += await conn.write(req.subarray(w));
    } catch (e) {
      throw new ClosedIdle(String(e));
    }
    let len = 0, scanned = 0, end = -1;
    for (;;) {
      if (len === this.#buf.length) {
        const bigger = new Uint8Array(this.#buf.length * 2);
        bigger.set(this.#buf);
        this.#buf = bigger;
      }
      let got: number | null;
      try {
        got = await conn.read(this.#buf.subarray(len));
      } catch (e) {
        if (len === 0) throw new ClosedIdle(String(e));
        throw e;
      }
      if (got === null && len === 0) throw new ClosedIdle("connection closed by the server");
      if (got === null) throw new Error("connection closed by the server");
      len += got;
      if (end < 0) {
        end = headEnd(this.#buf, len, scanned - 3);
        scanned = len;
        if (end < 0) continue;
      }
      const out = this.#parse(end, len);
      if (out) return out;
    }
  }

  #parse(end: number, len: number): { status: number; body: string; ticket?: string } | null {
    const lines = dec.decode(this.#buf.subarray(0, end - 4)).split("\r\n");
    const status = Number(lines[0].split(" ")[1]);
    let length = 0, chunked = false, ticket: string | undefined;
    for (const line of lines.slice(1)) {
      const c = line.indexOf(":");
      const name = line.slice(0, c).trim().toLowerCase();
      const value = line.slice(c + 1).trim();
      if (name === "content-length") length = Number(value);
      else if (name === "transfer-encoding") chunked = /chunked/i.test(value);
      else if (name === "set-cookie" && value.startsWith("tg_ticket=")) {
        const v = value.slice(10, value.indexOf(";") < 0 ? undefined : value.indexOf(";"));
        ticket = v === "" ? undefined : decodeURIComponent(v);
      }
    }
    if (chunked) {
      const d = dechunk(this.#buf, end, len);
      return d && { status, body: d.body, ticket };
    }
    if (len < end + length) return null;
    return { status, body: dec.decode(this.#buf.subarray(end, end + length)), ticket };
  }

  close(): void {
    try {
      this.#conn?.close();
    } catch { /* already closed */ }
    this.#conn = null;
  }
}

/** A pool of `size` keep-alive connections to `base`; requests wait for a free one, in order. */
export class HttpPool {
  readonly #host: string;
  readonly #hostname: string;
  readonly #port: number;
  #idle: Connection[] = [];
  #all: Connection[] = [];
  #waiting: ((c: Connection) => void)[] = [];

  constructor(base: string, readonly size: number) {
    const u = new URL(base);
    this.#host = u.host;
    this.#hostname = u.hostname;
    this.#port = Number(u.port || 80);
    for (let i = 0; i < size; i++) {
      const c = new Connection(this.#hostname, this.#port);
      this.#all.push(c);
      this.#idle.push(c);
    }
  }

  /** Requests waiting for a connection. */
  get backlog(): number {
    return this.#waiting.length;
  }

  #bytes(c: Call): Uint8Array {
    let head = `${c.method} ${c.path} HTTP/1.1\r\nHost: ${this.#host}\r\n`;
    if (c.ticket) head += `Cookie: tg_ticket=${c.ticket}\r\n`;
    if (c.bearer) head += `Authorization: Bearer ${c.bearer}\r\n`;
    for (const [k, v] of Object.entries(c.headers ?? {})) head += `${k}: ${v}\r\n`;
    if (c.body === undefined) return enc.encode(head + "\r\n");
    const body = enc.encode(c.body);
    head += `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const h = enc.encode(head);
    const out = new Uint8Array(h.length + body.length);
    out.set(h);
    out.set(body, h.length);
    return out;
  }

  /** Sends `c` on the next free connection; never throws (a failure is status 0). */
  async request(c: Call): Promise<Answer> {
    const req = this.#bytes(c);
    const conn = this.#idle.pop() ?? await new Promise<Connection>((r) => this.#waiting.push(r));
    const sentAt = Date.now();
    const t0 = performance.now();
    try {
      const a = await conn.exchange(req);
      return { ...a, sentAt, ms: performance.now() - t0 };
    } catch (e) {
      conn.close();
      const error = e instanceof Error ? e.message : String(e);
      return { status: 0, body: "", sentAt, ms: performance.now() - t0, error };
    } finally {
      const next = this.#waiting.shift();
      if (next) next(conn);
      else this.#idle.push(conn);
    }
  }

  /** Closes every connection. */
  close(): void {
    for (const c of this.#all) c.close();
  }
}
