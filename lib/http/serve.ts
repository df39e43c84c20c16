/**
 * The TCP side of serving, bounded: `Deno.serve` has no connection cap, no header timeout and no
 * keep-alive bound, and its accept loop ends the server (and, unhandled, the process) when the
 * descriptors run out (`Too many open files`). Here the service accepts TCP itself
 * (`Deno.listen`) and hands each connection to Deno's own HTTP machinery (the runtime's
 * `serveHttpOnConnection`, what `Deno.serve` runs per connection), so it can:
 *
 * - cap open connections below the descriptor limit, shedding the connection that has waited
 *   longest without a request (a flood's connections go first; a visitor's new connection is
 *   shed last) when a new one arrives at the cap;
 * - close a connection that has not sent a complete request head within the header timeout of
 *   connecting, and a keep-alive connection idle past the idle timeout after its last response;
 * - keep accepting when `accept` fails for want of descriptors: shed the oldest waiting
 *   connection, back off briefly, go on (logged once a minute at most, counted always).
 *
 * On Deno Deploy (the platform accepts the connections) plain `Deno.serve` runs as before; where
 * the runtime does not offer the per-connection call, too, with a warning.
 */
import { instanceMetrics } from "../metrics/instance.ts";
import { ConnectionPool, type Slot } from "./connections.ts";
import { log } from "../log.ts";

