/** The targets for each scenario, evaluated on its report. */
import type { FlashReport } from "./flash.ts";
import type { LineReport } from "./line.ts";
import type { MixedReport } from "./mixed.ts";
import type { DoctorReport } from "./store.ts";
import type { ServerErrors } from "./target.ts";

/** One target: what was measured, what was wanted, and whether it was met (null: shown only). */
export interface Check {
  name: string;
  measured: string;
  target: string;
  pass: boolean | null;
}

/** Whole numbers with thousands separators. */
export const f0 = (x: number) => Math.round(x).toLocaleString("en-US");
/** Milliseconds with one decimal. */
export const ms = (x: number) => `${x.toFixed(1)} ms`;

const zero = (name: string, n: number): Check => ({
  name,
  measured: f0(n),
  target: "0",
  pass: n === 0,
});

const healthy = (name: string, d: DoctorReport): Check => ({
  name,
  measured: d.healthy
    ? `healthy (${f0(d.visitors)} records)`
    : `${d.counterDiffs.join(", ")} ${d.indexProblems.slice(0, 3).join("; ")}`,
  target: "counters equal a recount, indexes consistent",
  pass: d.healthy,
});

const logClean = (e: ServerErrors): Check => ({
  name: "error lines in the server's log",
  measured: e.count ? `${f0(e.count)}: ${e.messages.join("; ")}` : "0",
  target: "0",
  pass: e.count === 0,
});

/** Checks of the flash crowd. */
export function flashChecks(r: FlashReport): Check[] {
  const a = r.admissions;
  const off = a.seconds ? Math.abs(a.mean / r.options.rate - 1) : 1;
  return [
    {
      name: "joins/s (as fast as the server takes them)",
      measured: `${f0(r.joinsPerSecond)}/s, p50 ${ms(r.joins.p50Ms)}, p99 ${ms(r.joins.p99Ms)}`,
      target: "reported",
      pass: null,
    },
    zero("join errors besides `503 queue_full`", r.unexpectedJoinErrors),
    zero("status errors while draining", r.unexpectedStatusErrors),
    {
      name: "admissions per second while the line drains",
      measured: `mean ${
        a.mean.toFixed(1)
      }, p50 ${a.p50}, min ${a.min}, max ${a.max} over ${a.seconds} s`,
      target: `${r.options.rate}/s +- 5% (ADMIT_PER_SECOND)`,
      pass: off <= 0.05,
    },
    {
      name: "line drained",
      measured: r.drained ? `in ${r.drainSeconds.toFixed(0)} s` : "no",
      target: `within ${r.options.drainTimeoutSec} s`,
      pass: r.drained,
    },
    // The issue asks this of the long line; here it is shown, not judged.
    { ...learnCheck(r.learn, "followed visitors learn their admission"), pass: null },
    healthy("store after the run (queue doctor)", r.doctor),
    logClean(r.serverErrors),
  ];
}

/** The learn-gap check shared by the line and the flash crowd. */
export function learnCheck(l: FlashReport["learn"], name: string): Check {
  return {
    name,
    measured: l.admitted
      ? `p95 ${l.p95Sec.toFixed(2)} s, p50 ${l.p50Sec.toFixed(2)} s, max ${
        l.maxSec.toFixed(2)
      } s (${f0(l.admitted)} admitted, ${l.notLearned} never told)`
      : "nobody admitted in time to count",
    target: "p95 <= 5 s",
    pass: l.admitted > 0 && l.notLearned === 0 && l.p95Sec <= 5,
  };
}

/** Checks of the long line. */
export function lineChecks(r: LineReport): Check[] {
  const s = r.statusPerSecond;
  return [
    {
      name: `status requests per server second, ${f0(r.options.waiting)} waiting`,
      measured: `p99 ${s.p99}, mean ${s.mean.toFixed(0)}, max ${s.max} over ${s.seconds} s`,
      target: "p99 <= 790 (budget 750)",
      pass: s.seconds > 0 && s.p99 <= 790,
    },
    {
      name: "the same, counted by the second the driver sent them",
      measured: `p99 ${r.sentPerSecond.p99}, mean ${
        r.sentPerSecond.mean.toFixed(0)
      }, max ${r.sentPerSecond.max}`,
      target: "reported",
      pass: null,
    },
    learnCheck(r.learn, "admitted visitors learn it (server time)"),
    zero("status errors", r.unexpectedStatusErrors),
    {
      name: "driver on time (request sent after its timeslot)",
      measured: `p50 ${f0(r.lateMs.p50)} ms, p99 ${f0(r.lateMs.p99)} ms (server time)`,
      target: "reported",
      pass: null,
    },
    healthy("seeded store (queue doctor)", r.seed.doctor),
    healthy("store after the run (queue doctor)", r.doctor),
    logClean(r.serverErrors),
  ];
}

/** Checks of the mixed traffic. */
export function mixedChecks(r: MixedReport): Check[] {
  const kinds = [r.joins, r.statuses, r.leaves, ...Object.values(r.operator)];
  return [
    zero("errors of any kind", r.unexpectedErrors),
    {
      name: "every kind of request ran",
      measured: `joins ${f0(r.joins.requests)}, statuses ${f0(r.statuses.requests)}, leaves ${
        f0(r.leaves.requests)
      }, operator ${Object.keys(r.operator).length} kinds`,
      target: "all > 0, 6 operator kinds",
      pass: kinds.every((k) => k.requests > 0) && Object.keys(r.operator).length === 6,
    },
    {
      name: "admissions per second",
      measured: `${(r.admittedTotal / r.options.seconds).toFixed(1)} (${
        f0(r.admittedTotal)
      } in all)`,
      target: `reported; slots allow ${
        Math.min(r.options.rate, r.options.capacity / r.options.tokenTtlSec).toFixed(1)
      }/s less the paused time`,
      pass: null,
    },
    healthy("store after the run (queue doctor)", r.doctor),
    logClean(r.serverErrors),
  ];
}

/** `PASS`, `FAIL` or `info`. */
export const verdict = (p: boolean | null) => (p === null ? "info" : p ? "PASS" : "FAIL");
