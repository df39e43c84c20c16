/**
 * The admission tick of each second, in phases: claim the second (one instance runs it), number
 * the joins since the last tick into the line (sequencer.ts), then rounds that free expired
 * slots, drop waiters silent past their grace and admit by the rate budget (admit.ts), each
 * written with the counts; then the once-a-minute upkeep. All order-keeping happens here.
 */
import { StoreBusyError } from "../errors.ts";
import { log } from "../log.ts";
import { sleep } from "../clock.ts";
import { lockRetried, recordOp, retryCommit, STORE_DEADLINE_MS } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { pruneTraffic } from "../traffic.ts";
import { compactGoneLog, type TickRound, tickRound } from "./admit.ts";
import { bucketCap, type QueueContext, refill } from "./context.ts";
import { takeInEnters } from "./enters.ts";
import { ROUND_MOST, sequence, sequencing } from "./sequencer.ts";
import type { Counts, QueueSettings } from "./types.ts";
import { laneSlots } from "../priority/store.ts";

/**
 * Result of an admission tick: its second, whether it ran, the joins it numbered, admitted and
 * expired; as its last commit left them, the waiting count, the time (unix ms) the rate budget was
 * counted up to and the budget left unspent (admissions).
 */
export interface TickResult {
  sec: number;
  ran: boolean;
  numbered: number;
  admitted: number;
  expired: number;
  waiting: number;
  bucketAt: number;
  bucketLeft: number;
}

/** Which instance runs a queue's tick of second `sec` (see `claimTick`), claimed `at` (unix ms). */
type TickClaim = { sec: number; by: string; at?: number };

/** How long a claim of a second's tick stands before another instance may take it over. */
const CLAIM_MS = 600;
const EXPIRE = { expireIn: 60_000 }; // a claim's record is gone a minute after it was made

/**
 * Claims second `sec`'s tick of `q` for this instance with a small checked write that only other
 * claimers contend for: false when another instance has it. One whose tick has not landed within
 * `CLAIM_MS` (its instance stopped, its store calls failed) is taken over once. One lost to an
 * earlier second's claim landing late is made again (given up, bench/scale_sim.ts saw a second
 * go without a tick).
 */
async function claimTick(ctx: QueueContext, q: string, sec: number): Promise<boolean> {
  let claim = await ctx.kv.get<TickClaim>(keys.tickClaim(q));
  const held = claim.value;
  if (held && held.sec > sec) return false;
  if (held && held.sec === sec) {
    if (held.by === ctx.instance) return true;
    await sleep((held.at ?? 0) + CLAIM_MS - Date.now());
    if ((await ctx.readCounts(q)).counts.tickAt >= sec) return false;
  }
  const mine = { sec, by: ctx.instance, at: Date.now() };
  const put = () => ctx.kv.atomic().check(claim).set(keys.tickClaim(q), mine, EXPIRE).commit();
  // Checked against the claim as read: of several taking one over, one does (three tries).
  for (let i = 0; i < 3; i++) {
    if ((await lockRetried(put, Date.now() + STORE_DEADLINE_MS, "tick")).ok) return true;
    claim = await ctx.kv.get<TickClaim>(keys.tickClaim(q));
    if ((claim.value?.sec ?? 0) >= sec) return false;
  }
  return false;
}

/**
 * One admission tick for queue `q`: claimed per second, so one instance runs it; numbers the
 * joins since the last, frees expired slots, drops lapsed waiters, admits by the budget.
 */
