/**
 * Flash crowd: `joins` new visitors join as fast as the server takes them (closed loop over
 * `connections` keep-alive connections), every waiter then follows its timeslots, and the line
 * drains at the configured rate. Admissions per second come from the records' `admittedAt`.
 */
import { removeKv } from "../seeding.ts";
import { Follower } from "./follower.ts";
import { HttpPool } from "./http.ts";
import { admittedAt, doctor, type DoctorReport, type LearnGaps, learnGaps } from "./store.ts";
import { type PerSecond, perSecond, Tally, type TallySummary } from "./tally.ts";
import {
  pause,
  type ScenarioEnv,
  type ServerErrors,
  serverErrors,
  startTarget,
  type Target,
} from "./target.ts";

/** Sizes of a flash crowd. */
export interface FlashOptions {
  joins: number;
  connections: number;
  /** ADMIT_PER_SECOND of the server: the drain rate. */
  rate: number;
  /** MAX_WAITING_VISITORS: joins beyond it answer 503 `queue_full`, by design. */
  maxWaiting: number;
  /** Give up waiting for the line to drain after this many seconds. */
  drainTimeoutSec: number;
  /** Seconds the last admitted keep following after the drain, to hear of it (5 s slots). */
  graceSec: number;
  /** Waiters follow their timeslots (as browsers do); false: nobody asks after joining. */
  follow: boolean;
}

/** What a flash crowd measured. */
export interface FlashReport {
  options: FlashOptions;
  joins: TallySummary;
  joinSeconds: number;
  joinsPerSecond: number;
  /** Join errors other than `503 queue_full`: must be 0. */
  unexpectedJoinErrors: number;
  admittedAtJoin: number;
  waitingAfterJoins: number;
  /** Admissions per whole second while the line drained (records' admittedAt). */
  admissions: PerSecond & { total: number };
  drained: boolean;
  /** Seconds from the last join answer until nobody waited. */
  drainSeconds: number;
  statuses: TallySummary;
  statusPerSecond: PerSecond;
  unexpectedStatusErrors: number;
  learn: LearnGaps;
  doctor: DoctorReport;
  /** Error lines in the server's log (none is expected). */
  serverErrors: ServerErrors;
}

async function waiting(t: Target, pool: HttpPool): Promise<number> {
  const a = await pool.request({ method: "GET", path: "/metrics?queue=default", bearer: t.secret });
  if (a.status !== 200) throw new Error(`GET /metrics answered ${a.status}: ${a.body}`);
  return JSON.parse(a.body).waiting;
}

/** Runs the flash crowd against a fresh server. */
export async function flashCrowd(e: ScenarioEnv, o: FlashOptions): Promise<FlashReport> {
  const kvPath = `${e.dir}/flash.kv`;
  const t = await startTarget(e, "server-flash", kvPath, {
    ADMIT_PER_SECOND: String(o.rate),
    CAPACITY: "10000000",
    MAX_WAITING_VISITORS: String(o.maxWaiting),
  });
  const joinPool = new HttpPool(t.url, o.connections);
  const statusPool = new HttpPool(t.url, 32);
  const opPool = new HttpPool(t.url, 1);
  const follower = new Follower(statusPool, t.clock);
  const joins = new Tally();
  let admittedAtJoin = 0, sent = 0, end = 0;
  try {
    follower.start();
    e.log(`  ${o.joins} joins over ${o.connections} connections ...`);
    const started = performance.now();
    const body = JSON.stringify({ queue: "default" });
    await Promise.all(Array.from({ length: o.connections }, async () => {
      while (sent < o.joins) {
        sent++;
        const a = await joinPool.request({ method: "POST", path: "/join", body });
        joins.add(a);
        if (a.status === 202 && a.ticket && o.follow) follower.add(a.ticket);
        else if (a.status === 200) admittedAtJoin++;
      }
    }));
    const joinSeconds = (performance.now() - started) / 1000;
    const joinedAt = Date.now();
    const waitingAfterJoins = await waiting(t, opPool);
    e.log(
      `  joined in ${joinSeconds.toFixed(1)} s (${Math.round(o.joins / joinSeconds)}/s); ` +
        `${waitingAfterJoins} waiting; draining at ${o.rate}/s ...`,
    );
    let drained = waitingAfterJoins === 0;
    while (!drained && Date.now() - joinedAt < o.drainTimeoutSec * 1000) {
      await pause(1000);
      drained = (await waiting(t, opPool)) === 0;
    }
    const drainSeconds = (Date.now() - joinedAt) / 1000;
    // Stragglers hear of their admission at their next timeslot: give them one front period.
    await pause(o.graceSec * 1000);
    end = t.clock.now();
    await follower.stop();
    await t.proc.stop();
    const admitted = await admittedAt(kvPath);
    const bySec = new Map<number, number>();
    for (const at of admitted.values()) {
      const s = Math.floor(at / 1000);
      bySec.set(s, (bySec.get(s) ?? 0) + 1);
    }
    const last = Math.max(...bySec.keys());
    // Whole seconds only, from the one after the last join to the last (partial) admission.
    const admissions = {
      ...perSecond(bySec, Math.floor(t.clock.at(joinedAt) / 1000) + 1, last),
      total: admitted.size,
    };
    const firstSec = Math.min(...follower.perSecond.keys());
    return {
      options: o,
      joins: joins.summary(),
      joinSeconds,
      joinsPerSecond: o.joins / joinSeconds,
      unexpectedJoinErrors: joins.unexpected(["503 queue_full"]),
      admittedAtJoin,
      waitingAfterJoins,
      admissions,
      drained,
      drainSeconds,
      statuses: follower.tally.summary(),
      statusPerSecond: perSecond(follower.perSecond, firstSec, Math.floor(end / 1000)),
      unexpectedStatusErrors: follower.tally.errors,
      learn: learnGaps(follower, admitted, end, o.graceSec),
      doctor: await doctor(kvPath),
      serverErrors: await serverErrors(t),
    };
  } finally {
    joinPool.close();
    statusPool.close();
    opPool.close();
    await t.proc.stop();
    await removeKv(kvPath);
  }
}