type Handler = (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;

/** Bounds of the TCP side. */
export interface ServeBounds {
  port: number;
  hostname?: string;
  /**
   * `DENO_SERVE_ADDRESS` (a Deno runtime variable `Deno.serve` obeys): its `tcp:HOST:PORT` form
   * replaces `hostname` and `port` here too; any other form is left to `Deno.serve`, unbounded.
   */
  serveAddress?: string;
  /** True on a platform that accepts the connections itself (Deno Deploy): plain `Deno.serve`. */
  platformServes?: boolean;
  /** Most open connections (already below the descriptor limit: see `connectionLimit`). */
  maxConnections: number;
  /** From connecting to a complete first request head. */
  headerTimeoutMs: number;
  /** From a response's end to the next request head on a keep-alive connection. */
  idleTimeoutMs: number;
  onListen?: (addr: Deno.NetAddr) => void;
}

/** A running server. */
export interface BoundedServer {
  addr: Deno.NetAddr;
  /** Resolves once the server stopped accepting (after `shutdown`). */
  finished: Promise<void>;
  /** Stops accepting and closes every connection. */
  shutdown(): Promise<void>;
}

type ServeOnConnection = (
  conn: Deno.Conn,
  signal: AbortSignal,
  handler: Handler,
  onError: (e: unknown) => Response,
  onListen: (scheme: string) => void,
) => { finished: Promise<void> };

/** The runtime's per-connection server, or null where this Deno does not expose it. */
function serveOnConnection(): ServeOnConnection | null {
  const d = Deno as unknown as Record<symbol | string, unknown>;
  const internal = d.internal as symbol | undefined;
  const api = internal === undefined ? undefined : d[internal] as Record<string, unknown>;
  const f = api?.serveHttpOnConnection;
  return typeof f === "function" ? f as ServeOnConnection : null;
}

/**
 * True for what a client that went away mid-request leaves behind (its body cut off, its socket
 * reset): not the service's error, and not worth an error line, which anyone could otherwise
 * write into the log once per connection.
 */
export function clientGone(e: unknown): boolean {
  const E = Deno.errors;
  return e instanceof E.BadResource || e instanceof E.ConnectionReset ||
    e instanceof E.BrokenPipe || e instanceof E.UnexpectedEof || e instanceof E.Interrupted;
}

/** The last resort of a handler that threw: 500 and an error line, or 400 for a client gone. */
export function servingError(e: unknown): Response {
  if (clientGone(e)) return new Response("Bad Request", { status: 400 });
  log("error", "unhandled error while serving", { error: String(e) });
  return new Response("Internal Server Error", { status: 500 });
}

/** The host and port of a `DENO_SERVE_ADDRESS` of the form `tcp:HOST:PORT`; null for others. */
export function tcpServeAddress(value: string): { hostname: string; port: number } | null {
  const m = /^tcp:(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+):(\d{1,5})$/.exec(value.trim());
  if (!m || Number(m[2]) > 65535) return null;
  return { hostname: m[1].replace(/^\[|\]$/g, ""), port: Number(m[2]) };
}

/** The soft descriptor limit of this process (Linux `/proc/self/limits`), or null. */
export function descriptorLimit(): number | null {
  try {
    const text = Deno.readTextFileSync("/proc/self/limits");
    const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
    if (!m) return null;
    return m[1] === "unlimited" ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/**
 * The connection cap: `configured`, but never above three quarters of the descriptor limit (the
 * rest is for the KV store, calls to the origin and webhooks, and the runtime itself).
 */
export function connectionLimit(configured: number, fdLimit: number | null): number {
  if (fdLimit === null) return configured;
  return Math.max(16, Math.min(configured, Math.floor(fdLimit * 3 / 4)));
}

/** True for the accept errors that mean "no descriptor left" (EMFILE, ENFILE). */
export function isDescriptorExhaustion(e: unknown): boolean {
  return /too many open files|os error 2[34]\b/i.test(String((e as Error)?.message ?? e));
}

/** How often one kind of warning may be logged. */
const LOG_EVERY_MS = 60_000;

/** Serves `handler` on a TCP port under `bounds` (see the file header). */
export function serveBounded(bounds: ServeBounds, handler: Handler): BoundedServer {
  const perConn = serveOnConnection();
  const override = bounds.serveAddress ? tcpServeAddress(bounds.serveAddress) : null;
  const unbounded = !perConn || (bounds.serveAddress && !override);
  if (unbounded && !bounds.platformServes) {
    log("warn", "connection bounds unavailable", {
      hint: (perConn
        ? "DENO_SERVE_ADDRESS is not of the form tcp:HOST:PORT"
        : "this Deno does not expose per-connection serving") +
        ": Deno.serve runs without a connection cap or header timeout; bound them in the " +
        "proxy in front (docs/deploy.md)",
    });
  }
  if (unbounded || bounds.platformServes) {
    const s = Deno.serve({
      port: bounds.port,
      hostname: bounds.hostname,
      onListen: (a) => bounds.onListen?.(a),
      onError: servingError,
    }, handler);
    return { addr: s.addr, finished: s.finished, shutdown: () => s.shutdown() };
  }
  const listener = Deno.listen(override ?? { port: bounds.port, hostname: bounds.hostname });
  const addr = listener.addr as Deno.NetAddr;
  const m = instanceMetrics;
  m.connections.limit = bounds.maxConnections;
  const pool = new ConnectionPool(bounds, () => performance.now(), (reason) => {
    m.connectionsClosed.inc([reason]);
  });
  const slots = new Set<Slot>();
  let stopping = false;
  const lastLog = new Map<string, number>();
  const warnAtMost = (key: string, msg: string, fields: Record<string, unknown>) => {
    const now = Date.now();
    if (now - (lastLog.get(key) ?? -Infinity) < LOG_EVERY_MS) return;
    lastLog.set(key, now);
    log("warn", msg, fields);
  };
  // One sweep for every connection's deadline, a few times per shortest timeout.
  const every = Math.max(50, Math.min(1000, bounds.headerTimeoutMs / 4, bounds.idleTimeoutMs / 4));
  const sweeper = setInterval(() => pool.sweep(), every);
  Deno.unrefTimer(sweeper);

  const onError = servingError;

  const accepted = (conn: Deno.Conn) => {
    const ctl = new AbortController();
    const slot = pool.admit(() => ctl.abort());
    if (!slot) {
      // Every connection has a request in flight: this one cannot be served now.
      try {
        conn.close();
      } catch { /* already gone */ }
      return;
    }
    if (pool.live >= bounds.maxConnections) {
      warnAtMost("cap", "connection cap reached", {
        maxConnections: bounds.maxConnections,
        hint: "connections waiting longest for a request are closed to make room",
      });
    }
    slots.add(slot);
    m.connections.open = slots.size;
    const done = () => pool.ended(slot);
    const served = (req: Request, info: Deno.ServeHandlerInfo) => {
      pool.started(slot);
      info.completed.then(done, done);
      return handler(req, info);
    };
    const gone = () => {
      pool.gone(slot);
      slots.delete(slot);
      m.connections.open = slots.size;
    };
    try {
      perConn(conn, ctl.signal, served, onError, () => {}).finished.then(gone, gone);
    } catch (e) {
      gone();
      try {
        conn.close();
      } catch { /* already gone */ }
      warnAtMost("serve", "could not serve a connection", { error: String(e) });
    }
  };

  const loop = async () => {
    let backoff = 0;
    while (!stopping) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
        backoff = 0;
      } catch (e) {
        if (stopping || e instanceof Deno.errors.BadResource) break;
        const exhausted = isDescriptorExhaustion(e);
        m.acceptErrors.inc([exhausted ? "descriptors" : "other"]);
        if (exhausted) {
          pool.shedOldest("descriptors");
          warnAtMost("descriptors", "file descriptors exhausted", {
            error: String(e),
            openConnections: slots.size,
            hint: "connections waiting longest are closed to make room; raise the descriptor " +
              "limit (LimitNOFILE=) or lower MAX_CONNECTIONS (docs/deploy.md)",
          });
        } else {
          warnAtMost("accept", "accept failed", { error: String(e) });
        }
        // Brief, growing pauses: the error may clear as connections end, and a tight loop of
        // failing accepts would take the CPU the open connections need.
        backoff = Math.min(1000, backoff === 0 ? 5 : backoff * 2);
        await new Promise((r) => setTimeout(r, backoff));
        continue;
      }
      accepted(conn);
    }
  };
  bounds.onListen?.(addr);
  const finished = loop();
  return {
    addr,
    finished,
    shutdown: async () => {
      stopping = true;
      clearInterval(sweeper);
      try {
        listener.close();
      } catch { /* already closed */ }
      for (const s of slots) s.abort();
      await finished;
    },
  };
}
