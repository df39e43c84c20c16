import { AppError, StoreBusyError } from "../errors.ts";
import { sleep } from "../clock.ts";
import { instanceMetrics } from "../metrics/instance.ts";
import { annotateSpan } from "../metrics/tracing.ts";
import { retryCommit, STORE_DEADLINE_MS } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { pendingOf, takeInEnters } from "./enters.ts";
import { bucketCap, type QueueContext, refill } from "./context.ts";
import { QueueBatches } from "./batches.ts";
import { settleRound } from "./prequeue.ts";
import { prequeuePhase } from "./prequeue_phase.ts";
import { countTraffic } from "./records.ts";
import { sumCheckins } from "./checkins.ts";
import type { Counts } from "./types.ts";
import { chunkOf, expandWritten, OP_KEY_BYTES, writeChunks, type Written } from "./join_log.ts";
import { takesRelays } from "./join_turn.ts";
import { type TickResult, tickRound } from "./admit.ts";
import {
  placeRelayed,
  readInbox,
  RELAY_JOINS,
  relayable,
  type Relayed,
  relayOrGo,
  sendRelayed,
  type Taken,
  writeResults,
} from "./join_relay.ts";
import type { QueueSettings } from "./types.ts";
import {
  dropConflicts,
  dropTaken,
  fits,
  idOf,
  type Joined,
  type JoinRecord,
  MOST_JOINS,
  newRound,
  type Pending,
  placeJoin,
} from "./join_round.ts";

export type { Joined, JoinRecord } from "./join_round.ts";

/** Another join took the enqueue key first: the join resumes that place instead. */
export class KeyTakenError extends Error {}

/**
 * Largest group commit. Three mutations a join, and an op allows 1000: past about 325 joins the
 * newcomers go into chunks (join_log.ts), so at 100 ms a commit one queue is not bound to about
 * 3,300 joins a second (bench/scale_sim.ts).
 */
const MAX_BATCH = MOST_JOINS;
/** Mutations the joins of one commit may add: KV's 1000 less the batch's own (counts, traffic, pre-queue). */
const MUTATION_BUDGET = 980;
/**
 * Mutations the joins of a commit to queue `q` may add: `MUTATION_BUDGET`, fewer for a long name.
 * The name is in every key, and KV bounds an op's keys to 80 KiB in all: a crowd joining a queue
 * of a 64-character name failed every commit. A join's mutations take the name and at most 55
 * bytes each on average (its record, line and deadline entries, a 64-character id; a carried
 * tick's fewer), a check the name and at most 71, and the op's 100 checks and 20 writes outside
 * the budget fit in 110 of the name and 80.
 */
function mutationBudget(q: string): number {
  const keyed = OP_KEY_BYTES - 110 * (q.length + 80);
  return Math.min(MUTATION_BUDGET, Math.floor(keyed / (q.length + 60)));
}
/** Joins with a client-supplied id per commit: each costs one check (an op allows 100). */
const MAX_SUPPLIED = 90;
/** Checks the joins of one commit and the records handed over may add (the counts and settings, and a pre-queue's, come first). */
const MAX_CHECKS = 95;
/** Joins in one commit that make a crowd (see the turn kept after a commit). */
const CROWD = 8;
/** Mutations of one visitor a tick changes (record, line and deadline entries, expiry, log). */
const TICK_MUTATIONS = 6;

/** How often an instance that has seen no other at a queue reads its inbox (ms). */
const LONE_INBOX_MS = 250;

/** Times one batch steps aside for a starved tick (bounded: joins must answer in time). */
const MAX_TICK_YIELDS = 3;

/** True when a line is waiting but the tick of the last whole second has not run. */
function tickStarved(c: Counts, now: number): boolean {
  return c.waiting > 0 && c.tickAt > 0 && c.tickAt < Math.floor(now / 1000) - 1;
}

/** Checks a join adds to its commit: its supplied id and its records. */
const checksOf = (p: Pending) => (p.supplied ? 1 : 0) + p.records.length;

