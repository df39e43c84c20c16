/**
 * Scale-out simulation: N engine instances, each with its own caches, join batcher and
 * once-a-second tick, over ONE real KV file, with every KV call delayed as a remote primary
 * region would delay it (bench/delayed_kv.ts). Simulated visitors arrive at a fixed rate (open
 * loop), join through a random instance and check in at their timeslots through a random
 * instance, as behind a load balancer. Measures throughput, conflicts, the tick, and the exact
 * answers every instance gives.
 *
 * 0.8: a join writes only its own records and its position is provisional until the tick's
 * sequencer numbers it, so positions are checked after the sequencer (every instance asked about
 * visitors across the whole line, against the store's line), not in the join's answer; the
 * arrivals a tick leaves unnumbered, and the visitors lost or numbered twice, are counted.
 */
import { Engine } from "../lib/queue/engine.ts";
import { cryptoRandom, systemClock } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import { keys } from "../lib/store/keys.ts";
import { migrate } from "../lib/store/migrate.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { JoinUnconfirmedError } from "../lib/errors.ts";
import { readTicketUnverified, Signer, type TicketClaims } from "../lib/tokens.ts";
import { percentile } from "./checkins_sim.ts";
import { delayedKv, KvTally } from "../testing/delayed_kv.ts";
import { wrongPositions } from "../testing/positions.ts";

export { wrongPositions };

const Q = "default";

/** One cell of the simulation: instances, latency, offered load. */
export interface Cell {
  instances: number;
  /** Added to every commit (ms). */
  commitMs: number;
  /** Added to every read (ms). */
  readMs: number;
  /** Open-loop arrivals per second. */
  arrivalsPerSecond: number;
  /** Seconds of arrivals. */
  seconds: number;
  /** Admissions per second (rate budget). */
  rate: number;
}

/** What one cell measured. */
export interface CellResult extends Cell {
  joins: number;
  /**
   * Joins answered per second while arrivals ran, after the first second (a steady state): the
   * throughput. Joins answered after the arrivals stopped (a backlog's drain) are not in it, so a
   * cell that takes every join offered reads the offered rate whatever its joins' latency.
   */
  joinsPerSecond: number;
  joinP50: number;
  joinP99: number;
  failedJoins: number;
  joinCommitsPerJoin: number;
  /** Lost checks per commit, all commits and join commits. */
  retriesPerCommit: number;
  joinRetriesPerCommit: number;
  /** Admissions per minute of the rate budget's time while a line waited (see `admissionPace`). */
  admittedPerMinute: number;
  /** Seconds of budget time that figure was measured over. */
  pacedSeconds: number;
  /** Admissions beyond the rate budget's own account over the cell (0 when the pace is kept). */
  overBudget: number;
  ratePerMinute: number;
  skippedSeconds: number;
  doubleSeconds: number;
  ticksPerSecond: number;
  capacityViolations: number;
  admittedTwice: number;
  /** Statuses (every instance, across the line) after the sequencer that were not exact. */
  wrongPositions: number;
  /** How many such statuses were checked. */
  checkedPositions: number;
  /** The most arrivals a tick left unnumbered, in the steady part (0.8's sequencer lag). */
  maxPendingAfterTick: number;
  /** Joins answered as placed that have no record, and arrival numbers given twice. */
  lostVisitors: number;
  duplicateNumbers: number;
  /** Joins answered with an error whose id was placed all the same. */
  failedYetPlaced: number;
  /** The pending sum less the arrival entries once all were numbered (0 when the sum is exact). */
  pendingDrift: number;
  readsPerVisitor: number;
  writesPerVisitor: number;
  statusCalls: number;
}

/** The join throughput is counted from this far into the arrivals (ms): a crowd's first second. */
const STEADY_FROM_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

const claimsOf = readTicketUnverified;

/** What a commit does, from the keys it writes. */
function kindOf(written: Deno.KvKey[]): string {
  if (written.some((k) => k[0] === "t" && k[3] === "in")) return "join";
  if (written.some((k) => k[0] === "counts")) return "counts";
  if (written.some((k) => k[0] === "ts")) return "checkin";
  return "other";
}

/** One tick that ran: the second it claimed, what it admitted, the line and budget time it left. */
export interface TickMark {
  sec: number;
  admitted: number;
  waiting: number;
  /** The time the rate budget was counted up to (`TickResult.bucketAt`). */
  at: number;
  /** The budget it left unspent (`TickResult.bucketLeft`). */
  left: number;
}

