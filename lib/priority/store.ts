/**
 * A queue's priority lanes as stored (`keys.priorityLanes(q)`): read and validated save. Each lane
 * name keeps the slot (its range of arrival numbers, lib/priority/line.ts) it was first given, also
 * after it is removed, so its waiters are never mixed into another line.
 */
import type { Clock } from "../clock.ts";
import { BadRequestError } from "../errors.ts";
import { keys } from "../store/keys.ts";
import { checkLanes, type Lane } from "./lanes.ts";
import { MAX_SLOT } from "./line.ts";

/** The stored lanes of a queue. */
export interface LanesRecord {
  lanes: Lane[];
  /** Each lane name ever saved, by its slot (1 to `MAX_SLOT`); kept when the lane is removed. */
  slots: Record<string, number>;
  updatedAt: number;
}

/** The lanes of `q` (none when never saved). */
export async function readLanes(kv: Deno.Kv, q: string): Promise<LanesRecord> {
  const v = (await kv.get<LanesRecord>(keys.priorityLanes(q))).value;
  if (!v || !Array.isArray(v.lanes)) return { lanes: [], slots: {}, updatedAt: 0 };
  return { ...v, slots: v.slots ?? {} };
}

/** Validates and stores the lanes of `q` (400 and nothing stored when any is bad). */
export async function saveLanes(
  kv: Deno.Kv,
  clock: Clock,
  q: string,
  lanes: Lane[],
): Promise<LanesRecord> {
  checkLanes(lanes);
  const old = await readLanes(kv, q);
  const slots = { ...old.slots };
  const used = new Set(Object.values(slots));
  let next = 1;
  for (const l of lanes) {
    if (slots[l.name] !== undefined) continue;
    while (used.has(next)) next++;
    if (next > MAX_SLOT) {
      throw new BadRequestError(`lanes not changed: at most ${MAX_SLOT} lane names ever`, {
        fields: [{
          path: "lanes",
          message: `at most ${MAX_SLOT} lane names over the queue's life`,
        }],
      });
    }
    slots[l.name] = next;
    used.add(next);
  }
  const rec: LanesRecord = { lanes, slots, updatedAt: clock.now() };
  await kv.set(keys.priorityLanes(q), rec);
  return rec;
}

/** The slot of each lane `q` has now (a removed lane's name is not in it). */
export async function laneSlots(kv: Deno.Kv, q: string): Promise<Map<string, number>> {
  const rec = await readLanes(kv, q);
  return new Map(rec.lanes.map((l) => [l.name, rec.slots[l.name]]));
}