/**
 * Refuses the joins with less time left than about two commit attempts: under a backlog they
 * would go into a commit that the oldest of its joins cuts short (a batch's bound is its oldest
 * join's), so the batch's younger joins failed with it.
 */
function dropLate(list: Pending[], now: number, minLeftMs: number): void {
  let k = 0;
  for (const p of list) {
    if (p.at + STORE_DEADLINE_MS - now >= minLeftMs) list[k++] = p;
    else p.reject(new StoreBusyError("join", "no commit took it in time"));
  }
  list.length = k;
}

/**
 * Takes the next batch: up to MAX_BATCH joins, with up to MAX_SUPPLIED checks between them; to
 * add to a batch of `size` joins with `used` checks, `min` 0.
 */
function takeBatch(list: Pending[], size = 0, used = 0, min = 1): Pending[] {
  let checks = used, i = 0;
  while (
    i < list.length && size + i < MAX_BATCH && checks + checksOf(list[i]) <= MAX_SUPPLIED
  ) {
    checks += checksOf(list[i]);
    i++;
  }
  // A single join always goes, whatever it carries (at most a handful of records).
  return list.splice(0, Math.max(min, i));
}

/**
 * Group commit of joins: joins that arrive while a commit is in flight are written together in
 * the next one, so the hot counter is checked once per batch instead of once per visitor.
 */
