/**
 * A deadline for receiving a request body: a client that has not sent its whole body within
 * `BODY_TIMEOUT_MS` of the request's start gets 408 `request_timeout`, and the route's read of the
 * body fails, so a half-sent body never acts and no route waits on it. (Deno's server keeps the
 * socket, and what arrived, until the client goes: a proxy's body timeout closes it sooner.) It
 * wraps the served handler, so every
 * route of ours (the fast `/join` path and Hono alike) has it. Bodies forwarded to the origin
 * stream through without it: a large upload may take longer, and the origin has its own limits.
 *
 * @example
 * Deno.serve(withBodyDeadline(fetch, { ms: 5000 }));
 */
import { onDeadline } from "../deadlines.ts";
import { errorBody } from "../errors.ts";
import { assignRequestId, requestIdOf } from "../log.ts";
import { isOwnPath } from "../origin/own_paths.ts";
import { pathOf } from "../origin/request.ts";

/** The default deadline for a whole request body (`BODY_TIMEOUT_MS`). */
export const BODY_TIMEOUT_MS = 5_000;

/** The error a body read fails with once the deadline passed. */
export class BodyTimeoutError extends Error {
  constructor(ms: number) {
    super(`request body not received within ${ms} ms`);
    this.name = "BodyTimeoutError";
  }
}

