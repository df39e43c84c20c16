/**
 * Turns at the join commit across instances. Every join commit checks and rewrites the queue's
 * counts record (arrival numbers and positions are exact only that way), so instances over one
 * store commit joins one at a time whatever they do. Racing for the record made most commits
 * lose: at 100 ms a commit, seven in eight with 10 instances, seventeen lost per commit with 50
 * (bench/scale_sim.ts). So the counts record also says whose turn it is: the instance that
 * committed last keeps the turn while it has more joins (about three commits), then hands it to the
 * next instance that registered as waiting (its own `joinWant` record, which no other instance
 * writes). The others read the counts again when the turn ends instead of committing. A turn not
 * taken in time lapses: the next registered instance after its holder goes first, anyone after a
 * second grace. The turn is advisory only: every commit still checks the counts, so a holder that
 * died, a clock that is off or a previous release that knows no turns costs time, never a count.
 */
import { keys } from "../store/keys.ts";
import type { Counts } from "./types.ts";

/** Registrations older than this are of instances that stopped waiting (or died). */
const WANT_FRESH_MS = 3000;
/** A turn's end further ahead than this comes from a clock that is off: not waited for. */
const MAX_WAIT_MS = 2000;

/** What one attempt does about the turn: go, or read again after `ms`. */
export type TurnDecision = { go: true } | { go: false; ms: number };

const GO: TurnDecision = { go: true };
const jitter = () => Math.random() * 10;

/**
 * This instance's side of the join turns of every queue. Times are real time (`Date.now()`) and
 * scale with `commitMs`, how long this instance's join commits take to come back.
 */
export class JoinTurns {
  /**
   * This instance's name in the counts record (random, short). It starts with "r" (never a hex
   * digit, as a previous release's names are): holders named so take joins handed over.
   */
  readonly me = "r" + crypto.randomUUID().slice(0, 7);
  /** When this instance last registered as waiting, by queue. */
  #wanting = new Map<string, number>();
  #wanters = new Map<string, { ids: string[]; at: number }>();
  /** When this instance's current turn at a queue began (its first commit in it). */
  #holding = new Map<string, number>();
  /** How long this instance's counts commits take to come back (real time): the turns' pace. */
  commitMs = 10;
  /** When this instance last saw other instances at a queue's join commit (see `others`). */
  readonly othersAt = new Map<string, number>();
  /** How long this instance's join commits lately took from one to the next in a turn, by queue. */
  #cycleMs = new Map<string, number>();
  #lastSettle = new Map<string, number>();

  constructor(private kv: Deno.Kv) {}

  /**
   * True when other instances commit joins to `q` or hand them over (seen in the last 5 s): only
   * then does an instance keep an idle turn and look at the inbox between its own joins (alone,
   * that was a read every few milliseconds in front of its ticks), or carry the queue's ticks.
   */
  others(q: string): boolean {
    return Date.now() - (this.othersAt.get(q) ?? 0) < 5000;
  }

  /**
   * True when this instance holds `q`'s turn by counts `c` with other instances about: its join
   * commits then carry the queue's tick of each second (see join_batch.ts), and its own tick waits.
   */
  carriesTicks(q: string, c: Counts): boolean {
    return c.turnBy === this.me && this.others(q);
  }

  /** Notes how long a counts commit took (a running average, and the slowest lately). */
  noteCommit(ms: number): void {
    this.commitMs = (this.commitMs + ms) / 2;
    this.#slowMs = Math.max(ms, this.#slowMs * 0.8);
    this.#measured = true;
  }
  /**
   * The slowest of this instance's recent counts commits, fading by a fifth a commit: a turn lasts
   * at least two of them (up to `turnMs`'s bound). On a saturated store a commit took up to ten
   * times the average, the holder's turn ran out while its own commit was in flight, and the
   * instances that then committed took its handed-over records from under it, again and again
   * (bench/scale_sim.ts, 50 instances).
   */
  #slowMs = 0;
  /** Whether `commitMs` is measured yet (not the first guess). */
  #measured = false;

  /**
   * Whether this instance may commit joins now, by the counts it read: its turn, nobody's, or a
   * lapsed one that falls to it (the next registered after the holder; anyone after a grace).
   * Waiters read again within half a commit, so a turn handed to them is taken soon.
   */
  async decide(q: string, c: Counts, now: number, commitMs: number): Promise<TurnDecision> {
    if (!c.turnBy) return GO;
    const left = c.turnUntil - now;
    if (left > MAX_WAIT_MS) return GO;
    const wait = (ms: number): TurnDecision => ({
      go: false,
      ms: Math.max(1, Math.min(ms, poll(commitMs))) + jitter(),
    });
    if (c.turnBy === this.me) return GO;
    this.#holding.delete(q);
    if (left > 0) return wait(left);
    // A lapsed turn (its holder late, gone, or out of joins): after a grace the next registered
    // instance after the holder goes, and only after a second grace anyone (a holder that comes
    // back late meanwhile just loses its commit).
    const grace = 2 * commitMs + 50;
    if (-left < grace) return wait(grace + left);
    if (-left >= 2 * grace) return GO;
    const next = successor(c.turnBy, await this.wanters(q, now));
    return next === this.me || next === null ? GO : wait(2 * grace + left);
  }

  /** True while another instance's turn at `c` is live (its holder runs the queue's tick then). */
  heldByOther(c: Counts, now: number): boolean {
    return (this.otherTurnLeft(c, now) ?? 0) > 0;
  }

