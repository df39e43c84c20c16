/**
 * The real engine in-process on a fake clock and in-memory KV: a line joins, `engine.tick` runs
 * every simulated second, and every waiter calls `engine.status` exactly at its `nextCheckAt`
 * (like the waiting page does). Measures admissions per minute, KV writes per visitor from join
 * to admission, and the engine's own check-ins per second (a cross-check of checkins_sim.ts).
 */
import { keys } from "../lib/store/keys.ts";
import type { Counts } from "../lib/queue/types.ts";
import { readTicketUnverified, type TicketClaims } from "../lib/tokens.ts";
import { makeApp } from "../testing/app.ts";
import { countingKv, WriteCounter, type WriteLabel } from "./counting_kv.ts";
import { percentile } from "./checkins_sim.ts";

/** Inputs of the lifecycle run. */
export interface LifecycleOptions {
  /** Visitors that join at the start (all at once, through the join batcher). */
  visitors: number;
  ratePerSecond: number;
  /** Whole simulated minutes measured after one warm-up second. */
  minutes: number;
}

/** Results of the lifecycle run. */
export interface LifecycleResult {
  visitors: number;
  ratePerSecond: number;
  admittedPerMinute: number[];
  expectedPerMinute: number;
  /** Worst relative deviation of a minute from `expectedPerMinute`. */
  worstDeviation: number;
  waitingAtEnd: number;
  abandoned: number;
  admittedAtJoin: number;
  /** Visitors that went the whole way: joined waiting, admitted by a tick, entered at a check-in. */
  completed: number;
  /** Per completed visitor: commits touching it except check-in renewals. */
  writesMax: number;
  writesMean: number;
  writesHistogram: Record<string, number>;
  mutationsMean: number;
  byLabel: Record<WriteLabel, number>;
  checkinRenewalsMean: number;
  /** Commits that touched no visitor key, per completed visitor (amortized shared writes). */
  sharedCommits: number;
  totalCommits: number;
  checkinsPerSecond: number[];
  checkinMean: number;
  checkinP99: number;
  checkinMax: number;
  elapsedMs: number;
}

const decodeTicket = readTicketUnverified;

/** Runs the lifecycle simulation. */
export async function runLifecycle(o: LifecycleOptions): Promise<LifecycleResult> {
  const started = performance.now();
  const counter = new WriteCounter();
  const raw = await Deno.openKv(":memory:");
  const kv = countingKv(raw, counter);
  const t = await makeApp({
    ADMIT_PER_SECOND: o.ratePerSecond,
    CAPACITY: 10_000_000,
    MAX_WAITING_VISITORS: 50_000_000,
  }, { kv });
  const q = "default";
  const engine = t.engine;
  try {
    counter.phase = "join";
    const joined = await Promise.all(
      Array.from({ length: o.visitors }, () => engine.join(q, null)),
    );
    const due = new Map<number, TicketClaims[]>();
    const schedule = (c: TicketClaims) => {
      const sec = Math.floor(c.nextCheckAt / 1000);
      let list = due.get(sec);
      if (!list) due.set(sec, list = []);
      list.push(c);
    };
    let admittedAtJoin = 0;
    for (const j of joined) {
      if (j.view.status === "admitted") admittedAtJoin++;
      else schedule(decodeTicket(j.ticket));
    }
    const entered = new Set<string>();
    const readCounts = async () => (await raw.get<Counts>(keys.counts(q))).value!;
    const perMinute: number[] = [];
    const checkins: number[] = [];
    const seconds = 1 + o.minutes * 60;
    let mark = 0;
    for (let i = 0; i < seconds; i++) {
      t.clock.advance(1000);
      counter.phase = "tick";
      await engine.tick(q);
      const c = await readCounts();
      if (i === 0) mark = c.admitted;
      else if (i % 60 === 0) {
        perMinute.push(c.admitted - mark);
        mark = c.admitted;
      }
      const sec = Math.floor(t.clock.now() / 1000);
      const list = due.get(sec) ?? [];
      due.delete(sec);
      counter.phase = "status";
      for (const claims of list) {
        const out = await engine.status(q, claims);
        if (out.view.status === "admitted") entered.add(claims.sub);
        else schedule({ ...claims, nextCheckAt: out.view.nextCheckAt! });
      }
      if (i > 0) checkins.push(list.length);
    }
    const final = await readCounts();
    const expected = o.ratePerSecond * 60;
    const hist: Record<string, number> = {};
    const byLabel: Record<WriteLabel, number> = {
      join: 0,
      admit: 0,
      enter: 0,
      checkin: 0,
      remove: 0,
      other: 0,
    };
    const writes: number[] = [];
    let muts = 0, renewals = 0;
    for (const id of entered) {
      const w = counter.visitors.get(id)!;
      const n = w.commits.join + w.commits.admit + w.commits.enter + w.commits.remove +
        w.commits.other;
      writes.push(n);
      hist[n] = (hist[n] ?? 0) + 1;
      muts += w.mutations.join + w.mutations.admit + w.mutations.enter + w.mutations.remove +
        w.mutations.other;
      renewals += w.commits.checkin;
      for (const k of Object.keys(byLabel) as WriteLabel[]) byLabel[k] += w.commits[k];
    }
    const n = Math.max(1, entered.size);
    return {
      visitors: o.visitors,
      ratePerSecond: o.ratePerSecond,
      admittedPerMinute: perMinute,
      expectedPerMinute: expected,
      worstDeviation: Math.max(...perMinute.map((m) => Math.abs(m - expected) / expected)),
      waitingAtEnd: final.waiting,
      abandoned: final.abandoned,
      admittedAtJoin,
      completed: entered.size,
      writesMax: Math.max(0, ...writes),
      writesMean: writes.reduce((a, b) => a + b, 0) / n,
      writesHistogram: hist,
      mutationsMean: muts / n,
      byLabel,
      checkinRenewalsMean: renewals / n,
      sharedCommits: counter.sharedCommits,
      totalCommits: counter.commits,
      checkinsPerSecond: checkins,
      checkinMean: checkins.reduce((a, b) => a + b, 0) / Math.max(1, checkins.length),
      checkinP99: percentile(checkins, 99),
      checkinMax: Math.max(...checkins),
      elapsedMs: performance.now() - started,
    };
  } finally {
    t.close();
  }
}

if (import.meta.main) {
  const env = (k: string, d: number) => Number(Deno.env.get(k) ?? d);
  const r = await runLifecycle({
    visitors: env("LIFECYCLE_VISITORS", 8000),
    ratePerSecond: env("SIM_ADMIT_PER_SECOND", 10),
    minutes: env("ADMIT_MINUTES", 3),
  });
  const { checkinsPerSecond: _, ...rest } = r;
  console.log(JSON.stringify(rest, null, 1));
}
