/**
 * Serves fake third-party APIs on loopback: each fake is a handler answering the requests it
 * knows (and null for the rest), so one server can stand in for several providers at one base URL.
 */

/** A fake provider's request handler; null means "not mine". */
export type FakeHandler = (req: Request) => Response | null | Promise<Response | null>;

/** A running fake server. */
export interface FakeServer {
  url: string;
  /** Every request seen, in order (method and path with query). */
  seen: { method: string; path: string }[];
  close(): Promise<void>;
}

/** Starts one loopback server over the given handlers, tried in order (404 when none answers). */
export function serveFakes(...handlers: FakeHandler[]): FakeServer {
  const seen: FakeServer["seen"] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const u = new URL(req.url);
    seen.push({ method: req.method, path: u.pathname + u.search });
    for (const h of handlers) {
      const res = await h(req);
      if (res) return res;
    }
    return Response.json({ success: false, errors: [{ code: 7003, message: "No route" }] }, {
      status: 404,
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    close: () => server.shutdown(),
  };
}