export class JoinBatcher {
  #batches = new QueueBatches<Pending>(
    (list) => {
      dropLate(list, Date.now(), Math.min(STORE_DEADLINE_MS / 2, 2 * this.#stepMs));
      return list.length ? takeBatch(list) : [];
    },
    (q, batch, kicked) => this.#commit(q, batch, kicked),
  );
  #stepMs = 10;
  /** When this instance last read a queue's inbox itself (see `#inbox`). */
  #inboxAt = new Map<string, number>();
  /** The second whose tick a lost commit of this instance carried, by queue. */
  #carryLost = new Map<string, number>();
  /** The turn and settings as this instance's last join attempt read them, by queue. */
  #lastRead = new Map<
    string,
    { turnBy: string; turnUntil: number; settings: QueueSettings }
  >();
  /** Inbox records this instance wrote (their numbers). */
  #relayed = 0;
  /** Joins to hand over that wait for a record of their own (see `#sendRelays`), by queue. */
  #toRelay = new Map<string, { items: Pending[]; settings: QueueSettings }>();
  /** This instance's inbox records not answered yet, by queue. */
  #relaysOut = new Map<string, number>();
  /** Inbox reads started during a commit, for the next attempt (less what that commit took). */
  #ahead = new Map<string, { read: Promise<Deno.KvEntry<Relayed>[]>; taken: Set<string> }>();

  constructor(private ctx: QueueContext) {}

  /** Queues a new visitor (and its guard records) for the next group commit of queue `q`. */
  add(q: string, id: string, supplied: boolean, records: JoinRecord[] = []): Promise<Joined> {
    return new Promise((resolve, reject) => {
      this.#batches.add(q, { id, supplied, records, at: Date.now(), resolve, reject });
    });
  }

  /** Commits one batch: the joins still in time, retried until they commit or run out of time. */
  async #commit(q: string, batch: Pending[], kicked = false): Promise<void> {
    // A join's bound counts from when it was added: waiting for the batch ahead (stuck on a
    // locked store, or a backlog) and behind this instance's other counts writers uses it up
    // too, so every visitor hears within it. Joins already out of time are never written.
    const run: Run = {
      kicked,
      items: inTime(batch, Date.now()),
      later: [],
      yields: 0,
      committed: null,
      closed: false,
      chunks: [],
    };
    // An empty batch is a kick: an attempt that takes other instances' handed-over joins.
    if (run.items.length === 0 && batch.length > 0) return;
    const end = Math.min(Date.now(), ...run.items.map((p) => p.at)) + STORE_DEADLINE_MS;
    // Each attempt (not the whole retried commit) waits its turn among this instance's counts
    // writers, so a tick waiting for its commit goes between two attempts instead of behind a
    // batch that keeps losing to other instances (bench/scale_sim.ts).
    const results = await this.#retried(q, run, end).catch((e) => {
      // Joins added while the batch waited are in `run.items`, not in the batch its caller holds.
      // An attempt cut off by the deadline runs on: it must not take in more joins after this.
      run.closed = true;
      for (const p of run.items) p.reject(e);
      throw e;
    });
    run.closed = true;
    if (batch.length > 0) instanceMetrics.batchSize.observe([], batch.length);
    const waiters = results.filter((r): r is Joined => !(r instanceof Error) && r.line !== null);
    if (run.committed) {
      this.ctx.noteJoined(q, run.committed, waiters[0]?.visitor.seq ?? null, waiters.length);
    }
    this.#batches.putBack(q, run.later);
    const settle = (i: number) => {
      const r = results[i];
      r instanceof Error ? run.items[i].reject(r) : run.items[i].resolve(r);
    };
    // Joins written as themselves are answered now; those in chunks once their chunk is expanded,
    // which goes on beside this queue's next join commit.
    const inChunk = (i: number) => chunkOf(run.chunks, results[i]) !== undefined;
    results.forEach((_, i) => inChunk(i) || settle(i));
    if (run.chunks.length === 0) return;
    const logged = results.map((_, i) => i).filter(inChunk);
    expandWritten(this.ctx.kv, q, run.chunks, results, end).then(() => logged.forEach(settle));
  }

  /**
   * One commit attempt over the batch's remaining joins: their answers once committed, null to
   * read afresh and try again (a conflict, or stepping aside for a starved tick).
   */
  async #attempt(q: string, run: Run): Promise<(Joined | Error)[] | TurnWait | null> {
    const ctx = this.ctx;
    annotateSpan({ "tollgate.queue": q, "tollgate.batch.size": run.items.length });
    const now = ctx.now();
    // The inbox is read beside the state unless the last counts read say another instance holds
    // the turn (its joins go there, not into a commit here): 50 instances each listing every
    // record handed over, on every batch, made most of the store's reads (bench/scale_sim.ts).
    const left = run.kicked ? null : this.#otherTurnLeft(q);
    // Its turn read lately (live, or ended less than a second before): joins go there, so the
    // inbox is read only if this attempt may commit after all (below).
    const handing = left !== null && left > -RECENT_TURN_MS;
    const known = this.#lastRead.get(q)?.settings;
    const held = left !== null && left > ctx.turns.commitMs;
    if (held && known && run.items.length > 0 && run.items.every(relayable)) {
      // Another instance's turn is live as this one last read it: the joins go to it without
      // reading the counts again (50 instances each reading them for every batch, only to hand
      // it over, saturated the store until the holder's commits took ten times their round trip,
      // bench/scale_sim.ts). The turn's end, read then, bounds how long this goes on unread.
      this.#relayOut(q, run, known);
      return [];
    }
    let [{ counts, entry, settings, settingsEntry }, branding, inbox] = await Promise.all([
      this.#readState(q),
      ctx.branding(q),
      handing ? [] : this.#inbox(q, run.kicked),
    ]);
    if (!settings) throw new AppError(404, "unknown_queue", `unknown queue "${q}"`);
    this.#lastRead.set(q, { turnBy: counts.turnBy, turnUntil: counts.turnUntil, settings });
    const holding = ctx.turns.carriesTicks(q, counts);
    if (run.yields < MAX_TICK_YIELDS && tickStarved(counts, now) && !holding) {
      // Other instances' join batches keep winning the counts record, so no tick has landed
      // for over a second: step aside for about a commit's time, then read afresh (the turn's
      // holder carries the tick in its commit instead).
      run.yields++;
      await sleep(Math.random() * 2 * this.#stepMs);
      return null;
    }
    const turn = await ctx.turns.decide(q, counts, Date.now(), ctx.turns.commitMs);
    // The turn ended since: this attempt may commit, and takes what was handed over first.
    if (handing && turn.go) inbox = await this.#inbox(q, false);
    // Records whose senders take them back before a commit could land count for nothing (one left
    // by an instance that stopped would otherwise have every instance hand joins to nobody).
    const live = inbox.filter((e) => e.value.until > Date.now() + ctx.turns.commitMs);
    if (live.length > 0 || (counts.turnBy !== "" && counts.turnBy !== ctx.turns.me)) {
      this.ctx.turns.othersAt.set(q, Date.now());
    }
    const { go, relay } = relayOrGo(ctx, counts, turn, run.kicked, live.length > 0);
    if (relay) this.#relayOut(q, run, settings);
    if (run.items.length === 0 && !run.kicked) return [];
    if (!go) return run.items.length === 0 ? [] : new TurnWait(turn.go ? 0 : turn.ms);
    this.#topUp(q, run);
    await ctx.checkins.refresh(q, Math.floor(now / 1000), ctx.periodMs(counts.waiting) / 1000);
    const open = ctx.isOpen(settings, now);
    const rate = ctx.ratePerSecond(settings);
    refill(counts, rate, now, open, bucketCap(rate));
    // Counts this release writes first: no previous release wrote them (see join_log.ts). No
    // chunks while a previous release holds the turn or waits for one (it would pass a marker).
    if (entry.versionstamp === null) counts.logSince ||= 1;
    const olderAround = !takesRelays(counts.turnBy) && counts.turnBy !== "" ||
      (await ctx.turns.wanters(q, Date.now())).some((id) => !takesRelays(id));
    const op = ctx.kv.atomic().check(entry, settingsEntry);
    // The turn holder, with other instances about, carries the second's tick in its join commit:
    // its ticks in commits of their own queued behind its join commits, and every other
    // instance's lost to them, so with 25 or 50 instances seconds went by without one
    // (bench/scale_sim.ts). The tick goes first: its admissions are from the line ahead of these
    // joins. Not with joins of their own id or records (one could be a waiter it drops). The
    // second is the one the commit is built in, not the one its reads began in: an attempt that
    // began late in a second carries the next one's tick, one commit sooner.
    const tickNow = Math.max(now, ctx.now());
    const sec = Math.floor(tickNow / 1000);
    const handled = new Set<string>();
    const carrying = holding && counts.tickAt < sec && !olderAround &&
      run.items.every(relayable) && this.#carryLost.get(q) !== sec;
    // Enters are taken in with it, read after the counts this commit checks (so none read was
    // taken in since, see enters.ts).
    const [carried, enters] = carrying
      ? await Promise.all([
        tickRound(ctx, q, op, counts, settings, tickNow, handled),
        ctx.kv.get<Deno.KvU64>(keys.entersPending(q)),
      ])
      : [null, null];
    if (carried) {
      counts.tickAt = sec;
      takeInEnters(op, q, counts, pendingOf(enters!));
    }
    // A pre-queue refuses joins before its window and publishes its commitment with the first.
    const accepting = settleRound(ctx, q, op, settings, counts, now) !== "refused";
    const windowJoin = prequeuePhase(settings, now) === "window";
    const round = newRound({
      ctx,
      q,
      op,
      settings,
      counts,
      branding,
      now,
      open,
      accepting,
      windowJoin,
    });
    if (olderAround) round.mayLog = false;
    // Joins other instances handed over came first: they go first.
    // When this commit lands, with room for a slow one (real time, as the senders' bounds): a
    // record its sender takes back meanwhile would fail the commit.
    const landsBy = Date.now() + 3 * ctx.turns.commitMs + 100;
    // What the tick took of KV's limits: a check and a few mutations for each visitor it changed.
    const tickOps = carried ? carried.expired + carried.n + 1 : 0;
    const budget = mutationBudget(q) - TICK_MUTATIONS * tickOps;
    const checks = MAX_CHECKS - tickOps - run.items.reduce((n, p) => n + checksOf(p), 0);
    const taken = placeRelayed(round, inbox, budget, landsBy, checks);
    if (run.items.length === 0 && taken.length === 0 && !carried) {
      // Nothing handed over yet: while the turn is this instance's, look again soon.
      if (counts.turnBy === ctx.turns.me && counts.turnUntil > Date.now() && ctx.turns.others(q)) {
        this.#lookAgain(q);
      }
      return [];
    }
    const out: (Joined | Error)[] = [];
    for (const p of run.items) {
      // A batch that would pass KV's mutation limit (its waiters' check-in seconds vary) stops
      // here; the rest go first into the next commit.
      // A single join always goes, whatever it carries (at most a handful of records).
      const how = fits(round, p, budget) ?? (round.joined === 0 ? "direct" : null);
      if (!how) break;
      out.push(placeJoin(round, p, how === "log"));
    }
    writeChunks(op, q, round.chunks);
    sumCheckins(op, q, round.checkins);
    countTraffic(op, q, now, "in", round.joined);
    countTraffic(op, q, now, "out", round.admitted);
    // More to come: this instance's own; or, with other instances about, theirs handed over (a
    // turn given up with nothing left had every instance commit at once, since nobody hands joins
    // to a turn that nobody holds).
    const relaying = ctx.turns.others(q);
    // A crowd's first commit (more than a few joins) keeps the turn as well: its winner has seen
    // no other instance yet, and a turn given up then had the others, which lost to it, all
    // commit again at once (bench/scale_sim.ts, 50 instances).
    const more = this.#batches.waiting(q) > 0 || out.length < run.items.length ||
      live.length > 0 || relaying || out.length + taken.length > CROWD;
    const sent = Date.now();
    await ctx.turns.settle(q, op, counts, sent, more, ctx.turns.commitMs);
    writeResults(round, taken);
    op.set(keys.counts(q), counts);
    // Cut off by the deadline meanwhile (its visitors heard 503): not written after all.
    if (run.closed) throw new StoreBusyError("join", "no commit took it in time");
    // Keeping the turn with handed-over joins coming: the next commit's inbox is read while this
    // one is in flight (a round trip less between two commits; what this one takes is left out).
    const ahead = counts.turnBy === ctx.turns.me && live.length > 0
      ? this.#readAhead(q, taken)
      : null;
    const res = await op.commit();
    if (ahead && !res.ok) ahead.taken.clear();
    ctx.turns.noteCommit(Date.now() - sent);
    // How long a step takes here (reads and commit): the time to step aside for a tick.
    this.#stepMs = (this.#stepMs + ctx.now() - now) / 2;
    if (res.ok) {
      // Each answer's line shares `counts`, so it shows the waiting count this commit left.
      run.committed = counts;
      run.chunks = round.chunks.map((chunk) => ({ chunk, versionstamp: res.versionstamp }));
      // Other instances hand joins over while this one holds the turn: take them soon.
      if (taken.length > 0) this.#batches.kick(q);
      else if (relaying && counts.turnBy === ctx.turns.me) this.#lookAgain(q);
      if (carried) {
        const result: TickResult = {
          sec,
          ran: true,
          admitted: carried.n,
          expired: carried.expired,
          waiting: counts.waiting,
          bucketAt: counts.tokensAt,
          bucketLeft: counts.tokens,
        };
        ctx.onTickCarried?.(q, result, carried.more);
      }
      // This instance holds the turn, so other instances skip their ticks: it runs the second's.
      if (counts.turnBy === ctx.turns.me && counts.tickAt < Math.floor(now / 1000)) {
        ctx.onTickDue?.(q);
      }
      run.later = run.items.slice(out.length);
      run.items = run.items.slice(0, out.length);
      ctx.joinState.set(q, {
        counts: { ...counts },
        entry: { key: entry.key, versionstamp: res.versionstamp },
        settings,
        settingsEntry,
      });
      return out;
    }
    this.ctx.turns.othersAt.set(q, Date.now());
    // Joins handed over, or the second's tick, went with it: an attempt for them again at once
    // (with none of this instance's own left, nothing else would make one before their senders
    // kicked, and the turn lapsed meanwhile with every other instance handing joins over to it).
    if (taken.length > 0 || carried) this.#batches.kick(q);
    // A commit that carried the tick and lost (often to a visitor's check-in at the head of the
    // line, which the tick checks) goes again without it: the separate tick does the second's.
    if (carried) this.#carryLost.set(q, sec);
    // Lost to another writer (most often another instance's join batch): this one waits too,
    // for a turn of its own only with joins it cannot hand over (its next attempt hands the rest).
    if (run.items.some((p) => !relayable(p))) ctx.turns.want(q).catch(() => {});
    run.items = await dropConflicts(ctx.kv, run.items);
    if (run.items.length === 0) return [];
    run.items = await dropTaken(ctx.kv, q, run.items);
    if (run.items.length === 0) return [];
    return null;
  }

  /** The batch's attempts until one commits, waiting out other instances' turns, by `end`. */
  #retried(q: string, run: Run, end: number): Promise<(Joined | Error)[]> {
    const turns = this.ctx.turns;
    return retryCommit(
      async () => {
        while (!run.closed) {
          const r = await this.ctx.serial(q, () => this.#attempt(q, run));
          if (!(r instanceof TurnWait)) return r;
          // Another instance's turn at the counts: read them again when it ends (not a conflict).
          if (Date.now() + r.ms >= end) {
            // Nothing left to wait for: the registration goes, so no turn is handed to this one.
            if (this.#batches.waiting(q) === 0) turns.unwant(q).catch(() => {});
            throw new StoreBusyError("join", "no turn at the store came in time");
          }
          await Promise.all([turns.want(q).catch(() => {}), sleep(r.ms)]);
        }
        throw new StoreBusyError("join", "no commit took it in time");
      },
      "join",
      // A lost commit reads again at once: the winner's turn then says how long to wait.
      { deadlineMs: end - Date.now(), pause: (i) => i > 2 ? 20 : 5 },
    );
  }

  /**
   * How long the turn of another instance (of this release, so it takes joins handed over) has
   * left by this instance's last read of `q`'s counts (ms, negative once it ended); null when
   * that read showed no such turn, or one that is not waited for.
   */
  #otherTurnLeft(q: string): number | null {
    const seen = this.#lastRead.get(q);
    if (!seen || !takesRelays(seen.turnBy)) return null;
    return this.ctx.turns.otherTurnLeft(seen, Date.now());
  }

  /**
   * The inbox for an attempt: read ahead during this instance's last commit, else now. An instance
   * that has seen no other at the queue reads it at most every `LONE_INBOX_MS` (a join commit's
   * read would otherwise add a round trip to every batch of a lone instance, where nobody hands
   * joins over); a kick, which is for the inbox, always reads it.
   */
  #inbox(q: string, kicked: boolean): Promise<Deno.KvEntry<Relayed>[]> {
    const ahead = this.#ahead.get(q);
    this.#ahead.delete(q);
    if (ahead) return ahead.read.then((list) => list.filter((e) => !ahead.taken.has(idOf(e.key))));
    const now = Date.now();
    if (!kicked && !this.ctx.turns.others(q) && now - (this.#inboxAt.get(q) ?? 0) < LONE_INBOX_MS) {
      return Promise.resolve([]);
    }
    this.#inboxAt.set(q, now);
    return readInbox(this.ctx.kv, q);
  }

  /** While the turn is this instance's and others hand joins over: an attempt for them soon. */
  #lookAgain(q: string): void {
    setTimeout(() => this.#batches.kick(q), Math.max(5, this.ctx.turns.commitMs / 4));
  }

  /** Starts reading the inbox for this instance's next attempt (its current commit in flight). */
  #readAhead(q: string, taken: Taken[]) {
    const ahead = {
      read: readInbox(this.ctx.kv, q).catch(() => []),
      taken: new Set(taken.map((t) => idOf(t.entry.key))),
    };
    this.#ahead.set(q, ahead);
    return ahead;
  }

  /** Hands the batch's plain joins to the turn holder's next commit (answered as they come). */
  #relayOut(q: string, run: Run, settings: QueueSettings): void {
    // Cut off by the deadline meanwhile: its visitors heard 503 (a part of joins topped up later
    // would carry a bound of its own still open, and a holder could place them).
    if (run.closed) return;
    const plain = run.items.filter(relayable);
    if (plain.length === 0) return;
    run.items = run.items.filter((p) => !relayable(p));
    // Nothing left that needs a turn of its own: a registration would be handed a turn unused.
    if (run.items.length === 0) this.ctx.turns.unwant(q).catch(() => {});
    const waiting = this.#toRelay.get(q);
    if (waiting) waiting.items.push(...plain), waiting.settings = settings;
    else this.#toRelay.set(q, { items: plain, settings });
    this.#sendRelays(q);
  }

  /**
   * Writes the joins waiting to be handed over as inbox records: full ones at once, the rest while
   * fewer than `RELAYS_OUT` of this instance's records wait for an answer (the others gather in
   * the next). A record per attempt made 25 instances write four small records each per commit of
   * the holder, which takes at most 95 records (one check each): the rest aged past their senders'
   * bounds in the inbox and the holder took none of them (bench/scale_sim.ts).
   */
  #sendRelays(q: string): void {
    const w = this.#toRelay.get(q);
    if (!w) return;
    const sender = { ctx: this.ctx, kick: (k: string) => this.#batches.kick(k) };
    const out = () => this.#relaysOut.get(q) ?? 0;
    while (w.items.length >= RELAY_JOINS || (w.items.length > 0 && out() < RELAYS_OUT)) {
      const part = w.items.splice(0, RELAY_JOINS);
      const end = Math.min(...part.map((p) => p.at)) + STORE_DEADLINE_MS;
      this.#relaysOut.set(q, out() + 1);
      sendRelayed(sender, q, part, w.settings, this.#relayed++, end).finally(() => {
        this.#relaysOut.set(q, out() - 1);
        this.#sendRelays(q);
      });
    }
    if (w.items.length === 0) this.#toRelay.delete(q);
  }

  /** Adds joins that arrived while the batch waited for its turn, up to a full batch. */
  #topUp(q: string, run: Run): void {
    if (run.closed || run.items.length >= MAX_BATCH) return;
    const used = run.items.reduce((n, p) => n + checksOf(p), 0);
    const more = this.#batches.pull(q, (list) => {
      dropLate(list, Date.now(), Math.min(STORE_DEADLINE_MS / 2, 2 * this.#stepMs));
      return takeBatch(list, run.items.length, used, 0);
    });
    run.items.push(...more);
  }

  /**
   * The state this instance's last join commit left, if any (taken once), else read afresh: its
   * checks fail (and the retry reads afresh) when anything else wrote the counts or settings since.
   */
  #readState(q: string) {
    const ctx = this.ctx;
    const cached = ctx.joinState.get(q);
    ctx.joinState.delete(q);
    return cached ? { ...cached, counts: { ...cached.counts } } : ctx.readState(q);
  }
}