export async function tick(ctx: QueueContext, q: string): Promise<TickResult> {
  const sec = Math.floor(ctx.now() / 1000);
  const none = { numbered: 0, admitted: 0, expired: 0, waiting: 0, bucketAt: 0, bucketLeft: 0 };
  const result: TickResult = { sec, ran: false, ...none };
  const { counts, arrivals, settings } = await ctx.readState(q);
  if (counts.tickAt >= sec) return result;
  // Idle: no claim and no counts written (two commits a second each); the timer waits 5 s.
  if (idle(ctx, counts, arrivals, settings)) {
    ctx.idleUntil.set(q, sec + 5);
    return upkeep(ctx, q, sec).then(() => result);
  }
  ctx.idleUntil.delete(q);
  if (!(await claimTick(ctx, q, sec))) return result;
  // Silent waiters passed over by this tick's rounds (see `admitInto`).
  const passed = new Set<string>();
  const round = (i: number) =>
    retryCommit(() => tickOnce(ctx, q, sec, i, passed, result), "tick").catch((e) => {
      // A later round that found no write in time: the second was ticked (its first round landed).
      if (i === 0 || !(e instanceof StoreBusyError)) throw e;
      return false;
    });
  // With two seconds' admissions numbered (or a backlog; first come, first served, no priority lane
  // whose join would wait behind them), those go in first: they came before every join not numbered
  // (numbering first, a later tick could land first: bench/RESULTS.md). A backlog (over a round) is
  // numbered beside the ticks (waited for, a tick overran its second), less inline (800/s).
  const due = settings ? 2 * ctx.ratePerSecond(settings) : Infinity;
  const backlog = arrivals > ROUND_MOST && counts.waiting >= due;
  const long = counts.waiting >= due || (arrivals > ROUND_MOST && counts.waiting > 0);
  const first = backlog ||
    (settings?.mode === "queue" && long && (await laneSlots(ctx.kv, q)).size === 0);
  // A first round that fails leaves the numbering to run all the same, then fails the tick.
  const r0 = first ? await round(0).then((more) => ({ more }), (e) => ({ more: false, e })) : null;
  if (backlog) {
    // Its count is not this tick's result (that is answered before the run ends).
    const warn = (e: unknown) => log("warn", "numbering failed", { queue: q, error: String(e) });
    if (!sequencing(ctx, q)) sequence(ctx, q, 1500).catch(warn);
  } else {
    result.numbered = await sequence(ctx, q);
    // Rounds go on until the second's work is done (at most about 900 ms: high rates finish); after
    // a first round only if it landed (else another tick had the second), for those numbered too.
    const from = Date.now();
    const again = !r0 || (result.ran && (r0.more || result.numbered > 0));
    for (let i = r0 ? 1 : 0; again && (i === 0 || Date.now() - from < 900); i++) {
      if (!(await round(i))) break;
    }
  }
  if (r0 && "e" in r0) throw r0.e;
  if (result.ran) await upkeep(ctx, q, sec);
  return result;
}

/** One round of a tick: its reads and work, then its commit; true when another round is due. */
async function tickOnce(
  ctx: QueueContext,
  q: string,
  sec: number,
  round: number,
  passed: Set<string>,
  result: TickResult,
): Promise<boolean | null> {
  const now = ctx.now();
  const { counts, entry, settings, settingsEntry } = await ctx.readState(q);
  if (!settings) return false;
  // A later second's tick has run: this second's work is its now (its rounds never land after a
  // later tick's, so every tick's admissions come after the one before).
  if (counts.tickAt > sec || (round === 0 && counts.tickAt >= sec)) return false;
  const base = { ...counts };
  const rec = recordOp();
  const op = rec.op.check(settingsEntry);
  const handled = new Set<string>();
  const admitted = new Set<string>();
  const r = await tickRound({ ctx, q, op, counts, settings, handled, passed, admitted }, now);
  // A later round with nothing to do writes nothing (the second is claimed already).
  if (round > 0 && r.n === 0 && handled.size === 0) return false;
  counts.tickAt = Math.max(counts.tickAt, sec);
  const t = { ...r, settings, now, sec, round };
  const out = await ctx.serial(q, () => commitRound(ctx, q, rec, base, counts, entry, t));
  if (out === false || out === null) return out;
  ctx.invalidate(q);
  result.ran = true;
  result.admitted += r.n;
  result.expired += handled.size;
  result.waiting = out.waiting;
  result.bucketAt = out.tokensAt;
  result.bucketLeft = out.tokens;
  return r.more;
}

/** Commits of a tick's changes against counts read again, before it reads everything afresh. */
const COUNTS_TRIES = 4;

/** What a round's commit needs to know of it (see `rebase`). */
type RoundFacts = TickRound & { settings: QueueSettings; now: number; sec: number; round: number };

