/// <reference lib="dom" />
/**
 * A queue's settings (and its join guards) as stored now, read at the moment of a save: the Admission tab's cards give
 * it to `checkedSave` (stale.ts) so a value another tab saved since the card was loaded is seen.
 */
import { api } from "../api.ts";
import type { QueueSettings } from "./admission.tsx";
import type { JoinGuards } from "./admission_guards.tsx";

/** The queue's settings stored now (throws, in words, for a queue the service does not know). */
export async function settingsNow(queue: string): Promise<QueueSettings> {
  const r = await api<{ queues: QueueSettings[] }>("GET", "/api/admin/queues");
  const mine = r.queues.find((x) => x.queue === queue);
  if (!mine) {
    // Deleted elsewhere: the queue picker says so, as for a write that found it gone (api.ts).
    dispatchEvent(new Event("tg-queue-gone"));
    throw new Error(`Queue ${queue} is not known to the service: nothing was saved.`);
  }
  return mine;
}

/** The queue's join guards stored now. */
export const guardsNow = (queue: string) =>
  api<JoinGuards>("GET", `/api/admin/join-guards?queue=${encodeURIComponent(queue)}`);
