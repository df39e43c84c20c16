/**
 * The queue doctor: recounts a queue from its visitor records and index entries, reports every
 * difference from the stored counters, and repairs the counters. `deno task doctor` runs it.
 *
 * Deno KV has no snapshot across listings, so on a store the service is writing to, a visitor
 * that joins, moves or leaves between two listings looks broken for a moment. Every suspect is
 * therefore looked at again after a short pause, each with one consistent `getMany` of its record
 * and index entries, and only what persists is reported; `live` says when the store changed
 * under the scan. Counters are taken from a scan during which the counts record did not change
 * (every visitor state change writes it), or else must differ by the same amount in both looks.
 *
 * A repair is safe while the service runs: the corrected counts are committed with a check on the
 * versionstamp read before a consistent scan, and only counters whose difference persisted.
 */
import { slotOf } from "../priority/line.ts";
import { sleep } from "../clock.ts";
import { keys } from "../store/keys.ts";
import { takeInEnters, withEnters } from "./enters.ts";
import { pendingOf } from "../store/sums.ts";
import type { Numbering } from "./numbering.ts";
import { placeOf } from "./placement.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "./types.ts";

/** What a recount found. */
export interface Diagnosis {
  queue: string;
  visitors: number;
  stored: Pick<Counts, "waiting" | "holding" | "entered" | "nextSeq">;
  recounted: Pick<Counts, "waiting" | "holding" | "entered" | "nextSeq">;
  /** Counter names whose stored value differs from the recount (persisting ones only). */
  counterDiffs: Counter[];
  /** Index problems, in words (not repaired: the engine's own sweeps own the indexes). */
  indexProblems: string[];
  /** True when nothing differs. */
  healthy: boolean;
  /** True when the store changed while it was read (the service is running on it). */
  live: boolean;
  /** Suspects of the first look that were gone at the second (changes in flight, not faults). */
  transient: number;
}

/** How long the doctor waits before its second look at suspects (tests shorten it). */
export const SECOND_LOOK_MS = 1000;

/** Options of `diagnose` and `repairCounters`. */
export interface DoctorOptions {
  /** Pause before the second look (default `SECOND_LOOK_MS`). */
  pauseMs?: number;
}

type Sum = Pick<Counts, "waiting" | "holding" | "entered" | "nextSeq">;

/** One suspect: its words, and a fresh consistent look that says whether it still holds. */
interface Suspect {
  text: string;
  holds(kv: Deno.Kv): Promise<boolean>;
}

interface Scan {
  countsEntry: Deno.KvEntryMaybe<Counts>;
  /** The sum of enters the counts had not taken in, read with them (see enters.ts). */
  entersEntry: Deno.KvEntryMaybe<Deno.KvU64>;
  stored: Sum;
  recounted: Sum;
  visitors: number;
  suspects: Suspect[];
  /** The counts record and the enters' sum did not change during the scan: its recount is exact. */
  consistent: boolean;
}

const COUNTERS = ["waiting", "holding", "entered", "nextSeq"] as const;
/** A counter the doctor recounts. */
export type Counter = typeof COUNTERS[number];

type IndexName = "line" | "deadline" | "slot expiry";

/** The index key `v` must have of kind `name` (derived from its record, as the engine writes it). */
function expectedKey(q: string, v: Visitor, name: IndexName): Deno.KvKey | null {
  if (name === "line") return keys.fifo(q, v.seq);
  if (name === "deadline") return keys.deadline(q, v.deadline, v.id);
  return v.until === undefined ? null : keys.expiry(q, v.until, v.id);
}

/** A join the sequencer has not numbered yet: no line entry, not in the counts (sequencer.ts). */
const unnumbered = (v: Visitor | null) => v !== null && v.state === "waiting" && v.seq === 0;

const wantsIndex = (v: Visitor | null, name: IndexName) =>
  v !== null &&
  (name === "slot expiry"
    ? v.state !== "waiting"
    : v.state === "waiting" && (name !== "line" || !unnumbered(v)));

/** Entries at `found` (all of one visitor and index) are wrong: orphans, or more than one. */
function entrySuspect(q: string, id: string, name: IndexName, found: Deno.KvKey[]): Suspect {
  const text = found.length > 1
    ? `${found.length} ${name} entries for ${id}`
    : name === "slot expiry"
    ? `slot expiry entry for ${id}, who holds none`
    : `${name} entry for ${id}, who is not waiting`;
  return {
    text,
    async holds(kv) {
      const [v, ...entries] = await kv.getMany([keys.visitor(q, id), ...found]);
      const left = entries.filter((e) => e.versionstamp !== null).length;
      const visitor = v.value as Visitor | null;
      return found.length > 1 && wantsIndex(visitor, name)
        ? left > 1
        : left > 0 && !wantsIndex(visitor, name);
    },
  };
}

