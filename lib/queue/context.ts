import type { Config } from "../config.ts";
import type { Clock, Random } from "../clock.ts";
import { NotFoundError } from "../errors.ts";
import { type Branding, readBranding } from "../branding.ts";
import { SecondCache } from "../second_cache.ts";
import { keys } from "../store/keys.ts";
import { pendingOf } from "../store/sums.ts";
import { b64url, type Signer } from "../tokens.ts";
import { type Counts, EMPTY_COUNTS, type QueueSettings, withDefaults } from "./types.ts";
import { effectiveRate, periodSeconds } from "./timeslot.ts";
import { CheckinLedger } from "./checkins.ts";
import { drawPending } from "./prequeue_phase.ts";
import { DEFAULT_JOIN_GUARDS, readGuardEntries, resolveJoinGuards } from "../guard/settings.ts";
import { firstSeq, slotOf } from "../priority/line.ts";
import { type LanesRecord, readLanes } from "../priority/store.ts";

type Note = { vs?: string }; // a join in the views (`noteArrival`): its commit's versionstamp

/** What every queue operation needs; built once per app. */
export interface QueueDeps {
  kv: Deno.Kv;
  clock: Clock;
  config: Config;
  random: Random;
  signer: Signer;
}

/** A queue's state as one instance last read it (at most a second old). */
export interface QueueView {
  settings: QueueSettings;
  counts: Counts;
  /** Arrival number of the first waiter of the main line, or null when nobody waits in it. */
  head: number | null;
  /** Each used priority lane's line head, by lane slot (lib/priority/line.ts); absent: none. */
  laneHeads?: Map<number, number | null>;
  /** The queue's priority lanes (absent: none). */
  lanes?: LanesRecord;
  /** Joins not numbered into the line yet (counted in `counts.waiting` of a view). */
  pending: number;
  /** The versionstamp of the pending sum as read, and this instance's joins counted in flight. */
  readVs?: string;
  unsure?: Set<Note>;
  /** Arrival numbers above `head` that left the line other than from its head, sorted. */
  gone: number[];
  goneSet: Set<number>;
  loadedAt: number;
}

/** When a waiter whose liveness deadline is `deadline` is dropped: after the queue's grace. */
export function dropAt(s: QueueSettings, deadline: number): number {
  return deadline + s.returnGraceSeconds * 1000;
}

/** Defaults of a new queue from the configuration. */
export function defaultSettings(name: string, config: Config, now: number): QueueSettings {
  return {
    name,
    mode: config.ADMISSION_MODE,
    admitPerSecond: null,
    capacity: config.CAPACITY,
    maxWaitingVisitors: config.MAX_WAITING_VISITORS,
    paused: false,
    opensAt: null,
    healthPaused: false,
    createdAt: now,
    prequeueMinutes: null,
    drawnFor: null,
    joinsPerClientPerMinute: null,
    joinGuards: { ...DEFAULT_JOIN_GUARDS },
    returnGraceSeconds: 300,
  };
}

/** Shared state and cached reads of the admission engine. */
export class QueueContext {
  readonly kv: Deno.Kv;
  readonly clock: Clock;
  readonly config: Config;
  readonly random: Random;
  readonly signer: Signer;
  /** Check-in occupancy per second (the 750/s budget). */
  readonly checkins: CheckinLedger;
  /** True while `q`'s room holds everyone in line (`queue_all`, lib/room/): none in at once. */
  queueAll?: (q: string) => Promise<boolean>;
  /** This instance's id in arrival keys and tick claims (random, per process). */
  readonly instance: string;
  #arrivals = 0;

  /**
   * Counts a join of this instance into its cached view of `q` (it reads its own writes): its
   * provisional place (sync: two joins never get one), `landed` with its commit's versionstamp,
   * `undo` for a join refused after. Every view loaded counts it until its read holds the commit.
   */
  noteArrival(q: string, read: QueueView) {
    const note: Note = {};
    this.idleUntil.delete(q); // a join: busy now, so the timer ticks the queue each second again
    const noted = this.#noted.set(q, this.#noted.get(q) ?? new Set()).get(q)!.add(note);
    const count = (delta: number) => {
      const v = this.#views.last(q) ?? read;
      const next = { ...v, counts: { ...v.counts, waiting: v.counts.waiting + delta } };
      this.#views.replace(q, v, { ...next, pending: v.pending + delta });
      return next.counts.waiting;
    };
    const undo = () => noted.delete(note) && count(-1);
    return { back: count(1), landed: (vs: string) => void (note.vs = vs), undo };
  }
  /** Joins of this instance counted into its views, until a view's read holds their commits. */
  #noted = new Map<string, Set<Note>>();