/**
 * Admissions per minute while a line waited, in the budget's own time: over the longest run of
 * ticks of seconds `from`..`to` that each left a line behind, from one that spent its budget (less
 * than two admissions left: a tick's last round refills for the time its earlier rounds took) to
 * the last such, the admissions of all but the first over the budget time between them. So this
 * is the rate to within two admissions over the whole span, whatever
 * the phase of the ticks within their seconds (an admission count over wall-clock seconds
 * scatters by up to a second of budget at each end). A late or missing tick, or a bucket that
 * overflowed, shows as a lower figure.
 */
export function admissionPace(ticks: TickMark[], from: number, to: number) {
  const inWindow = ticks.filter((t) => t.sec >= from && t.sec <= to).sort((a, b) => a.at - b.at);
  const runs: TickMark[][] = [[]];
  for (const t of inWindow) {
    if (t.waiting > 0) runs[runs.length - 1].push(t);
    else runs.push([]);
  }
  let best = { admitted: 0, ms: 0 };
  for (const run of runs) {
    const spent = run.map((t, i) => t.left < 2 ? i : -1).filter((i) => i >= 0);
    if (spent.length < 2) continue;
    const [i, j] = [spent[0], spent[spent.length - 1]];
    const ms = run[j].at - run[i].at;
    const admitted = run.slice(i + 1, j + 1).reduce((n, t) => n + t.admitted, 0);
    if (ms > best.ms) best = { admitted, ms };
  }
  if (best.ms === 0) return { perMinute: 0, seconds: 0 };
  return { perMinute: (best.admitted / best.ms) * 60_000, seconds: best.ms / 1000 };
}

