/**
 * The queue cap of admin creates, exact under concurrency. Counting the queues and then making one
 * let two creates at 99 both pass (101 queues). Here a create first takes a place: one commit on
 * `keys.queueCreates()`, checked against the version read with the count, records its name until
 * the queue is made. A concurrent create loses that check, reads again, and counts the places
 * taken too. A place whose create died before making its queue lapses after `HOLD_MS`.
 */
import type { Clock } from "../clock.ts";
import { BadRequestError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";

/** How long a taken place counts without its queue (a create makes it within a second). */
export const HOLD_MS = 60_000;

type Taken = Record<string, number>;

/**
 * Takes a place for queue `name` under `max` queues, or throws 400 naming `name`. A name that
 * exists already takes none. Call `releaseQueuePlace` once the queue is made (or the create failed).
 */
export async function takeQueuePlace(
  kv: Deno.Kv,
  clock: Clock,
  name: string,
  max: number,
): Promise<void> {
  await retryCommit(async () => {
    const now = clock.now();
    const slot = await kv.get<Taken>(keys.queueCreates());
    const names = new Set<string>();
    for await (const e of kv.list({ prefix: keys.queues() })) names.add(e.key[1] as string);
    if (names.has(name)) return true;
    // Places still pending: not lapsed, and not made yet (a made one is counted by its name).
    const taken: Taken = {};
    for (const [n, at] of Object.entries(slot.value ?? {})) {
      if (at > now - HOLD_MS && !names.has(n)) taken[n] = at;
    }
    delete taken[name];
    if (names.size + Object.keys(taken).length >= max) {
      throw new BadRequestError(`at most ${max} queues; remove one first`, {
        fields: [{ path: "name", message: `at most ${max} queues` }],
      });
    }
    taken[name] = now;
    const res = await kv.atomic().check(slot).set(keys.queueCreates(), taken).commit();
    return res.ok ? true : null;
  }, "queue cap");
}

/** Gives back the place of `name` (its queue exists now, or its create failed). */
export async function releaseQueuePlace(kv: Deno.Kv, name: string): Promise<void> {
  await retryCommit(async () => {
    const slot = await kv.get<Taken>(keys.queueCreates());
    if (!slot.value || !(name in slot.value)) return true;
    const { [name]: _, ...rest } = slot.value;
    const res = await kv.atomic().check(slot).set(keys.queueCreates(), rest).commit();
    return res.ok ? true : null;
  }, "queue cap release");
}