  /** The next counter of this instance's arrival keys (see `keys.arrival`). */
  nextArrival(): number {
    return ++this.#arrivals;
  }
  /** Each queue's view and branding, read at most about once a second (see `SecondCache`). */
  #views = new SecondCache<QueueView>(() => this.now(), (q, at) => this.#load(q, at));
  // Queue names come from requests (an unknown queue is refused later): 1024 brandings at most.
  #branding = new SecondCache<Branding>(
    () => this.now(),
    (q) => readBranding(this.kv, q || undefined),
    1024,
  );
  #serial = new Map<string, Promise<void>>();
  /** Each queue's gone log as read so far, and from when the next read starts. */
  #gone = new Map<string, { seqs: Set<number>; fromMs: number }>();
  /** The last minute (unix s / 60) this instance ran upkeep (gone-log compaction, pruning). */
  readonly upkeepMinute = new Map<string, number>();
  /** Queues the last tick found idle: the second until which the timer leaves each be. */
  readonly idleUntil = new Map<string, number>();

  constructor(deps: QueueDeps) {
    this.kv = deps.kv;
    this.clock = deps.clock;
    this.config = deps.config;
    this.random = deps.random;
    this.signer = deps.signer;
    this.checkins = new CheckinLedger(deps.kv);
    this.instance = b64url(deps.random.bytes(6));
  }

  now(): number {
    return this.clock.now();
  }

  /** Reads a queue's settings merged with defaults; null when the queue does not exist. */
  async readSettings(q: string): Promise<QueueSettings | null> {
    return (await this.readSettingsEntry(q)).settings;
  }

  /**
   * Reads the settings with their entry (a commit checks it) and the former join guards record
   * (`guardsEntry`), which a commit writing the settings checks too (see `resolveJoinGuards`).
   */
  async readSettingsEntry(q: string) {
    const both = await readGuardEntries(this.kv, q);
    const entry = both.queue as Deno.KvEntryMaybe<Partial<QueueSettings>>;
    const settings: QueueSettings | null = entry.value
      ? {
        ...withDefaults(defaultSettings(q, this.config, 0), entry.value),
        joinGuards: resolveJoinGuards(both),
      }
      : null;
    return { settings, entry, guardsEntry: both.legacy };
  }

  /**
   * Runs the writers of a queue's counts record one at a time in this instance (joins let in at
   * once, ticks, force-admits), so a stream of them cannot starve the tick's checked write.
   */
  serial<T>(q: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#serial.get(q) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.then(() => {}, () => {});
    this.#serial.set(q, tail);
    tail.then(() => this.#serial.get(q) === tail && this.#serial.delete(q));
    return run;
  }

  /**
   * Reads counts and settings together, with the entries an admitting commit checks: the counts
   * so nothing is counted twice, the settings so a pause or mode switch that lands meanwhile wins.
   */
  async readState(q: string) {
    const [read, { settings, entry: settingsEntry }] = await Promise.all([
      this.readCounts(q),
      this.readSettingsEntry(q),
    ]);
    return { ...read, settings, settingsEntry };
  }

  /**
   * Reads the counts with their versionstamp, for a checked write, and in the same snapshot the
   * enters they have not taken in yet (`pending`, see enters.ts) and the joins not numbered yet
   * (`arrivals`, see sequencer.ts).
   */
  async readCounts(q: string) {
    const [entry, enters, arrivals] = await this.kv.getMany<[Counts, Deno.KvU64, Deno.KvU64]>([
      keys.counts(q),
      keys.entersPending(q),
      keys.arrivalsPending(q),
    ]);
    return {
      counts: withDefaults(EMPTY_COUNTS, entry.value),
      entry,
      pending: pendingOf(enters),
      arrivals: pendingOf(arrivals),
      arrivalsEntry: arrivals,
    };
  }

  /** The cached view of `q` while it is fresh (under a second old), without an await. */
  freshView(q: string): QueueView | undefined {
    const v = this.#views.fresh(q);
    return v && this.#sure(q, v);
  }

  /** The cached view of a queue, refreshed when older than a second; 404 when unknown. */
  async view(q: string): Promise<QueueView> {
    return this.#sure(q, await this.#views.get(q));
  }

  /**
   * View `v` (the cached one, if of the same load) less the joins it counted in flight whose
   * commits its read held: loads do not wait for them (on the ticker, requests waited a commit).
   */
  #sure(q: string, v: QueueView): QueueView {
    const cur = this.#views.fresh(q);
    if (cur?.unsure === v.unsure) v = cur ?? v;
    let held = 0;
    for (const n of v.unsure ?? []) {
      if (n.vs === undefined) continue;
      v.unsure!.delete(n); // counted right, or held by the read (the next load forgets it)
      if (n.vs <= v.readVs!) held++;
    }
    if (held === 0) return v;
    const counts = { ...v.counts, waiting: v.counts.waiting - held };
    const next = { ...v, counts, pending: v.pending - held };
    this.#views.replace(q, v, next);
    return next;
  }

  /**
   * The cached view, read afresh when it predates arrival number `seq` (a visitor that joined
   * through another instance since), so that visitor's position is counted in a view that has it.
   */
  async viewOf(q: string, seq: number): Promise<QueueView> {
    const v = await this.view(q);
    if (seq < lineOf(v, seq).next) return v;
    this.invalidate(q);
    return await this.view(q);
  }

  /**
   * Drops the cached view after a local write (this instance reads its writes), and a load under
   * way (its reads may predate the write): the next `view` reads afresh; the old load's answer is
   * not cached.
   */
  invalidate(q: string): void {
    this.#views.forget(q);
  }

  async #load(q: string, loadedAt: number): Promise<QueueView> {
    const [settings, { counts, arrivals: read, arrivalsEntry }, head, lanes] = await Promise.all([
      this.readSettings(q),
      this.readCounts(q),
      this.#head(q, 0),
      readLanes(this.kv, q),
    ]);
    if (!settings) throw new NotFoundError("unknown_queue", `unknown queue "${q}"`);
    const slots = Object.keys(counts.laneNext).map(Number);
    const laneHeads = new Map(
      await Promise.all(slots.map(async (s) => [s, await this.#head(q, s)] as const)),
    );
    const headOf = (s: number) => s ? laneHeads.get(s) ?? null : head;
    const goneSet = await this.#refreshGone(q, headOf, loadedAt);
    const gone = [...goneSet].sort((a, b) => a - b);
    // This instance's joins the read does not hold (`noteArrival`); those in flight are counted,
    // and taken off once known to be held (`#sure`).
    const mine = this.#noted.get(q) ?? new Set<Note>();
    const readVs = arrivalsEntry.versionstamp ?? "", unsure = new Set<Note>();
    let arrivals = read;
    for (const n of mine) {
      if (n.vs === undefined) unsure.add(n);
      n.vs !== undefined && n.vs <= readVs ? mine.delete(n) : arrivals++;
    }
    // Joins not numbered yet wait as well: counted in the view's line (not in the stored counts).
    const shown = { ...counts, waiting: counts.waiting + arrivals };
    const line = { head, laneHeads, lanes, gone, goneSet: new Set(gone), pending: arrivals };
    return { settings, counts: shown, ...line, loadedAt, readVs, unsure };
  }

  /** The head of line `slot` (0: the main line, else a priority lane's). */
  async #head(q: string, slot: number): Promise<number | null> {
    for await (const e of this.kv.list(keys.fifoLine(q, slot), { limit: 1 })) {
      return e.key[2] as number;
    }
    return null;
  }

  /**
   * Reads new entries of the gone log incrementally (the 10 s overlap covers clock skew) and
   * forgets those at or before their line's head (`headOf` a lane slot, 0 for the main line).
   */
  async #refreshGone(
    q: string,
    headOf: (slot: number) => number | null,
    now: number,
  ): Promise<Set<number>> {
    let cache = this.#gone.get(q);
    if (!cache) {
      cache = { seqs: new Set(), fromMs: 0 };
      this.#gone.set(q, cache);
    }
    const iter = this.kv.list<number>({
      start: keys.gone(q, Math.max(0, cache.fromMs - 10_000), 0),
      end: [...keys.gonePrefix(q), Number.MAX_SAFE_INTEGER],
    });
    for await (const e of iter) cache.seqs.add(e.key[3] as number);
    cache.fromMs = now;
    for (const s of cache.seqs) {
      const head = headOf(slotOf(s));
      if (head === null || s <= head) cache.seqs.delete(s);
    }
    return cache.seqs;
  }

  /** The cached branding of `q` while it is fresh (under a second old), without an await. */
  freshBranding(q: string): Branding | undefined {
    return this.#branding.fresh(q);
  }

  /** The branding of `q` last read, however old (a page that must not wait on the store). */
  lastBranding(q: string): Branding | undefined {
    return this.#branding.last(q);
  }

  /**
   * The branding `q`'s visitors see (service-wide plus the queue's overrides; `""`: only the
   * service-wide record), cached a second.
   */
  branding(q: string): Promise<Branding> {
    return this.#branding.get(q);
  }

  /** Forgets cached branding after a write (and a read under way, which may predate it). */
  invalidateBranding(): void {
    this.#branding.forget();
  }

  /** The effective admission rate setting of a queue. */
  ratePerSecond(s: QueueSettings): number {
    return s.admitPerSecond ?? this.config.ADMIT_PER_SECOND;
  }

  /**
   * True when admissions may happen now (not paused, past opensAt, not health-paused, and the
   * pre-queue's opening draw done).
   */
  isOpen(s: QueueSettings, now: number): boolean {
    return !s.paused && !s.healthPaused && (s.opensAt === null || now >= s.opensAt) &&
      !drawPending(s);
  }

  /** Admissions per second the line really gets (see `effectiveRate`). */
  lineRate(v: { settings: QueueSettings; counts: Counts }): number {
    return effectiveRate(
      this.ratePerSecond(v.settings),
      v.settings.capacity,
      this.config.ACCESS_TOKEN_TTL_SECONDS,
      v.counts.waiting,
      openSlots(v.settings, v.counts),
    );
  }

  /** Check-in period in ms for the current line length (or the fixed override). */
  periodMs(waiting: number): number {
    const fixed = Math.max(
      this.config.WAITING_ROOM_POLL_INTERVAL_MS ?? 0,
      this.config.WAITING_ROOM_HEARTBEAT_INTERVAL_MS ?? 0,
    );
    return fixed || periodSeconds(waiting) * 1000;
  }

  /** Exact 1-based FIFO position of arrival number `seq` in a view. */
  position(v: QueueView, seq: number): number {
    const { head } = lineOf(v, seq);
    if (head === null || seq <= head) return 1;
    // Departed arrival numbers strictly between the line's head and seq (the gone log holds every
    // line's, each in its own range, so those of other lines fall outside).
    const between = countBelow(v.gone, seq) - countBelow(v.gone, head + 1);
    return Math.max(1, seq - head + 1 - between);
  }
}

