/**
 * Fills a KV file with a long line of waiting visitors before the server starts, in the layout
 * join.ts writes: the record and its three indexes per visitor (putWaiting in
 * lib/queue/records.ts, keys from lib/store/keys.ts) and the queue's counts record.
 *
 * The keys are random (visitor ids, lottery keys) as in the service, but each index is inserted
 * in key order, in its own pass, 1000 keys per commit: random-order inserts into SQLite are
 * about five times slower and would make a million waiters take minutes. The stored data is the
 * same either way. Every waiter is scheduled by the engine as if the whole line had joined
 * `slackSec` seconds from now, so none lapses (liveness deadline) while the bench runs; the
 * check-in occupancy of their seconds is summed as join commits do.
 *
 * Run as its own process: `deno run -A bench/seed.ts PATH WAITING RATE [SLACK_SEC [MIN_LIFE_SEC]]`.
 */
import type { QueueView } from "../lib/queue/context.ts";
import { sumCheckins } from "../lib/queue/checkins.ts";
import { EMPTY_COUNTS } from "../lib/queue/types.ts";
import type { Counts, QueueSettings, Visitor } from "../lib/queue/types.ts";
import { schedule } from "../lib/queue/visitor.ts";
import { keys } from "../lib/store/keys.ts";
import { b64url } from "../lib/tokens.ts";
import { makeApp } from "../testing/app.ts";

/** Mutations per commit (the atomic-op limit is 1000). */
const PER_COMMIT = 1000;

/** A line as the engine schedules it, before it is written: see `planLine`. */
export interface PlannedLine {
  q: string;
  /** The second (unix ms) the whole line is scheduled as having joined in. */
  at: number;
  /** The queue settings the schedule was made with (the server's, given the same config). */
  settings: QueueSettings;
  /** Waiters in arrival order (`seq` 1..n). */
  visitors: Visitor[];
  /** The check-in second reserved for each scheduled waiter, to be summed into the ledger. */
  slots: number[];
}

/** How a planned line is scheduled (see `planLine`). */
export interface PlanOptions {
  /** The line is scheduled as having joined this many seconds from now (default 600). */
  slackSec?: number;
  /** The server's capacity, when it is smaller than the line and so decides its admission rate. */
  capacity?: number;
  /** No waiter's liveness deadline falls within this many seconds of now (default 0). */
  minLifeSec?: number;
}

/**
 * Schedules `waiting` waiters of queue `q`, each by the engine's `schedule()` as a newcomer last
 * in line, on a scratch in-memory app with the server's rate (and capacity), as `opts` says.
 */
export async function planLine(
  q: string,
  waiting: number,
  rate: number,
  opts: PlanOptions = {},
): Promise<PlannedLine> {
  const { slackSec = 600, capacity, minLifeSec = 0 } = opts;
  const now = Date.now();
  const at = (Math.floor(now / 1000) + slackSec) * 1000;
  const scratch = await makeApp({
    ADMIT_PER_SECOND: rate,
    MAX_WAITING_VISITORS: 50_000_000,
    ...(capacity === undefined ? {} : { CAPACITY: capacity }),
  });
  const ctx = scratch.engine.ctx;
  const settings = (await ctx.readSettings(q))!;
  scratch.clock.ms = at;
  await ctx.checkins.refresh(q, at / 1000, ctx.periodMs(waiting) / 1000);
  const random = new Uint8Array(16 * waiting);
  for (let i = 0; i < random.length; i += 65536) {
    crypto.getRandomValues(random.subarray(i, i + 65536));
  }
  const rec: Visitor[] = new Array(waiting);
  const slots: number[] = [];
  for (let i = 0; i < waiting; i++) {
    const seq = i + 1;
    // As join.ts schedules a newcomer (0.8): by the view before its join (the waiters ahead of
    // it), at the position last in line (the waiting count including itself).
    const view: QueueView = {
      settings,
      counts: { ...EMPTY_COUNTS, waiting: seq - 1, nextSeq: seq },
      pending: 0,
      head: 1,
      gone: [],
      goneSet: new Set(),
      loadedAt: at,
    };
    const [nca, deadline, reserved] = schedule(ctx, q, view, seq, "join", seq);
    if (reserved !== null) slots.push(reserved);
    rec[i] = {
      id: b64url(random.subarray(16 * i, 16 * i + 16)),
      seq,
      joinedAt: now,
      state: "waiting",
      nextCheckAt: nca,
      // Each waiter is scheduled as if the line held only those before it, so the front's
      // deadlines come early (a 5 s period); `minLifeSec` keeps them all after a run.
      deadline: Math.max(deadline, now + minLifeSec * 1000),
    };
  }
  scratch.close();
  return { q, at, settings, visitors: rec, slots };
}

