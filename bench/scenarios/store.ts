/**
 * What a scenario reads from the KV file after its server stopped: the queue doctor's recount
 * (counters equal to the records, indexes consistent) and when each visitor was admitted.
 */
import { percentile } from "../checkins_sim.ts";
import { decodeTicket } from "../tickets.ts";
import { diagnose } from "../../lib/queue/doctor.ts";
import type { Visitor } from "../../lib/queue/types.ts";
import { keys } from "../../lib/store/keys.ts";
import type { Follower } from "./follower.ts";

/** The doctor's verdict, short. */
export interface DoctorReport {
  healthy: boolean;
  visitors: number;
  stored: Record<string, number>;
  counterDiffs: string[];
  /** The first index problems (at most 20). */
  indexProblems: string[];
}

/** Recounts queue `q` of the store at `kvPath` with the doctor (lib/queue/doctor.ts). */
export async function doctor(kvPath: string, q = "default"): Promise<DoctorReport> {
  const kv = await Deno.openKv(kvPath);
  try {
    const d = await diagnose(kv, q);
    return {
      healthy: d.healthy,
      visitors: d.visitors,
      stored: d.stored,
      counterDiffs: d.counterDiffs,
      indexProblems: d.indexProblems.slice(0, 20),
    };
  } finally {
    kv.close();
  }
}

/** `admittedAt` of every visitor holding a slot (admitted or entered), by id, from their records. */
export async function admittedAt(kvPath: string, q = "default"): Promise<Map<string, number>> {
  const kv = await Deno.openKv(kvPath);
  try {
    const ids: string[] = [];
    for await (const e of kv.list({ prefix: keys.expiryPrefix(q) })) ids.push(e.key[3] as string);
    const out = new Map<string, number>();
    for (let i = 0; i < ids.length; i += 10) {
      const got = await kv.getMany<Visitor[]>(
        ids.slice(i, i + 10).map((id) => keys.visitor(q, id)),
      );
      for (const g of got) if (g.value?.admittedAt) out.set(g.value.id, g.value.admittedAt);
    }
    return out;
  } finally {
    kv.close();
  }
}

/** How long followed visitors took to learn of their admission (server seconds). */
export interface LearnGaps {
  /** Followed visitors admitted at least `graceSec` before the end (the ones that count). */
  admitted: number;
  learned: number;
  /** Of those, ones that never learned it before the end (counted as late). */
  notLearned: number;
  p50Sec: number;
  p95Sec: number;
  maxSec: number;
  /** Share that learned within 5 s. */
  within5s: number;
}

/**
 * The gap between each followed visitor's admission (its record) and the first answer that told
 * it so; visitors admitted less than `graceSec` before `endMs` are left out (they may not have
 * had their check-in yet), and admitted ones that never learned count as late.
 */
export function learnGaps(
  f: Follower,
  admitted: Map<string, number>,
  endMs: number,
  graceSec = 10,
): LearnGaps {
  const gaps: number[] = [];
  const byId = new Map<string, number>();
  for (let i = 0; i < f.size; i++) byId.set(decodeTicket(f.ticket(i)).sub, i);
  let notLearned = 0;
  for (const [id, at] of admitted) {
    const i = byId.get(id);
    if (i === undefined || at > endMs - graceSec * 1000) continue;
    const learned = f.learned.get(i);
    if (learned === undefined) {
      notLearned++;
      gaps.push(Infinity);
    } else gaps.push(Math.max(0, learned - at) / 1000);
  }
  const finite = (x: number) => (Number.isFinite(x) ? x : -1);
  return {
    admitted: gaps.length,
    learned: gaps.length - notLearned,
    notLearned,
    p50Sec: finite(percentile(gaps, 50)),
    p95Sec: finite(percentile(gaps, 95)),
    maxSec: finite(percentile(gaps, 100)),
    within5s: gaps.length ? gaps.filter((g) => g <= 5).length / gaps.length : 0,
  };
}