/** Runs one cell over a fresh KV file. */
export async function runCell(cell: Cell): Promise<CellResult> {
  // In memory-backed files where there are: the store's own disk stalls are not what is measured.
  const dir = await Deno.makeTempDir({ prefix: "tollgate-scale-", dir: await shm() });
  const real = await Deno.openKv(`${dir}/store.kv`);
  const config = testConfig({
    ADMIT_PER_SECOND: cell.rate,
    CAPACITY: 10_000_000,
    MAX_WAITING_VISITORS: 50_000_000,
  });
  const signer = new Signer(config.TOKEN_SECRET);
  await migrate(real);
  const tallies: KvTally[] = [];
  const engines: Engine[] = [];
  const ticks: TickMark[] = [];
  const pendingAfter: { sec: number; n: number }[] = [];
  const pendingReads: Promise<unknown>[] = [];
  for (let i = 0; i < cell.instances; i++) {
    const tally = new KvTally();
    tallies.push(tally);
    const kv = delayedKv(
      real,
      { readMs: cell.readMs, commitMs: cell.commitMs, kind: kindOf },
      tally,
    );
    const e = new Engine({ kv, clock: systemClock, config, random: cryptoRandom, signer }, true);
    // Every tick this instance ran.
    e.onTickRan = (_q, r) => {
      const { sec, admitted, waiting } = r;
      ticks.push({ sec, admitted, waiting, at: r.bucketAt, left: r.bucketLeft });
      // What the tick's sequencer left unnumbered (read undelayed: a measurement, not the engine).
      pendingReads.push(pendingOf(real).then((n) => pendingAfter.push({ sec, n })));
    };
    engines.push(e);
  }
  await engines[0].ensureQueues([Q]);
  // Instances are up before the crowd, as a sale's are (each ticks every second, its view read):
  // all fifty reading their first view inside the crowd's first 300 ms was a start-up, not a
  // join's latency.
  await Promise.all(engines.map((e) => e.settings(Q)));
  const pick = () => engines[Math.floor(Math.random() * engines.length)];
  // Each instance's once-a-second timer, at its own phase (as main.ts runs it).
  const timers: ReturnType<typeof setTimeout>[] = [];
  let stopped = false;
  for (const e of engines) {
    const start = setTimeout(() => {
      if (stopped) return;
      e.maybeTick(Q);
      timers.push(setInterval(() => e.maybeTick(Q), 1000));
    }, Math.random() * 1000);
    timers.push(start);
  }

  const joinMs: number[] = [];
  /** When each join was answered (ms since t0). */
  const answeredAt: number[] = [];
  const placedIds: string[] = [];
  const failedIds: string[] = [];
  let failedJoins = 0, statusCalls = 0, visitors = 0;
  const pollers: Promise<void>[] = [];
  const t0 = Date.now();
  const endArrivals = t0 + cell.seconds * 1000;
  const endPolls = endArrivals + 2000;

  const visitor = async () => {
    visitors++;
    const e = pick();
    const start = performance.now();
    let out;
    try {
      e.maybeTick(Q);
      out = await e.join(Q, null);
    } catch (e) {
      failedJoins++;
      if (e instanceof JoinUnconfirmedError) failedIds.push(e.visitorId);
      return;
    }
    joinMs.push(performance.now() - start);
    answeredAt.push(Date.now() - t0);
    placedIds.push(out.view.visitorId);
    let claims = claimsOf(out.ticket);
    if (out.view.status !== "waiting") return;
    // Asked back at the view's `nextCheckAt`, as the waiting page is (a status from memory may
    // give no new ticket).
    let nextAt = out.view.nextCheckAt ?? claims.nextCheckAt;
    while (!stopped) {
      const due = nextAt + Math.random() * 200;
      if (due >= endPolls) return;
      await sleep(due - Date.now());
      const s = pick();
      s.maybeTick(Q);
      statusCalls++;
      try {
        const r = s.statusNow(Q, claims) ?? await s.status(Q, claims);
        if (r.view.status !== "waiting") return;
        if (r.ticket) claims = claimsOf(r.ticket);
        nextAt = r.view.nextCheckAt ?? claims.nextCheckAt;
      } catch {
        return;
      }
    }
  };

  // Open loop: arrivals every 10 ms at the offered rate, whatever the answers' latency. Owed by
  // the clock, not by the loop's turns: on a saturated thread a turn takes longer than 10 ms,
  // and arrivals counted per turn fell behind the rate offered.
  let arrived = 0;
  const tickStart = Math.floor(t0 / 1000) + 1;
  let first: Counts | null = null;
  while (Date.now() < endArrivals) {
    const owed = Math.floor(((Date.now() - t0) / 1000) * cell.arrivalsPerSecond);
    for (; arrived < owed; arrived++) pollers.push(visitor());
    if (!first && Date.now() >= tickStart * 1000) first = await countsOf(real);
    await sleep(10);
  }
  await Promise.all(pollers);
  // Ticks go on while visitors still check in (a line is left): they are measured up to here.
  const windowEnd = Date.now();
  stopped = true;
  for (const t of timers) clearTimeout(t);
  await sleep(cell.commitMs * 4 + 200);
  await Promise.all(pendingReads);
  // The arrivals still unnumbered (the last second's): one more sequencer run, as the next tick's.
  for (let i = 0; i < 200 && await arrivalsOf(real) > 0; i++) {
    // A store too slow for it (a loaded machine) fails one run; the next goes on from there.
    await engines[0].sequence(Q).catch(() => {});
  }
  const pendingDrift = await pendingOf(real) - await arrivalsOf(real);
  const positions = await checkPositions(real, engines);

  // ---- correctness, from the store ---------------------------------------------------------
  const counts = await countsOf(real);
  // The bucket's own account: admissions beyond what it held at the first snapshot plus the rate
  // over the time it was counted up to since, less what it holds now (0 unless the engine
  // admitted past its rate budget).
  const f = first ?? counts;
  const budget = f.tokens + (cell.rate * (counts.tokensAt - f.tokensAt)) / 1000 - counts.tokens;
  const overBudget = Math.max(0, counts.admitted - f.admitted - budget);
  let admittedRecords = 0;
  const seqs = new Set<number>();
  const ids = new Set<string>();
  let duplicateNumbers = 0;
  for await (const e of real.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    if (e.value.state !== "waiting") admittedRecords++;
    ids.add(e.value.id);
    if (seqs.has(e.value.seq) || e.value.seq === 0) duplicateNumbers++;
    seqs.add(e.value.seq);
  }
  real.close();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const perSecond = new Map<number, number>();
  for (const t of ticks) perSecond.set(t.sec, (perSecond.get(t.sec) ?? 0) + 1);
  const lastSec = Math.floor(windowEnd / 1000) - 1;
  let skipped = 0, doubled = 0;
  for (let s = tickStart; s <= lastSec; s++) {
    const n = perSecond.get(s) ?? 0;
    if (n === 0) skipped++;
    if (n > 1) doubled++;
  }
  const total = new KvTally();
  for (const t of tallies) total.add(t);
  const join = total.byKind.get("join") ?? { commits: 0, lost: 0 };
  const okJoin = join.commits - join.lost;
  const ok = total.commits - total.lost - total.failed;
  const paced = admissionPace(ticks, tickStart, lastSec);
  // A cell of two seconds or less has no steady part: its joins count from the start.
  const steadyFrom = cell.seconds > 2 ? STEADY_FROM_MS : 0;
  const joins = joinMs.length;
  return {
    ...cell,
    joins,
    joinsPerSecond: answeredAt.filter((t) => t >= steadyFrom && t < cell.seconds * 1000).length /
      (cell.seconds - steadyFrom / 1000),
    joinP50: percentile(joinMs, 50),
    joinP99: percentile(joinMs, 99),
    failedJoins,
    joinCommitsPerJoin: okJoin / Math.max(1, joins),
    retriesPerCommit: total.lost / Math.max(1, ok),
    joinRetriesPerCommit: join.lost / Math.max(1, okJoin),
    admittedPerMinute: paced.perMinute,
    overBudget,
    pacedSeconds: paced.seconds,
    ratePerMinute: cell.rate * 60,
    skippedSeconds: skipped,
    doubleSeconds: doubled,
    ticksPerSecond: ticks.filter((t) => t.sec >= tickStart && t.sec <= lastSec).length /
      Math.max(1, lastSec - tickStart + 1),
    capacityViolations: counts.entered + counts.holding > config.CAPACITY ? 1 : 0,
    admittedTwice: counts.admitted - admittedRecords,
    wrongPositions: positions.wrong,
    checkedPositions: positions.checked,
    maxPendingAfterTick: Math.max(
      0,
      ...pendingAfter.filter((p) => p.sec > tickStart && p.sec <= lastSec).map((p) => p.n),
    ),
    lostVisitors: placedIds.filter((id) => !ids.has(id)).length,
    duplicateNumbers,
    failedYetPlaced: failedIds.filter((id) => ids.has(id)).length,
    pendingDrift,
    readsPerVisitor: total.reads / Math.max(1, visitors),
    writesPerVisitor: ok / Math.max(1, visitors),
    statusCalls,
  };
}

