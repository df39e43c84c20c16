import { keys } from "../store/keys.ts";
import {
  bulkLimit,
  checkWindow,
  frontCheckSec,
  type ScheduleInput,
  STATUS_BUDGET_PER_SECOND,
} from "./timeslot.ts";

interface QueueLedger {
  /** The clock second the KV counts were last read. */
  readSec: number;
  counts: Map<number, number>;
  /** Lowest second at or after which a second with room may be found. */
  hint: number;
  /** Reservations made while a read of the store runs (it may not see them): added to its counts. */
  during?: Map<number, number>;
}

/** How old a ledger may be and still serve while it is read again (see `refresh`), seconds. */
const STALE_SECONDS = 3;

/** How far ahead the ledger reads and assigns, in seconds. */
const HORIZON_SECONDS = 4 * 3600;

/**
 * Check-in occupancy per second: how many waiters were given each future second as their next
 * timeslot. Assignments are summed into KV in the same commit as the visitor write, and each
 * instance re-reads the counts once a second, so every instance fills seconds up to the 750/s
 * budget (bulk placements to a lower mark, see `bulkLimit`) instead of guessing from arrival
 * numbers.
 */
export class CheckinLedger {
  #queues = new Map<string, QueueLedger>();
  #loading = new Map<string, Promise<void>>();

  constructor(private kv: Deno.Kv) {}

  /**
   * Re-reads the counts of the coming seconds when this instance has not this second; a ledger
   * read within `STALE_SECONDS` serves meanwhile (joins that waited for that read were the slowest
   * of a crowd, bench/RESULTS.md; other instances' seconds are a second old either way).
   */
  async refresh(q: string, nowSec: number, periodSec: number): Promise<void> {
    const l = this.#queues.get(q);
    if (l && l.readSec >= nowSec) return;
    let p = this.#loading.get(q);
    if (!p) {
      p = this.#read(q, nowSec, periodSec).finally(() => this.#loading.delete(q));
      this.#loading.set(q, p);
    }
    if (l && l.readSec >= nowSec - STALE_SECONDS) {
      // Its failure is the next caller's to see (it reads again).
      p.catch(() => {});
      return;
    }
    await p;
  }

  async #read(q: string, nowSec: number, periodSec: number): Promise<void> {
    const counts = new Map<number, number>();
    const end = nowSec + Math.min(HORIZON_SECONDS, 3 * periodSec + 60);
    const iter = this.kv.list<Deno.KvU64>({
      start: keys.checkins(q, nowSec + 1),
      end: keys.checkins(q, end),
    });
    const l = this.#queues.get(q);
    const during = new Map<number, number>();
    if (l) l.during = during;
    try {
      for await (const e of iter) counts.set(e.key[2] as number, Number(e.value.value));
    } finally {
      if (l) delete l.during;
    }
    // Reservations made while it ran come on top; others not written yet are kept.
    for (const [s, n] of during) counts.set(s, (counts.get(s) ?? 0) + n);
    for (const [s, n] of this.#queues.get(q)?.counts ?? []) {
      if (s > nowSec) counts.set(s, Math.max(n, counts.get(s) ?? 0));
    }
    this.#queues.set(q, { readSec: nowSec, counts, hint: nowSec + 1 });
  }

  /** Takes a check-in of second `s` in ledger `l`. */
  #take(l: QueueLedger, s: number): number {
    l.counts.set(s, (l.counts.get(s) ?? 0) + 1);
    l.during?.set(s, (l.during.get(s) ?? 0) + 1);
    return s;
  }

  /**
   * The first second at or after `fromSec` (and within `untilSec`) that has room under `limit`
   * (bulk placements leave the rest of the budget to front-of-line check-ins, see `bulkLimit`);
   * failing that, the first one seen with room under the whole budget; `fromSec` itself when all
   * are full. Reserves it locally.
   */
  reserve(q: string, fromSec: number, untilSec: number, limit = STATUS_BUDGET_PER_SECOND): number {
    let l = this.#queues.get(q);
    if (!l) this.#queues.set(q, l = { readSec: 0, counts: new Map(), hint: 0 });
    const dense = fromSec <= l.hint;
    let s = Math.max(fromSec, l.hint);
    let spare: number | null = null;
    for (; s <= untilSec; s++) {
      const n = l.counts.get(s) ?? 0;
      if (n < limit) break;
      if (spare === null && n < STATUS_BUDGET_PER_SECOND) spare = s;
    }
    if (s > untilSec) s = spare ?? fromSec;
    else if (dense) l.hint = s;
    return this.#take(l, s);
  }

  /**
   * The latest second at or before `untilSec` (and from `fromSec`) with room under the whole
   * budget, for front-of-line check-ins: an earlier one costs at most another check-in, a later
   * one would delay learning of the admission. `untilSec` when all are full. Reserves it locally.
   */
  reserveBefore(q: string, fromSec: number, untilSec: number): number {
    let l = this.#queues.get(q);
    if (!l) this.#queues.set(q, l = { readSec: 0, counts: new Map(), hint: 0 });
    let s = untilSec;
    while (s >= fromSec && (l.counts.get(s) ?? 0) >= STATUS_BUDGET_PER_SECOND) s--;
    if (s < fromSec) s = untilSec;
    return this.#take(l, s);
  }
}

/** Adds the KV sums for the timeslots assigned in one commit. */
export function sumCheckins(op: Deno.AtomicOperation, q: string, secs: number[]): void {
  const per = new Map<number, number>();
  for (const s of secs) per.set(s, (per.get(s) ?? 0) + 1);
  for (const [s, n] of per) op.sum(keys.checkins(q, s), BigInt(n));
}

/**
 * Places one check-in: the first second with room in the waiter's window (see `checkWindow`),
 * or the second after its predicted admission when that comes first (queue mode). In queue mode
 * the window fills seconds only up to `bulkLimit`, so the front-of-line check-ins, which may use
 * the whole 750/s budget, find room instead of landing on full seconds.
 * Every placement is reserved in the ledger, to be summed into KV.
 */
export function planCheckIn(ledger: CheckinLedger, q: string, input: ScheduleInput): number {
  const front = frontCheckSec(input);
  const [from, until] = checkWindow(input);
  const nowSec = Math.floor(input.nowMs / 1000);
  if (front !== null && front < from) return ledger.reserveBefore(q, nowSec + 1, front);
  if (front === null && !input.frontToCome) return ledger.reserve(q, from, until);
  return ledger.reserve(q, from, Math.min(until, front ?? until), bulkLimit(input.rate));
}
