/**
 * Check-in load of a long FIFO line on a simulated clock. Every timeslot comes from the engine's
 * own `schedule()` (lib/queue/visitor.ts: the join and renewal windows, the front-of-line rule
 * and the per-second occupancy ledger), called on a real QueueContext with a fake clock, with the
 * view a status call would see that second. What it leaves out is KV: no records are written,
 * so a million waiters take a second of CPU instead of hours of commits.
 */
import type { QueueView } from "../lib/queue/context.ts";
import { EMPTY_COUNTS } from "../lib/queue/types.ts";
import { schedule } from "../lib/queue/visitor.ts";
import { makeApp } from "../testing/app.ts";

/** How the line got its schedule before the measured window. */
export type SimStart = "steady" | "flash";

/** Inputs of one simulation. */
export interface CheckinSimOptions {
  /** Waiters at the start (arrival numbers 1..waiting). */
  waiting: number;
  /** Admissions per second from the head of the line (FIFO, free capacity). */
  ratePerSecond: number;
  /** Length of the measured window in seconds. */
  seconds: number;
  /**
   * `steady`: the whole line holds slots as the engine hands them to newcomers with the full line
   * (750 per second over the coming period), then one whole period runs as warm-up, so every
   * waiter has renewed once before the window. `flash`: the line joins over `joinSeconds` (each
   * newcomer scheduled as the last in line, as the join batcher does); the window starts when
   * the last one has joined.
   */
  start: SimStart;
  /** `flash` only: seconds over which the line joins. */
  joinSeconds?: number;
}

/** Per-second check-in counts over the window, and the statistics the targets use. */
export interface CheckinSimResult {
  start: SimStart;
  waiting: number;
  ratePerSecond: number;
  warmupSeconds: number;
  seconds: number;
  perSecond: number[];
  mean: number;
  p50: number;
  p99: number;
  max: number;
  min: number;
  /** Check-ins of waiters learning that they were admitted (they stop afterwards). */
  admittedCheckins: number;
  admitted: number;
  waitingAtEnd: number;
  periodAtStart: number;
  periodAtEnd: number;
  /** Highest per-second count before the window (warm-up or the join phase). */
  warmupMax: number;
  elapsedMs: number;
}

/** Nearest-rank percentile of `xs` (not modified). */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/**
 * Runs the simulation. Each simulated second: the tick admits `ratePerSecond` from the head (a
 * token bucket, so fractional rates work); then every waiter whose slot is this second checks in:
 * an admitted one learns it and stops, a waiting one is renewed by `schedule(..., "renew")`.
 */
export async function simulateCheckins(o: CheckinSimOptions): Promise<CheckinSimResult> {
  const started = performance.now();
  const rate = o.ratePerSecond;
  const t = await makeApp({
    ADMIT_PER_SECOND: rate,
    CAPACITY: 10_000_000,
    MAX_WAITING_VISITORS: 50_000_000,
  });
  try {
    const q = "default";
    const ctx = t.engine.ctx;
    const settings = (await ctx.readSettings(q))!;
    const n = o.waiting;
    const buckets = new Map<number, number[]>();
    const push = (nca: number, seq: number) => {
      const sec = Math.floor(nca / 1000);
      let b = buckets.get(sec);
      if (!b) buckets.set(sec, b = []);
      b.push(seq);
    };
    const view = (waiting: number, head: number, now: number): QueueView => ({
      settings,
      counts: { ...EMPTY_COUNTS, waiting, nextSeq: n + 1 },
      pending: 0,
      head,
      gone: [],
      goneSet: new Set(),
      loadedAt: now,
    });
    let sec = Math.floor(t.clock.now() / 1000);
    const setClock = async (s: number, waiting: number) => {
      t.clock.ms = s * 1000;
      // As join and settle do before scheduling: the ledger re-reads once a second.
      await ctx.checkins.refresh(q, s, ctx.periodMs(waiting) / 1000);
    };
    let admittedUpTo = 0; // arrival numbers <= this were admitted by a tick
    let joined = 0;
    let tokens = Math.max(1, rate);
    const joinSeconds = Math.max(1, Math.round(o.joinSeconds ?? 1));
    let warmup: number;
    if (o.start === "steady") {
      await setClock(sec, n);
      // Newcomers see the waiting count including themselves (scheduleLast in join.ts).
      for (let seq = 1; seq <= n; seq++) {
        push(schedule(ctx, q, view(seq, 1, sec * 1000), seq, "join")[0], seq);
      }
      joined = n;
      warmup = ctx.periodMs(n) / 1000;
    } else {
      warmup = joinSeconds;
    }
    const perSecond: number[] = [];
    let admittedCheckins = 0, warmupMax = 0, periodAtStart = 0;
    for (let i = 0; i < warmup + o.seconds; i++) {
      sec++;
      if (i === warmup) periodAtStart = ctx.periodMs(joined - admittedUpTo) / 1000;
      await setClock(sec, joined - admittedUpTo);
      if (o.start === "flash" && i < joinSeconds) {
        const until = Math.min(n, Math.round(((i + 1) * n) / joinSeconds));
        for (let seq = joined + 1; seq <= until; seq++) {
          const w = seq - admittedUpTo;
          push(schedule(ctx, q, view(w, admittedUpTo + 1, sec * 1000), seq, "join")[0], seq);
        }
        joined = until;
      }
      tokens = Math.min(Math.max(1, rate) * 2, tokens + rate);
      const admit = Math.min(Math.floor(tokens + 1e-9), joined - admittedUpTo);
      admittedUpTo += admit;
      tokens -= admit;
      const v = view(joined - admittedUpTo, admittedUpTo + 1, sec * 1000);
      const due = buckets.get(sec) ?? [];
      buckets.delete(sec);
      for (const seq of due) {
        if (seq <= admittedUpTo) {
          if (i >= warmup) admittedCheckins++;
          continue;
        }
        push(schedule(ctx, q, v, seq, "renew")[0], seq);
      }
      if (i >= warmup) perSecond.push(due.length);
      else warmupMax = Math.max(warmupMax, due.length);
    }
    const sum = perSecond.reduce((a, b) => a + b, 0);
    return {
      start: o.start,
      waiting: n,
      ratePerSecond: rate,
      warmupSeconds: warmup,
      seconds: o.seconds,
      perSecond,
      mean: sum / Math.max(1, perSecond.length),
      p50: percentile(perSecond, 50),
      p99: percentile(perSecond, 99),
      max: Math.max(...perSecond),
      min: Math.min(...perSecond),
      admittedCheckins,
      admitted: admittedUpTo,
      waitingAtEnd: joined - admittedUpTo,
      periodAtStart,
      periodAtEnd: ctx.periodMs(joined - admittedUpTo) / 1000,
      warmupMax,
      elapsedMs: performance.now() - started,
    };
  } finally {
    t.close();
  }
}

if (import.meta.main) {
  const env = (k: string, d: number) => Number(Deno.env.get(k) ?? d);
  for (const start of ["steady", "flash"] as const) {
    const r = await simulateCheckins({
      waiting: env("SIM_WAITING", 1_000_000),
      ratePerSecond: env("SIM_ADMIT_PER_SECOND", 10),
      seconds: env("SIM_SECONDS", 600),
      start,
      joinSeconds: env("SIM_JOIN_SECONDS", 60),
    });
    const { perSecond: _, ...rest } = r;
    console.log(JSON.stringify(rest));
  }
}