type Handler = (req: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>;

/**
 * 408 `request_timeout` in the error envelope, asking the client to close the connection.
 * Deno's server keeps a connection whose body read was cut short open until the client closes
 * it (a reverse proxy's own body timeout can close it sooner); everything of ours is released.
 */
function timeoutResponse(ms: number, id: string): Response {
  return Response.json(
    errorBody("request_timeout", `request body not received within ${ms} ms`, { timeoutMs: ms }),
    {
      status: 408,
      headers: {
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "X-Request-Id": id,
        Connection: "close",
      },
    },
  );
}

/** Per watched request: the deadline's timer, and how to fail a read still under way. */
interface Watch {
  cancel: () => void;
  fail: ((e: Error) => void) | null;
  late: BodyTimeoutError | null;
}
/** A watched request's `Watch`: a symbol-keyed property (a WeakMap entry per request made garbage). */
const WATCH = Symbol("tollgate.bodyWatch");
type Watched = Request & { [WATCH]?: Watch };

/**
 * `Request.prototype` with deadline-aware body readers, given to a watched request in place of
 * its own prototype (one cheap swap; defining the readers on each request cost several times
 * more on the join path). A read finished in time lifts the deadline; one still under way when
 * it passes fails with `BodyTimeoutError`, so a cut-off body never acts.
 */
const WATCHED = Object.create(Request.prototype) as Request;
for (const name of ["arrayBuffer", "bytes", "formData", "json", "text"] as const) {
  const read = Request.prototype[name] as (this: Request) => Promise<unknown>;
  Object.defineProperty(WATCHED, name, {
    value(this: Request) {
      const w = (this as Watched)[WATCH];
      if (!w) return read.call(this);
      if (w.late) return Promise.reject(w.late);
      return new Promise((resolve, reject) => {
        w.fail = reject;
        read.call(this).then((v) => {
          w.cancel();
          resolve(v);
        }, reject);
      });
    },
  });
}

/**
 * False when `req` certainly has no body (GET, HEAD, or a declared length of 0), without touching
 * `req.body`: on a served request that getter makes a stream, and a body read after it goes
 * through the stream instead of Deno's direct read, which halved a small JSON POST's throughput.
 */
export function mayHaveBody(req: Request): boolean {
  const m = req.method;
  if (m === "GET" || m === "HEAD") return false;
  return req.headers.get("content-length") !== "0" || req.headers.has("transfer-encoding");
}

/** `handler` with a deadline on the bodies of requests for our own paths. */
export function withBodyDeadline(
  handler: Handler,
  opts: { ms?: number; basePath?: string } = {},
): Handler {
  const watched = bodyDeadline(opts);
  return (req, info) => mayHaveBody(req) ? watched(req, info, handler) : handler(req, info);
}

/**
 * The deadline as a step of a handler that already knows `req` may have a body (the served
 * `fetch` checks `mayHaveBody` itself, so a request without one costs no extra call): `handler`
 * answers, with the deadline on the body when the path is one of ours.
 */
export function bodyDeadline(
  opts: {
    ms?: number;
    basePath?: string;
    /**
     * Under `basePath`: true while Tollgate answers its plain paths too (no origin proxy). With the
     * proxy on, the site owns every path outside the prefix, and its uploads and slow answers are
     * not ours to cut off. Without it, plain paths count as ours.
     */
    plainPathsOurs?: () => boolean;
  } = {},
): (
  req: Request,
  info: Deno.ServeHandlerInfo | undefined,
  handler: Handler,
) => ReturnType<Handler> {
  const ms = opts.ms ?? BODY_TIMEOUT_MS;
  const base = opts.basePath;
  const plainOurs = opts.plainPathsOurs ?? (() => true);
  return (req, info, handler) => {
    // Without a declared length, whether there is a body is only known from the stream.
    if (!req.headers.has("content-length") && req.body === null) return handler(req, info);
    const path = pathname(req.url);
    // Under BASE_PATH the request is rebuilt without the prefix later, which keeps the body
    // stream but not a watched reader: such a request gets the watched stream.
    const own = isOwnPath(path) && (base === undefined || plainOurs());
    const prefixed = !own && base !== undefined && path.startsWith(`${base}/`) &&
      isOwnPath(path.slice(base.length));
    if (!own && !prefixed) return handler(req, info);
    // One promise settles the answer: the route's, or 408 at the deadline (whichever is first).
    return new Promise<Response>((resolve, reject) => {
      const expire = () => resolve(timeoutResponse(ms, requestIdOf(req) ?? assignRequestId(req)));
      let cancel = () => {};
      const setCancel = (c: () => void) => cancel = c;
      // A declared length (the usual JSON call): the request's own readers get the deadline,
      // which costs next to nothing. Otherwise the body is streamed through a watched copy.
      const known = !prefixed && req.headers.has("content-length") &&
        !req.headers.has("transfer-encoding");
      const run = known
        ? watchReaders(req, ms, setCancel, expire)
        : watchStream(req, ms, setCancel, expire);
      const done = (res: Response) => (cancel(), resolve(res));
      try {
        const out = handler(run, info);
        if (out instanceof Response) done(out);
        else out.then(done, (e) => (cancel(), reject(e)));
      } catch (e) {
        cancel();
        reject(e);
      }
    });
  };
}

/**
 * Gives `req`'s body readers the deadline (see `WATCHED`); at `ms` a read still under way fails
 * and `expire` answers 408.
 */
function watchReaders(
  req: Request,
  ms: number,
  setCancel: (cancel: () => void) => void,
  expire: () => void,
): Request {
  const w: Watch = { cancel: () => {}, fail: null, late: null };
  w.cancel = onDeadline(Date.now() + ms, () => {
    w.late = new BodyTimeoutError(ms);
    w.fail?.(w.late);
    expire();
  });
  setCancel(w.cancel);
  (req as Watched)[WATCH] = w;
  Object.setPrototypeOf(req, WATCHED);
  return req;
}

/** `req` with its body streamed through a copy that fails, and stops reading, at `ms`. */
function watchStream(
  req: Request,
  ms: number,
  setCancel: (cancel: () => void) => void,
  expire: () => void,
): Request {
  const reader = req.body!.getReader();
  let late: BodyTimeoutError | null = null;
  let cancel = () => {};
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      const { done, value } = await reader.read();
      // A cut-off body must fail, not end: its first bytes may parse, and the answer was 408.
      if (late) return c.error(late);
      if (!done) return c.enqueue(value);
      // Received in time: the deadline no longer applies, however long the answer takes.
      cancel();
      c.close();
    },
    cancel(reason) {
      cancel();
      return reader.cancel(reason);
    },
  });
  const inner = new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body,
    duplex: "half",
  } as RequestInit);
  assignRequestId(req);
  assignRequestId(inner, req);
  setCancel(
    cancel = onDeadline(Date.now() + ms, () => {
      late = new BodyTimeoutError(ms);
      // The rest of the body is not waited for: the route's read fails, its memory is freed.
      reader.cancel(late).catch(() => {});
      expire();
    }),
  );
  return inner;
}

function pathname(url: string): string {
  const p = pathOf(url);
  const q = p.indexOf("?");
  return q < 0 ? p : p.slice(0, q);
}