/** A turn read as ended less than this long ago (ms) may have been extended since (see `#attempt`). */
const RECENT_TURN_MS = 1000;

/** This instance's inbox records of a queue out at once, unless full (see `#sendRelays`). */
const RELAYS_OUT = 3;

/** An attempt that found another instance's turn at the counts: read again in `ms`. */
class TurnWait {
  constructor(readonly ms: number) {}
}

/** One batch's commit across its attempts: the joins still going, and what the last left. */
interface Run {
  /** An empty batch run to take other instances' handed-over joins. */
  kicked: boolean;
  items: Pending[];
  /** Joins that did not fit the committed op: they go first into the next commit. */
  later: Pending[];
  /** Times this batch stepped aside for a starved tick. */
  yields: number;
  /** The counts the successful commit wrote, once there is one. */
  committed: Counts | null;
  /** Settled (committed, or given up): an attempt still running must not take in more joins. */
  closed: boolean;
  /** The chunks of joins the successful commit wrote, to expand before they are answered. */
  chunks: Written[];
}

/** The joins of a batch still within their bound; the others are refused as out of time. */
function inTime(batch: Pending[], started: number): Pending[] {
  const items = batch.filter((p) => started - p.at < STORE_DEADLINE_MS);
  for (const p of batch) {
    if (!items.includes(p)) p.reject(new StoreBusyError("join", "no commit took it in time"));
  }
  return items;
}