  /**
   * How long another instance's turn at `c` has left (ms, negative once it ended); null when the
   * turn is nobody's or this instance's, or lies further ahead than anyone waits for (a clock that
   * is off, see `decide`).
   */
  otherTurnLeft(c: Pick<Counts, "turnBy" | "turnUntil">, now: number): number | null {
    if (c.turnBy === "" || c.turnBy === this.me) return null;
    const left = c.turnUntil - now;
    return left > MAX_WAIT_MS ? null : left;
  }

  /** Registers this instance as waiting for `q`'s turn (again every second while it waits). */
  async want(q: string): Promise<void> {
    const now = Date.now();
    if (now - (this.#wanting.get(q) ?? 0) < 1000) return;
    this.#wanting.set(q, now);
    await this.kv.set(keys.joinWant(q, this.me), now, { expireIn: 2 * WANT_FRESH_MS });
  }

  /** Withdraws this instance's registration (it gave up waiting and has no joins left). */
  async unwant(q: string): Promise<void> {
    if (this.#wanting.delete(q)) await this.kv.delete(keys.joinWant(q, this.me));
  }

  /**
   * Sets the turn in the counts a join commit writes: kept while this instance has `more` joins
   * and its turn is young (about three commits), else handed to the next registered instance,
   * else nobody's. A registration of this instance is deleted in the same op (its wait is over).
   */
  async settle(
    q: string,
    op: Deno.AtomicOperation,
    c: Counts,
    now: number,
    more: boolean,
    commitMs: number,
  ): Promise<void> {
    if (this.#wanting.delete(q)) op.delete(keys.joinWant(q, this.me));
    // Before any commit of this instance came back (a crowd's first commit), its turn is set as
    // for a far store: by the first guess (10 ms) it lapsed before the commit was back over one,
    // and every instance that lost to it committed again at once (bench/scale_sim.ts).
    if (!this.#measured) commitMs = Math.max(commitMs, UNMEASURED_MS);
    // The turn counts from this instance's first commit in it (not from when it was handed on).
    const since = c.turnBy === this.me && this.#holding.has(q) ? this.#holding.get(q)! : now;
    this.#holding.set(q, since);
    // Until this instance's next commit lands: it goes out as soon as this one is back, after
    // its reads and building (a commit of 3,200 joins takes CPU time as well as a round trip), so
    // as long as two of its last commits took from one to the next, where that is longer. (A turn
    // that lapsed between two commits of its holder had every other instance commit at once.)
    const last = this.#lastSettle.get(q);
    this.#lastSettle.set(q, now);
    if (last !== undefined && c.turnBy === this.me && now - last < 5000) {
      this.#cycleMs.set(q, ((this.#cycleMs.get(q) ?? 0) + now - last) / 2);
    }
    const cycle = this.#cycleMs.get(q) ?? 0;
    const next = now + turnMs(Math.max(3 * commitMs, commitMs + 2 * cycle, 2 * this.#slowMs));
    if (more && now - since < Math.max(50, 2.5 * commitMs)) return hold(c, this.me, since, next);
    this.#holding.delete(q);
    const other = successor(this.me, await this.wanters(q, now));
    // Until the next holder's first commit lands: this one, its read, its commit.
    if (other !== null) {
      return hold(c, other, now, now + turnMs(Math.max(3 * commitMs, 2 * this.#slowMs)));
    }
    if (more) {
      this.#holding.set(q, now);
      return hold(c, this.me, now, next);
    }
    hold(c, "", 0, 0);
  }

  /** The instances registered as waiting for `q`'s turn (read at most every 300 ms). */
  async wanters(q: string, now: number): Promise<string[]> {
    const cached = this.#wanters.get(q);
    if (cached && now - cached.at < 300 && now >= cached.at) return cached.ids;
    const ids: string[] = [];
    for await (const e of this.kv.list<number>({ prefix: keys.joinWantPrefix(q) })) {
      if (now - e.value < WANT_FRESH_MS) ids.push(e.key[2] as string);
    }
    this.#wanters.set(q, { ids, at: now });
    return ids;
  }
}

/** True when the turn holder `by` takes joins handed over (see join_relay.ts). */
export const takesRelays = (by: string) => by.startsWith("r");

/** A commit's time assumed for a turn before one was measured (a far store's round trip). */
const UNMEASURED_MS = 200;

/**
 * A turn's length for `ms` of commits, bounded well inside `MAX_WAIT_MS` (with room for clocks a
 * little apart): the others take a turn further ahead than that for a clock that is off and do
 * not wait for it at all, so one commit of a second or more (a loaded store, a SQLite file another
 * process held locked) made the holder's next turns, two of its slowest commits long, no turns.
 */
const turnMs = (ms: number) => Math.min(ms, 0.75 * MAX_WAIT_MS) + 50;

/** How long a waiter sleeps before reading the turn again. */
const poll = (commitMs: number) => Math.max(20, commitMs / 2);

function hold(c: Counts, by: string, since: number, until: number): void {
  c.turnBy = by;
  c.turnSince = since;
  c.turnUntil = Math.round(until);
}

/** The registered instance after `after` in name order (round robin); null when none. */
function successor(after: string, ids: string[]): string | null {
  const others = ids.filter((id) => id !== after).sort();
  return others.find((id) => id > after) ?? others[0] ?? null;
}