/** Visitor `id` lacks its entry of index `name`. */
function missingSuspect(q: string, v: Visitor, name: IndexName): Suspect {
  const text = name === "slot expiry"
    ? `${v.state} visitor ${v.id} has no slot expiry entry`
    : `waiting visitor ${v.id} has no ${name} entry`;
  return {
    text,
    async holds(kv) {
      const fresh = await kv.get<Visitor>(keys.visitor(q, v.id));
      if (!wantsIndex(fresh.value, name)) return false;
      const key = expectedKey(q, (await placeOf(kv, q, fresh.value!)).v, name);
      if (!key) return true;
      // Record and entry in one read: a consistent pair, whatever moves meanwhile.
      const [again, entry] = await kv.getMany([keys.visitor(q, v.id), key]);
      return again.versionstamp === fresh.versionstamp && entry.versionstamp === null;
    },
  };
}

/** A pre-queue participant waiting for the opening draw, which gives it its line entry. */
function drawWaits(c: Counts, v: Visitor): boolean {
  return c.preRound > 0 && v.round !== undefined;
}

/** The counts and the enters' sum, in one snapshot. */
function readCounts(kv: Deno.Kv, q: string) {
  return kv.getMany<[Counts, Deno.KvU64]>([keys.counts(q), keys.entersPending(q)]);
}

/**
 * The arrival numbers queue `q`'s numbering records give, by arrival key (a join's `mark` joined
 * by "|"): joins the counts hold as numbered whose records are not written yet (numbering.ts).
 */
async function numberedInRecords(kv: Deno.Kv, q: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const { value: r } of kv.list<Numbering>({ prefix: keys.numberingPrefix(q) })) {
    for (let j = 0; j < r.entries.length; j += 5) {
      const [dms, i, k, seq] = r.entries.slice(j, j + 4);
      out.set([r.base + dms, r.inst[i], k].join("|"), seq);
    }
  }
  return out;
}

async function scan(kv: Deno.Kv, q: string): Promise<Scan> {
  const [countsEntry, entersEntry] = await readCounts(kv, q);
  // As they are: with the enters they have not taken in yet.
  const stored = withEnters(withDefaults(EMPTY_COUNTS, countsEntry.value), pendingOf(entersEntry));
  const byId = new Map<string, Visitor>();
  const recounted = { waiting: 0, holding: 0, entered: 0, nextSeq: stored.nextSeq };
  let maxSeq = 0;
  // Numbered in a wide round whose chunk is not written yet: the counts hold them (numbering.ts).
  const inRecords = await numberedInRecords(kv, q);
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(q) })) {
    // As the opening draw placed it: its line entry is at its place (see placement.ts).
    const v = (await placeOf(kv, q, e.value)).v;
    byId.set(v.id, v);
    const seq = unnumbered(v) && v.mark ? inRecords.get(v.mark.join("|")) : v.seq;
    // Not numbered yet: counted by the sum of pending joins, not by the counts.
    if (seq === undefined || seq === 0) continue;
    if (v.state === "waiting") recounted.waiting++;
    else if (v.state === "admitted") recounted.holding++;
    else recounted.entered++;
    // The main line's numbers only: a priority lane numbers in a range of its own (line.ts).
    if (slotOf(seq) === 0) maxSeq = Math.max(maxSeq, seq);
  }
  // The next arrival number must be past every number handed out, or two visitors share one.
  if (recounted.nextSeq <= maxSeq) recounted.nextSeq = maxSeq + 1;

  const found: Record<IndexName, Map<string, Deno.KvKey[]>> = {
    line: new Map(),
    deadline: new Map(),
    "slot expiry": new Map(),
  };
  const note = (name: IndexName, id: string, key: Deno.KvKey) =>
    found[name].set(id, [...(found[name].get(id) ?? []), key]);
  for await (const e of kv.list<string>({ prefix: keys.fifoPrefix(q) })) {
    note("line", e.value, e.key);
  }
  for await (const e of kv.list({ prefix: keys.deadlinePrefix(q) })) {
    note("deadline", e.key[3] as string, e.key);
  }
  for await (const e of kv.list({ prefix: keys.expiryPrefix(q) })) {
    note("slot expiry", e.key[3] as string, e.key);
  }
  const suspects: Suspect[] = [];
  for (const name of ["line", "deadline", "slot expiry"] as const) {
    for (const [id, at] of found[name]) {
      const v = byId.get(id) ?? null;
      if (!wantsIndex(v, name) || at.length > 1) suspects.push(entrySuspect(q, id, name, at));
    }
    for (const v of byId.values()) {
      if (
        wantsIndex(v, name) && !found[name].has(v.id) && !(name === "line" && drawWaits(stored, v))
      ) {
        suspects.push(missingSuspect(q, v, name));
      }
    }
  }
  const [after, entersAfter] = await readCounts(kv, q);
  return {
    countsEntry,
    entersEntry,
    stored: {
      waiting: stored.waiting,
      holding: stored.holding,
      entered: stored.entered,
      nextSeq: stored.nextSeq,
    },
    recounted,
    visitors: byId.size,
    suspects,
    consistent: after.versionstamp === countsEntry.versionstamp &&
      entersAfter.versionstamp === entersEntry.versionstamp,
  };
}