/** Writes a planned line into `kv`; returns the number of keys written. */
export async function writeLine(kv: Deno.Kv, line: PlannedLine): Promise<number> {
  const { q, visitors: rec, slots } = line;
  const waiting = rec.length;
  let written = 0;
  const pass = async (order: number[], put: (op: Deno.AtomicOperation, v: Visitor) => void) => {
    // One commit in flight while the next is built: the KV thread and JS overlap.
    let inFlight: Promise<void> = Promise.resolve();
    for (let i = 0; i < order.length; i += PER_COMMIT) {
      const op = kv.atomic();
      for (const j of order.slice(i, i + PER_COMMIT)) put(op, rec[j]);
      await inFlight;
      inFlight = op.commit().then((r) => {
        if (!r.ok) throw new Error(`seeding ${q}: a commit at item ${i} failed`);
        written += Math.min(PER_COMMIT, order.length - i);
      });
    }
    await inFlight;
  };
  const bySeq = rec.map((_, i) => i);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  await pass(bySeq, (op, v) => op.set(keys.fifo(q, v.seq), v.id));
  await pass(
    [...bySeq].sort((a, b) => cmp(rec[a].id, rec[b].id)),
    (op, v) => op.set(keys.visitor(q, v.id), v),
  );
  await pass(
    [...bySeq].sort((a, b) => rec[a].deadline - rec[b].deadline || cmp(rec[a].id, rec[b].id)),
    (op, v) => op.set(keys.deadline(q, v.deadline, v.id), v.seq),
  );
  // The check-in occupancy of the seconds they were given, as join commits sum it.
  const perSec = [...new Set(slots)].sort((a, b) => a - b);
  const count = new Map<number, number>();
  for (const s of slots) count.set(s, (count.get(s) ?? 0) + 1);
  for (let i = 0; i < perSec.length; i += PER_COMMIT) {
    const op = kv.atomic();
    const secs = perSec.slice(i, i + PER_COMMIT).flatMap((s) => Array(count.get(s)!).fill(s));
    sumCheckins(op, q, secs);
    await op.commit();
  }
  const counts: Counts = { ...EMPTY_COUNTS, nextSeq: waiting + 1, waiting };
  await kv.set(keys.counts(q), counts);
  return written + perSec.length + 1;
}

/**
 * Writes `waiting` waiters of queue `q` into `kv` (`planLine` with `opts`, then `writeLine`);
 * returns the number of keys written.
 */
export async function seedLine(
  kv: Deno.Kv,
  q: string,
  waiting: number,
  rate: number,
  opts: PlanOptions = {},
): Promise<number> {
  return await writeLine(kv, await planLine(q, waiting, rate, opts));
}

if (import.meta.main) {
  const [path, waiting, rate, slack, minLife] = Deno.args;
  const started = performance.now();
  const kv = await Deno.openKv(path);
  const written = await seedLine(kv, "default", Number(waiting), Number(rate), {
    slackSec: Number(slack ?? 600),
    minLifeSec: Number(minLife ?? 0),
  });
  kv.close();
  const seconds = (performance.now() - started) / 1000;
  console.log("SEEDJSON " + JSON.stringify({ waiting: Number(waiting), keys: written, seconds }));
}
