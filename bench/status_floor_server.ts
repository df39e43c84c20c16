/**
 * The HTTP floor of a status answer, for comparison with `GET /status`: a `Deno.serve` app that
 * does what the service's status path does around the engine and nothing of the queue. It
 * gives the request its id (`assignRequestId`), reads the `tg_ticket` cookie, and answers with
 * the same response builder (`jsonResponse`: the JSON body and the security and cache headers)
 * plus `X-Request-Id`, for a fixed waiting view of the usual size. Run as its own process, like
 * the baseline.
 */
import { assignRequestId } from "../lib/log.ts";
import type { VisitorView } from "../lib/queue/types.ts";
import { jsonResponse } from "../http/response.ts";

// Exits through Deno.exit when stopped, so a `--cpu-prof` profile (BENCH_DENO_FLAGS) is written.
for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, () => Deno.exit(0));

const port = Number(Deno.env.get("PORT") ?? "8102");
const TICKET = /(?:^|;\s*)tg_ticket=([^;]*)/;

Deno.serve(
  { hostname: "127.0.0.1", port, onListen: () => console.log(`status floor on ${port}`) },
  (req) => {
    const id = assignRequestId(req);
    const ticket = TICKET.exec(req.headers.get("cookie") ?? "")?.[1] ?? "";
    const view: VisitorView = {
      queue: "default",
      visitorId: ticket.slice(0, 31),
      status: "waiting",
      admissionMode: "queue",
      nextCheckAt: 1795616394000,
      nextPollAfterMs: 36487,
      estimatedWaitSeconds: 91170,
      position: 50650,
    };
    const res = jsonResponse(view, 200);
    res.headers.set("X-Request-Id", id);
    return res;
  },
);
