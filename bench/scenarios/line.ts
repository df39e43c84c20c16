/**
 * A long line following its timeslots: `waiting` visitors are written straight into a KV file
 * in the engine's layout (bench/seed.ts: each scheduled by the engine's own `schedule()` as if
 * the line had joined just before the queue opens), the driver mints their tickets with the
 * server's secret, and then sends each visitor's status at its `nextCheckAt`, taking the next one
 * from every answer. The server may run a faster clock (TOLLGATE_CLOCK_SPEED), so a whole
 * check-in period of a million waiters passes in minutes; everything is counted in server time.
 */
import { percentile } from "../checkins_sim.ts";
import { removeKv } from "../seeding.ts";
import { planLine, writeLine } from "../seed.ts";
import { periodSeconds } from "../../lib/queue/timeslot.ts";
import { keys } from "../../lib/store/keys.ts";
import { Signer } from "../../lib/tokens.ts";
import { Follower } from "./follower.ts";
import { HttpPool } from "./http.ts";
import { admittedAt, doctor, type DoctorReport, type LearnGaps, learnGaps } from "./store.ts";
import { type PerSecond, perSecond, type TallySummary } from "./tally.ts";
import {
  newSecret,
  pause,
  type ScenarioEnv,
  type ServerErrors,
  serverErrors,
  startTarget,
} from "./target.ts";

const Q = "default";

/** Sizes of the line scenario. */
export interface LineOptions {
  waiting: number;
  /** ADMIT_PER_SECOND (CAPACITY is 10,000,000, so this is the line's admission rate). */
  rate: number;
  /** TOLLGATE_CLOCK_SPEED of the server. */
  clockSpeed: number;
  /** Server seconds followed after the queue opens. */
  seconds: number;
  /** Connections the statuses go over. */
  connections: number;
}

/** What the line scenario measured. */
export interface LineReport {
  options: LineOptions;
  seed: { visitors: number; keys: number; seconds: number; doctor: DoctorReport };
  /** Check-in period of the seeded line, server seconds. */
  periodSec: number;
  /** Server seconds past the opening when the driver was ready (0: on time). */
  lateStartSec: number;
  statuses: TallySummary;
  /** Status requests per server second of their timeslot, from the opening to the end. */
  statusPerSecond: PerSecond;
  /** The same by the server second they were sent in. */
  sentPerSecond: PerSecond;
  /** How late requests went out after their timeslot (server ms): p50 and p99. */
  lateMs: { p50: number; p99: number };
  unexpectedStatusErrors: number;
  admitted: number;
  learn: LearnGaps;
  doctor: DoctorReport;
  /** Error lines in the server's log (none is expected). */
  serverErrors: ServerErrors;
  realSeconds: number;
}

/** Runs the line scenario. */
export async function followLine(e: ScenarioEnv, o: LineOptions): Promise<LineReport> {
  const started = performance.now();
  const kvPath = `${e.dir}/line.kv`;
  // Time to seed, check and mint and start the server, with room to spare (a faster server clock
  // makes short work of what is left). About 1M waiters a minute on a quiet machine, but 250 s
  // when other work shared the 2 CPUs (2026-11-25): a late start sends every missed slot at once,
  // and the backlog delays the front's check-ins (and so the learning of admission) for a minute
  // or more. So 3 s per 1000 waiters: 337 s for 1M.
  const slackSec = 3 + Math.ceil(o.waiting / 3000);
  e.log(`  seeding ${o.waiting} waiters (the queue opens in ${slackSec} s) ...`);
  let plan = await planLine(Q, o.waiting, o.rate, { slackSec, capacity: 10_000_000 });
  const at = plan.at;
  const kv = await Deno.openKv(kvPath);
  const written = await writeLine(kv, plan);
  // Opening at the seeded time: no admission before the line is in place and followed.
  await kv.set(keys.queue(Q), { ...plan.settings, opensAt: at });
  kv.close();
  const seedSeconds = (performance.now() - started) / 1000;
  const seedDoctor = await doctor(kvPath);
  const secret = newSecret();
  const signer = new Signer(secret);
  const iat = Math.floor(at / 1000);
  const tickets: [string, number][] = [];
  for (const v of plan.visitors) {
    const t = await signer.signTicket({
      sub: v.id,
      queue: Q,
      iat,
      seq: v.seq,
      nextCheckAt: v.nextCheckAt,
    });
    tickets.push([t, v.nextCheckAt]);
  }
  plan = { ...plan, visitors: [], slots: [] };
  const prepSeconds = (performance.now() - started) / 1000;
  e.log(
    `  seeded in ${seedSeconds.toFixed(1)} s, doctor: ${
      seedDoctor.healthy ? "healthy" : "NOT healthy"
    }, tickets minted, ${prepSeconds.toFixed(1)} s in all`,
  );
  const t = await startTarget(e, "server-line", kvPath, {
    TOKEN_SECRET: secret,
    ADMIT_PER_SECOND: String(o.rate),
    CAPACITY: "10000000",
    MAX_WAITING_VISITORS: "50000000",
    // Tokens outlast the run: an expired slot deletes its record, and with it the `admittedAt`
    // the learning gap is measured from.
    ACCESS_TOKEN_TTL_SECONDS: String(Math.min(604_800, Math.ceil(o.seconds) + 3600)),
  }, o.clockSpeed);
  const pool = new HttpPool(t.url, o.connections);
  const follower = new Follower(pool, t.clock);
  try {
    for (const [ticket, nca] of tickets) follower.add(ticket, nca);
    tickets.length = 0;
    const lateStartSec = Math.max(0, (t.clock.now() - at) / 1000);
    if (lateStartSec > 0) {
      e.log(
        `  warning: ready ${lateStartSec.toFixed(1)} s after the opening; late slots go at once`,
      );
    }
    const end = at + o.seconds * 1000;
    e.log(
      `  following ${o.waiting} waiters for ${o.seconds} server s at clock speed ${o.clockSpeed} ` +
        `(${Math.round(t.clock.msUntil(end) / 1000)} s real) ...`,
    );
    follower.start();
    await pause(t.clock.msUntil(end));
    await follower.stop();
    await t.proc.stop();
    const admitted = await admittedAt(kvPath);
    const late = follower.lateMs;
    return {
      options: o,
      seed: { visitors: o.waiting, keys: written, seconds: seedSeconds, doctor: seedDoctor },
      periodSec: periodSeconds(o.waiting),
      lateStartSec,
      statuses: follower.tally.summary(),
      // From the first second with check-ins (the one after the opening) to the end.
      statusPerSecond: perSecond(follower.perSecond, at / 1000 + 1, Math.floor(end / 1000)),
      sentPerSecond: perSecond(follower.sentPerSecond, at / 1000 + 1, Math.floor(end / 1000)),
      lateMs: { p50: percentile(late, 50), p99: percentile(late, 99) },
      unexpectedStatusErrors: follower.tally.errors,
      admitted: admitted.size,
      learn: learnGaps(follower, admitted, end),
      doctor: await doctor(kvPath),
      serverErrors: await serverErrors(t),
      realSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    pool.close();
    await t.proc.stop();
    await removeKv(kvPath);
  }
}
