/** A queue's priority lanes as stored (`keys.priorityLanes(q)`): read and validated save. */
import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";
import { checkLanes, type Lane } from "./lanes.ts";

/** The stored lanes of a queue. */
export interface LanesRecord {
  lanes: Lane[];
  updatedAt: number;
}

/** The lanes of `q` (none when never saved). */
export async function readLanes(kv: Deno.Kv, q: string): Promise<LanesRecord> {
  const v = (await kv.get<LanesRecord>(keys.priorityLanes(q))).value;
  return v && Array.isArray(v.lanes) ? v : { lanes: [], updatedAt: 0 };
}

/** Validates and stores the lanes of `q` (400 and nothing stored when any is bad). */
export async function saveLanes(
  kv: Deno.Kv,
  clock: Clock,
  q: string,
  lanes: Lane[],
): Promise<LanesRecord> {
  const rec: LanesRecord = { lanes: checkLanes(lanes), updatedAt: clock.now() };
  await kv.set(keys.priorityLanes(q), rec);
  return rec;
}