/**
 * Commits a round: its visitors checked one by one, its counts applied to the counts as they are
 * now when another writer (a leave, an enter, a join let in at once) changed them since its reads.
 * The written counts; false when a later tick ran; null to read everything again.
 */
async function commitRound(
  ctx: QueueContext,
  q: string,
  rec: ReturnType<typeof recordOp>,
  base: Counts,
  counts: Counts,
  entry: Deno.KvEntryMaybe<Counts>,
  t: RoundFacts,
): Promise<Counts | false | null> {
  let seen: string | null = null;
  for (let i = 0; i < COUNTS_TRIES; i++) {
    const fresh = await ctx.readCounts(q);
    if (i > 0 && fresh.entry.versionstamp === seen) return null;
    seen = fresh.entry.versionstamp;
    let next: Counts | null = counts;
    if (fresh.entry.versionstamp !== entry.versionstamp) {
      const later = fresh.counts.tickAt > t.sec;
      if (later || (t.round === 0 && fresh.counts.tickAt >= t.sec)) return false;
      next = rebase(base, counts, fresh.counts, t);
      if (!next) return null;
    }
    // Enters since are taken in as well (read in the same snapshot as the counts checked).
    const written = { ...next };
    const sent = rec.build(ctx.kv).check(fresh.entry);
    takeInEnters(sent, q, written, fresh.pending);
    if ((await sent.set(keys.counts(q), written).commit()).ok) return written;
  }
  return null;
}

/** Fields a tick changes by adding to them, so its changes can be applied to newer counts. */
const ADDED = [
  "waiting",
  "holding",
  "entered",
  "abandoned",
  "admitted",
  "waitMsSum",
  "waitCount",
] as const;

/**
 * A tick's changes (`mine` against `base`, the counts it read first) applied to `fresh`, the
 * counts as they are now: added fields by their difference, the bucket refilled to now less this
 * tick's `n`. Null when that is no longer valid (the bucket or capacity would be overdrawn).
 */
function rebase(base: Counts, mine: Counts, fresh: Counts, t: RoundFacts): Counts | null {
  const out = { ...fresh, tickAt: Math.max(fresh.tickAt, mine.tickAt) };
  for (const f of ADDED) out[f] = fresh[f] + mine[f] - base[f];
  // Admissions per priority lane, added the same way, slot by slot.
  const lanes = { ...fresh.laneAdmitted };
  for (const [slot, n] of Object.entries(mine.laneAdmitted)) {
    lanes[slot] = (lanes[slot] ?? 0) + n - (base.laneAdmitted[slot] ?? 0);
  }
  out.laneAdmitted = lanes;
  refill(out, t.rate, Math.max(t.now, fresh.tokensAt), t.open, bucketCap(t.rate));
  out.tokens -= t.n;
  if (out.waiting < 0) return null;
  const over = out.holding + out.entered > t.settings.capacity;
  if (t.n > 0 && (out.tokens < -1e-9 || over)) return null;
  return out;
}

/** Nothing for a tick to do: none waiting, holding, entered or arriving; a bucket full or shut. */
function idle(ctx: QueueContext, c: Counts, arrivals: number, s: QueueSettings | null): boolean {
  if (!s) return true;
  if (c.waiting + c.holding + c.entered + arrivals > 0 || c.tokensAt === 0) return false;
  return !ctx.isOpen(s, ctx.now()) || c.tokens >= bucketCap(ctx.ratePerSecond(s)) - 1e-9;
}

/** The once-a-minute upkeep, after this instance's tick of second `sec` (or its idle second). */
async function upkeep(ctx: QueueContext, q: string, sec: number): Promise<void> {
  // From whichever tick of the minute ran here (a fixed second is missed without requests then).
  const minute = Math.floor(sec / 60);
  if ((ctx.upkeepMinute.get(q) ?? -1) < minute) {
    ctx.upkeepMinute.set(q, minute);
    await compactGoneLog(ctx, q);
    // KV `sum` cannot carry an expiry, so old traffic buckets are pruned here, once a minute.
    await pruneTraffic(ctx.kv, q, ctx.now());
  }
}