const diffsOf = (s: Scan) => COUNTERS.filter((k) => s.stored[k] !== s.recounted[k]);
const offset = (s: Scan, k: Counter) => s.stored[k] - s.recounted[k];

/** Two looks at queue `q`: the counts and suspects that persisted, and the scan they come from. */
async function examine(kv: Deno.Kv, q: string, opts: DoctorOptions) {
  const first = await scan(kv, q);
  let live = !first.consistent;
  let last = first;
  let counterDiffs = diffsOf(first);
  if (!first.consistent && counterDiffs.length > 0) {
    // Counters read apart from the listings: a consistent rescan decides, or else only a
    // difference by the same amount in both looks counts.
    await pause(opts);
    last = await scan(kv, q);
    counterDiffs = last.consistent
      ? diffsOf(last)
      : counterDiffs.filter((k) => offset(last, k) !== 0 && offset(last, k) === offset(first, k));
  }
  let problems: string[] = [];
  if (first.suspects.length > 0) {
    await pause(opts);
    for (const s of first.suspects) if (await s.holds(kv)) problems.push(s.text);
  }
  const transient = first.suspects.length - problems.length;
  if (transient > 0) live = true;
  problems = [...new Set(problems)];
  const diagnosis: Diagnosis = {
    queue: q,
    visitors: last.visitors,
    stored: last.stored,
    recounted: last.recounted,
    counterDiffs,
    indexProblems: problems,
    healthy: counterDiffs.length === 0 && problems.length === 0,
    live,
    transient,
  };
  return { diagnosis, scan: last };
}

function pause(opts: DoctorOptions): Promise<void> {
  return sleep(opts.pauseMs ?? SECOND_LOOK_MS);
}

/** Recounts queue `q` and compares with its stored counters; writes nothing. */
export async function diagnose(
  kv: Deno.Kv,
  q: string,
  opts: DoctorOptions = {},
): Promise<Diagnosis> {
  return (await examine(kv, q, opts)).diagnosis;
}

/**
 * Recounts queue `q` and writes the recounted counters (waiting, holding, entered, nextSeq) whose
 * difference persisted, from a scan during which no visitor changed state and with a check that
 * none did before the write (else it rescans, up to `attempts` times). Historical totals
 * (admitted, abandoned) cannot be recounted and are kept.
 */
export async function repairCounters(
  kv: Deno.Kv,
  q: string,
  attempts = 20,
  opts: DoctorOptions = {},
): Promise<Diagnosis & { repaired: boolean }> {
  const { diagnosis } = await examine(kv, q, opts);
  const persisted = diagnosis.counterDiffs;
  if (persisted.length === 0) return { ...diagnosis, repaired: false };
  for (let i = 0; i < attempts; i++) {
    const s = await scan(kv, q);
    if (!s.consistent) continue;
    const now = diffsOf(s).filter((k) => persisted.includes(k));
    if (now.length === 0) return { ...diagnosis, counterDiffs: [], repaired: false };
    const fixed = withDefaults(EMPTY_COUNTS, s.countsEntry.value);
    const op = kv.atomic().check(s.countsEntry, s.entersEntry);
    takeInEnters(op, q, fixed, pendingOf(s.entersEntry));
    for (const k of now) fixed[k] = s.recounted[k];
    const res = await op.set(keys.counts(q), fixed).commit();
    if (res.ok) {
      return {
        ...diagnosis,
        stored: s.stored,
        recounted: s.recounted,
        counterDiffs: now,
        repaired: true,
      };
    }
  }
  throw new Error(`queue ${q} kept changing during ${attempts} recounts; try again when quieter`);
}
