/**
 * A deadline for receiving a request body: a client that has not sent its whole body within
 * `BODY_TIMEOUT_MS` of the request's start gets 408 `request_timeout`, and its body is cancelled,
 * so half-sent bodies cannot hold connections and memory. It wraps the served handler, so every
 * route of ours (the fast `/join` path and Hono alike) has it. Bodies forwarded to the origin
 * stream through without it: a large upload may take longer, and the origin has its own limits.
 *
 * @example
 * Deno.serve(withBodyDeadline(fetch, { ms: 5000 }));
 */
import { errorBody } from "../errors.ts";
import { assignRequestId } from "../log.ts";
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

/** `handler` with a deadline on the bodies of requests for our own paths. */
export function withBodyDeadline(handler: Handler, opts: { ms?: number } = {}): Handler {
  const ms = opts.ms ?? BODY_TIMEOUT_MS;
  return (req, info) => {
    if (req.body === null || !isOwnPath(pathname(req.url))) return handler(req, info);
    const reader = req.body.getReader();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let late: BodyTimeoutError | null = null;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        const { done, value } = await reader.read();
        // A cut-off body must fail, not end: its first bytes may parse, and the answer was 408.
        if (late) return c.error(late);
        if (!done) return c.enqueue(value);
        // Received in time: the deadline no longer applies, however long the answer takes.
        clearTimeout(timer);
        c.close();
      },
      cancel(reason) {
        clearTimeout(timer);
        return reader.cancel(reason);
      },
    });
    const inner = new Request(req.url, {
      method: req.method,
      headers: req.headers,
      body,
      duplex: "half",
    } as RequestInit);
    const id = assignRequestId(req);
    assignRequestId(inner, req);
    const expired = new Promise<Response>((resolve) => {
      timer = setTimeout(() => {
        late = new BodyTimeoutError(ms);
        // The rest of the body is not waited for: the handler's read fails, its memory is freed.
        reader.cancel(late).catch(() => {});
        resolve(timeoutResponse(ms, id));
      }, ms);
    });
    const answered = Promise.resolve(handler(inner, info)).finally(() => clearTimeout(timer));
    return Promise.race([answered, expired]);
  };
}

function pathname(url: string): string {
  const p = pathOf(url);
  const q = p.indexOf("?");
  return q < 0 ? p : p.slice(0, q);
}