/** Visitors each instance is asked about after the sequencer: spread over the whole line. */
const POSITION_SAMPLE = 100;

/**
 * 0.8's promise, checked once the sequencer ran and nothing moves (ticks stopped): every instance,
 * its cached view gone stale, answers each sampled visitor (first, last, and spread between) with
 * its place in the store's line, from its numbered ticket. Returns how many answers were checked
 * and how many were not that place (or not marked exact).
 */
async function checkPositions(real: Deno.Kv, engines: Engine[]) {
  // A tick still running (a slow store's retries) would move the line under the check.
  if (!(await settled(real))) return { checked: 0, wrong: -1 };
  const line: { id: string; seq: number }[] = [];
  for await (const e of real.list<string>({ prefix: keys.fifoPrefix(Q) })) {
    line.push({ id: e.value, seq: e.key[2] as number });
  }
  if (line.length === 0) return { checked: 0, wrong: 0 };
  const step = Math.max(1, Math.floor(line.length / POSITION_SAMPLE));
  const picks = line.map((w, i) => ({ ...w, position: i + 1 }))
    .filter((_, i) => i % step === 0 || i === line.length - 1);
  const before = (await real.get(keys.counts(Q))).versionstamp;
  await sleep(1100); // every instance's view is stale: the next answer reads the line afresh
  let checked = 0, wrong = 0;
  const future = Date.now() + 60_000;
  await Promise.all(engines.map(async (e) => {
    for (const p of picks) {
      const claims: TicketClaims = {
        sub: p.id,
        queue: Q,
        iat: Math.floor(Date.now() / 1000),
        seq: p.seq,
        nextCheckAt: future,
      };
      const r = e.statusNow(Q, claims) ?? await e.status(Q, claims);
      checked++;
      const exact = r.view.positionExact !== false;
      if (r.view.status !== "waiting" || r.view.position !== p.position || !exact) wrong++;
    }
  }));
  // Moved meanwhile: the check says nothing (-1).
  if ((await real.get(keys.counts(Q))).versionstamp !== before) return { checked, wrong: -1 };
  return { checked, wrong };
}

/** Waits until the counts record has not changed for 2 s (at most 30 s); false if it kept on. */
async function settled(real: Deno.Kv): Promise<boolean> {
  let last = (await real.get(keys.counts(Q))).versionstamp, since = Date.now();
  for (const end = Date.now() + 30_000; Date.now() < end;) {
    await sleep(250);
    const now = (await real.get(keys.counts(Q))).versionstamp;
    if (now !== last) [last, since] = [now, Date.now()];
    else if (Date.now() - since >= 2000) return true;
  }
  return false;
}

/** Arrival entries not numbered yet. */
async function arrivalsOf(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: keys.arrivalPrefix(Q) })) n++;
  return n;
}

/** Arrivals not numbered yet (the join's `sum`). */
async function pendingOf(kv: Deno.Kv): Promise<number> {
  const v = (await kv.get<Deno.KvU64>(keys.arrivalsPending(Q))).value;
  return v ? Number(v.value) : 0;
}

async function countsOf(kv: Deno.Kv): Promise<Counts> {
  return withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);
}

/** /dev/shm when it exists (a memory-backed file system), else the default temp dir. */
async function shm(): Promise<string | undefined> {
  try {
    return (await Deno.stat("/dev/shm")).isDirectory ? "/dev/shm" : undefined;
  } catch {
    return undefined;
  }
}