/** How many of the sorted numbers `xs` are below `x` (binary search). */
function countBelow(xs: number[], x: number): number {
  let lo = 0, hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The line arrival number `seq` is in, as `v` has it: its head (null when empty) and the next
 * number it hands out (the main line's, or a priority lane's, lib/priority/line.ts).
 */
export function lineOf(v: QueueView, seq: number): { head: number | null; next: number } {
  const slot = slotOf(seq);
  if (slot === 0) return { head: v.head, next: v.counts.nextSeq };
  return { head: v.laneHeads?.get(slot) ?? null, next: v.counts.laneNext[slot] ?? firstSeq(slot) };
}

/** Slots free for admission now: capacity less entered and holding (never negative). */
export function openSlots(s: QueueSettings, c: Counts): number {
  return Math.max(0, s.capacity - c.holding - c.entered);
}

/** Refills a token bucket to `now` at `rate` per second while the queue is open. */
export function refill(c: Counts, rate: number, now: number, open: boolean, cap: number): void {
  if (c.tokensAt === 0) c.tokens = open ? Math.min(cap, Math.max(1, rate)) : 0;
  else if (open && now > c.tokensAt) {
    c.tokens = Math.min(cap, c.tokens + (rate * (now - c.tokensAt)) / 1000);
  }
  if (!open) c.tokens = Math.min(c.tokens, cap);
  // Never back in time: a join that took its clock before reading counts a tick wrote since
  // would otherwise set the bucket's time back, and the next refill count that span again (the
  // scale simulation measured 1.8% over the rate at 100 ms a commit).
  c.tokensAt = Math.max(c.tokensAt, now);
}

/** Whole admissions the bucket allows (tolerates float error: 10 x 0.1 is 0.999...). */
export function wholeTokens(c: Counts): number {
  return Math.floor(c.tokens + 1e-9);
}

/**
 * Bucket size: two seconds of budget (at least one admission), so a tick that runs late in its
 * second loses nothing while bursts after a quiet spell stay short.
 */
export function bucketCap(rate: number): number {
  return Math.max(1, 2 * rate);
}
