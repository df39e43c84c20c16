/**
 * A proxy check whose `?queue=` names no queue (mistyped in the proxy's configuration, or the
 * queue was deleted since) is a configuration error, not a visitor to send to a waiting room that
 * does not exist: the two proxy checks answer 404 `unknown_queue` (as the API does for an unknown
 * queue; not a 5xx, which anyone calling a check directly with a made-up name could cause) with a
 * plain message, and the log says which queue and which check, once a minute per name and for at
 * most 8 names a minute (a check runs on every request of the site, and made-up names must not
 * flood the log). nginx takes any status but 2xx/401/403 as a failed check (it logs "auth request
 * unexpected status: 404"; the examples answer their 503 page); Caddy and Traefik hand this answer
 * to the visitor. Plain `/verify` answers only 204 or 401 (DECISIONS.md): its 401 says why
 * (`details.reason: unknown_queue`).
 */
import { errorBody } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import { jsonResponse } from "../http/response.ts";
import type { Services } from "./services.ts";

/** How often one unknown queue name is logged (ms), and how many names a minute at most. */
const LOG_EVERY_MS = 60_000, LOG_NAMES = 8;

/** The unknown-queue refusal of the checks over `s`: null when `queue` exists (or is absent). */
export function unknownQueueCheck(s: Services) {
  const logged = new Set<string>();
  let since = -Infinity;
  const open = s.config.STORE_FAILURE === "open";
  return async (kind: string, queue: string | undefined): Promise<Response | null> => {
    if (queue === undefined) return null;
    let names: string[];
    try {
      // In memory for a second; under STORE_FAILURE=open bounded like the policy's own reads.
      const read = s.engine.queueNames();
      names = await (open ? s.storeFailure.bounded(read) : read);
    } catch {
      return null; // an unreachable store: the store-failure policy answers
    }
    if (names.includes(queue)) return null;
    const message = `this access check names queue "${queue}", which does not exist: fix ` +
      "?queue= in the proxy's configuration, or create the queue";
    const now = s.clock.now();
    if (now - since >= LOG_EVERY_MS) (since = now, logged.clear());
    if (!logged.has(queue) && logged.size < LOG_NAMES) {
      logged.add(queue);
      log("error", "proxy check for an unknown queue", { check: kind, queue, queues: names });
    }
    if (kind === "verify") {
      return jsonResponse(errorBody("unauthorized", message, { reason: "unknown_queue" }), 401);
    }
    return jsonResponse(errorBody("unknown_queue", message), 404);
  };
}
