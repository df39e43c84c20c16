/**
 * The HTTP floor of a status answer, for comparison with `GET /status`: a `Deno.serve` app that
 * does what the service's status path does around the engine and nothing of the queue. It
 * gives the request its id (`assignRequestId`), reads the `tg_ticket` cookie, and answers with
 * the same response builder (`jsonResponse`: the JSON body and the security and cache headers)
 * plus `X-Request-Id`, for a fixed waiting view of the usual size. Run as its own process, like
 * the baseline.
 *
 * With `FLOOR_VERIFY=ticket` (and the servers' `TOKEN_SECRET`) it also authenticates the ticket as
 * the service must: the service's own `Signer`, whose memo of verified ticket texts answers every
 * poll after a ticket's first (an HMAC then), and 401 for a ticket that does not verify. Without
 * it the ticket is not checked at all, which no status can skip.
 */
import { assignRequestId } from "../lib/log.ts";
import type { VisitorView } from "../lib/queue/types.ts";
import { jsonResponse } from "../http/response.ts";
import { Signer } from "../lib/tokens.ts";

// Exits through Deno.exit when stopped, so a `--cpu-prof` profile (BENCH_DENO_FLAGS) is written.
for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, () => Deno.exit(0));

const port = Number(Deno.env.get("PORT") ?? "8102");
const TICKET = /(?:^|;\s*)tg_ticket=([^;]*)/;
const verify = Deno.env.get("FLOOR_VERIFY") === "ticket";
const signer = new Signer(Deno.env.get("TOKEN_SECRET") ?? "");

/** The fixed waiting view, for the ticket's visitor. */
function answer(id: string, visitorId: string): Response {
  const view: VisitorView = {
    queue: "default",
    visitorId,
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
}

Deno.serve(
  { hostname: "127.0.0.1", port, onListen: () => console.log(`status floor on ${port}`) },
  (req) => {
    const id = assignRequestId(req);
    const ticket = TICKET.exec(req.headers.get("cookie") ?? "")?.[1] ?? "";
    // Without a ticket (the bench's readiness probe) the floor answers unverified.
    if (!verify || !ticket) return answer(id, ticket.slice(0, 31));
    const known = signer.knownTicket(ticket);
    if (known) return answer(id, known.sub);
    return signer.verifyTicket(ticket).then((c) =>
      c ? answer(id, c.sub) : jsonResponse({ error: { code: "unauthorized" } }, 401)
    );
  },
);
