/**
 * The queue doctor: recounts a queue from its visitor records and index entries, reports every
 * difference from the stored counters, and repairs the counters. `deno task doctor` runs it.
 *
 * A repair is safe while the service runs: every visitor state change also writes the counts
 * record, so the corrected counts are committed with a check on the versionstamp read before the
 * scan. If any visitor changed state meanwhile, the check fails and the scan starts again.
 */
import { keys } from "../store/keys.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "./types.ts";

/** What a recount found. */
export interface Diagnosis {
  queue: string;
  visitors: number;
  stored: Pick<Counts, "waiting" | "holding" | "entered" | "nextSeq">;
  recounted: Pick<Counts, "waiting" | "holding" | "entered" | "nextSeq">;
  /** Counter names whose stored value differs from the recount. */
  counterDiffs: Counter[];
  /** Index problems, in words (not repaired: the engine's own sweeps own the indexes). */
  indexProblems: string[];
  /** True when nothing differs. */
  healthy: boolean;
}

interface Scan {
  diagnosis: Diagnosis;
  countsEntry: Deno.KvEntryMaybe<Counts>;
}

const COUNTERS = ["waiting", "holding", "entered", "nextSeq"] as const;
/** A counter the doctor recounts. */
export type Counter = typeof COUNTERS[number];

async function scan(kv: Deno.Kv, q: string): Promise<Scan> {
  const countsEntry = await kv.get<Counts>(keys.counts(q));
  const stored = withDefaults(EMPTY_COUNTS, countsEntry.value);
  const byId = new Map<string, Visitor>();
  const recounted = { waiting: 0, holding: 0, entered: 0, nextSeq: stored.nextSeq };
  let maxSeq = 0;
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(q) })) {
    const v = e.value;
    byId.set(v.id, v);
    if (v.state === "waiting") recounted.waiting++;
    else if (v.state === "admitted") recounted.holding++;
    else recounted.entered++;
    maxSeq = Math.max(maxSeq, v.seq);
  }
  // The next arrival number must be past every number handed out, or two visitors share one.
  if (recounted.nextSeq <= maxSeq) recounted.nextSeq = maxSeq + 1;

  const problems: string[] = [];
  const seen = { fifo: new Map<string, number>(), deadline: new Map<string, number>() };
  for await (const e of kv.list<string>({ prefix: keys.fifoPrefix(q) })) {
    seen.fifo.set(e.value, (seen.fifo.get(e.value) ?? 0) + 1);
  }
  for await (const e of kv.list({ prefix: keys.deadlinePrefix(q) })) {
    const id = e.key[3] as string;
    seen.deadline.set(id, (seen.deadline.get(id) ?? 0) + 1);
  }
  const expiry = new Map<string, number>();
  for await (const e of kv.list({ prefix: keys.expiryPrefix(q) })) {
    const id = e.key[3] as string;
    expiry.set(id, (expiry.get(id) ?? 0) + 1);
  }
  for (const [name, tally] of [["line", seen.fifo], ["deadline", seen.deadline]] as const) {
    for (const [id, n] of tally) {
      const v = byId.get(id);
      if (!v || v.state !== "waiting") problems.push(`${name} entry for ${id}, who is not waiting`);
      else if (n > 1) problems.push(`${n} ${name} entries for waiting visitor ${id}`);
    }
  }
  for (const [id, n] of expiry) {
    const v = byId.get(id);
    if (!v || v.state === "waiting") problems.push(`slot expiry entry for ${id}, who holds none`);
    else if (n > 1) problems.push(`${n} slot expiry entries for ${id}`);
  }
  for (const v of byId.values()) {
    if (v.state === "waiting") {
      // A pre-queue participant gets its line entry from the opening draw.
      const drawWaits = stored.preRound > 0 && v.arrival === undefined && v.seq >= stored.preFrom &&
        (stored.preCutoff === 0 || v.seq < stored.preCutoff);
      if (!seen.fifo.has(v.id) && !drawWaits) {
        problems.push(`waiting visitor ${v.id} has no line entry`);
      }
      if (!seen.deadline.has(v.id)) problems.push(`waiting visitor ${v.id} has no deadline entry`);
    } else if (!expiry.has(v.id)) {
      problems.push(`${v.state} visitor ${v.id} has no slot expiry entry`);
    }
  }
  const counterDiffs = COUNTERS.filter((k) => stored[k] !== recounted[k]);
  return {
    countsEntry,
    diagnosis: {
      queue: q,
      visitors: byId.size,
      stored: {
        waiting: stored.waiting,
        holding: stored.holding,
        entered: stored.entered,
        nextSeq: stored.nextSeq,
      },
      recounted,
      counterDiffs,
      indexProblems: problems,
      healthy: counterDiffs.length === 0 && problems.length === 0,
    },
  };
}

/** Recounts queue `q` and compares with its stored counters; writes nothing. */
export async function diagnose(kv: Deno.Kv, q: string): Promise<Diagnosis> {
  return (await scan(kv, q)).diagnosis;
}

/**
 * Recounts queue `q` and writes the recounted counters (waiting, holding, entered, nextSeq) when
 * they differ, with a check that no visitor changed state during the scan (else it rescans, up to
 * `attempts` times). Historical totals (admitted, abandoned) cannot be recounted and are kept.
 */
export async function repairCounters(
  kv: Deno.Kv,
  q: string,
  attempts = 20,
): Promise<Diagnosis & { repaired: boolean }> {
  for (let i = 0; i < attempts; i++) {
    const { diagnosis, countsEntry } = await scan(kv, q);
    if (diagnosis.counterDiffs.length === 0) return { ...diagnosis, repaired: false };
    const fixed = { ...withDefaults(EMPTY_COUNTS, countsEntry.value), ...diagnosis.recounted };
    const res = await kv.atomic().check(countsEntry).set(keys.counts(q), fixed).commit();
    if (res.ok) return { ...diagnosis, repaired: true };
  }
  throw new Error(`queue ${q} kept changing during ${attempts} recounts; try again when quieter`);
}
