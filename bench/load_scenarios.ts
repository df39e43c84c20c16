/**
 * `deno task load`: drives real Tollgate servers over HTTP with the load scenarios (flash
 * crowd, a long line following its timeslots, mixed traffic), prints what each measured and
 * writes it into bench/RESULTS.md. Usage: docs/testing.md, or `--help`.
 */
import { installCleanup, output, stopAll } from "./procs.ts";
import {
  attackChecks,
  type AttackRunOptions,
  attackScenario,
  attackTallies,
} from "./scenarios/attack_run.ts";
import { type Check, flashChecks, lineChecks, mixedChecks, verdict } from "./scenarios/checks.ts";
import { flashCrowd, type FlashOptions } from "./scenarios/flash.ts";
import { followLine, type LineOptions } from "./scenarios/line.ts";
import {
  loadAverage,
  machineInfo,
  renderBlock,
  type Scenario,
  SCENARIOS,
  upsertBlock,
} from "./scenarios/markdown.ts";
import { type MixedOptions, mixedTraffic } from "./scenarios/mixed.ts";
import { notesOf } from "./scenarios/notes.ts";
import { sessionChecks, sessionScenario, type SessionsOptions } from "./scenarios/sessions.ts";
import { placesScenario } from "./scenarios/places.ts";
import { placesChecks } from "./scenarios/places_checks.ts";
import type { PlacesOptions } from "./scenarios/places_plan.ts";
import type { TallySummary } from "./scenarios/tally.ts";

/** Everything a run can be told. */
export interface LoadArgs {
  scenarios: Scenario[];
  quick: boolean;
  flash: FlashOptions;
  line: LineOptions;
  mixed: MixedOptions;
  attack: AttackRunOptions;
  sessions: SessionsOptions;
  places: PlacesOptions;
  /** Where the section goes; null: nowhere. */
  results: string | null;
  strict: boolean;
  keepTmp: boolean;
}

const USAGE =
  `deno task load [--scenario flash|line|mixed|attack|sessions|places|all, or a list: flash,line] [--quick] [options]
  --quick                tiny sizes (a smoke run of a few seconds each; writes no results)
  --joins N              flash: joins (100000)
  --flash-rate N         flash: ADMIT_PER_SECOND, the drain rate (500)
  --max-waiting N        flash: MAX_WAITING_VISITORS; joins beyond answer 503 queue_full (1000000)
  --connections N        flash: join connections (64)
  --no-follow            flash: waiters do not ask for their status (no entries while draining)
  --line N               line: waiting visitors (1000000)
  --line-rate N          line: ADMIT_PER_SECOND (10)
  --clock-speed N        line: TOLLGATE_CLOCK_SPEED of the server (1; --quick: 2)
  --line-seconds N       line: server seconds followed after opening (1400)
  --mixed-seconds N      mixed: duration (300)
  --join-rate N          mixed: joins per second (50)
  --attack-visitors N    attack: ordinary visitors from their own addresses (1000)
  --attack-seconds N     attack: seconds they join over, one address attacking (60)
  --flood-rate N         attack: ordinary joins a second beside the refusal flood (200; --quick: 100)
  --flood-seconds N      attack: seconds of each refusal-flood phase, without and with (10; --quick: 3)
  --flood-instances N    attack: servers of the refusal flood, over one KV file (2)
  --nat-clock-speed N    attack: TOLLGATE_CLOCK_SPEED of the one-address NAT run (5; --quick: 10, 40 joins over 1 minute)
  --session-visitors N   sessions: visitors arriving over 10 minutes (3000)
  --session-clock-speed N  sessions: TOLLGATE_CLOCK_SPEED of its servers (20)
  --places-visitors N    places: visitors joining over a minute (1000)
  --places-clock-speed N places: TOLLGATE_CLOCK_SPEED of its server (1; --quick: 10)
  --places-mail-at N     places: MAIL_AT_POSITION, the e-mail at admission (0) or at place N
  --places-hold N        places: branding admitHoldSeconds, an admission's hold (60)
  --results PATH         where to write the section (bench/RESULTS.md; --quick: none)
  --no-results           write nothing
  --strict               exit 1 when a target is missed
  --keep-tmp             keep the temp dir (KV files, server logs)`;

/** Parses the command line; throws with a message naming a bad flag. */
export function parseArgs(argv: string[]): LoadArgs {
  const flags = new Map<string, string>();
  const bools = new Set([
    "--quick",
    "--no-follow",
    "--no-results",
    "--strict",
    "--keep-tmp",
    "--help",
  ]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (bools.has(a)) flags.set(a, "1");
    else if (a.startsWith("--") && i + 1 < argv.length) flags.set(a, argv[++i]);
    else throw new Error(`unknown or incomplete argument "${a}"\n${USAGE}`);
  }
  if (flags.has("--help")) throw new Error(USAGE);
  const known = new Set([
    ...bools,
    ...USAGE.split("\n").map((l) => /^\s+(--[a-z-]+) [A-Z]/.exec(l)?.[1]).filter(Boolean),
    "--scenario",
  ]);
  for (const k of flags.keys()) if (!known.has(k)) throw new Error(`unknown flag ${k}\n${USAGE}`);
  const quick = flags.has("--quick");
  const num = (k: string, full: number, small: number, min = 1) => {
    const raw = flags.get(k);
    if (raw === undefined) return quick ? small : full;
    const v = Number(raw);
    if (!Number.isFinite(v) || v < min) throw new Error(`invalid ${k} ${raw}: a number >= ${min}`);
    return v;
  };
  const which = flags.get("--scenario") ?? "all";
  const picked = which === "all" ? [...SCENARIOS] : which.split(",");
  for (const p of picked) {
    if (!(SCENARIOS as readonly string[]).includes(p)) {
      throw new Error(
        `invalid --scenario ${which}: flash, line, mixed, attack, sessions, places (or a list) or all`,
      );
    }
  }
  const results = flags.has("--no-results") ? null : flags.get("--results") ??
    (quick ? null : new URL("./RESULTS.md", import.meta.url).pathname);
  return {
    scenarios: picked as Scenario[],
    quick,
    flash: {
      joins: num("--joins", 100_000, 1000),
      connections: num("--connections", 64, 32),
      rate: num("--flash-rate", 500, 200, 0.1),
      maxWaiting: num("--max-waiting", 1_000_000, 1_000_000),
      drainTimeoutSec: quick ? 30 : 900,
      graceSec: quick ? 2 : 10,
      follow: !flags.has("--no-follow"),
    },
    line: {
      waiting: num("--line", 1_000_000, 1500),
      rate: num("--line-rate", 10, 10, 0.1),
      // Speed 1 by default: this 2-CPU machine answers about 1,000 due check-ins a second, so
      // a faster clock would measure its saturation, not the schedule (docs/testing.md).
      clockSpeed: num("--clock-speed", 1, 2, 0.1),
      // One whole check-in period of a million waiters (1,334 s) and the first renewals.
      seconds: num("--line-seconds", 1400, 12),
      connections: 256,
    },
    mixed: {
      seconds: num("--mixed-seconds", 300, 8),
      joinRate: num("--join-rate", 50, 50),
      leaveShare: 0.1,
      rate: 20,
      capacity: quick ? 100 : 1000,
      tokenTtlSec: quick ? 10 : 60,
      operatorEverySec: quick ? 1 : 5,
      connections: 32,
    },
    attack: {
      oneAddress: {
        visitors: num("--attack-visitors", 1000, 100),
        seconds: num("--attack-seconds", 60, 3),
        afterSeconds: quick ? 2 : 15,
        maxWaiting: 2000,
        rate: 5,
        joinConnections: 4,
        floodConnections: 4,
      },
      // 200 people behind one address over 5 minutes, in 60 s of real time; --quick keeps the
      // rate (40 a minute) over one minute at speed 10 (a faster clock shrinks the server's own
      // time limits, and store_busy answers then measure this shared machine, not the limit).
      nat: quick
        ? { visitors: 40, minutes: 1, clockSpeed: num("--nat-clock-speed", 5, 10, 0.1) }
        : { visitors: 200, minutes: 5, clockSpeed: num("--nat-clock-speed", 5, 10, 0.1) },
      writes: { visitors: quick ? 50 : 1000, attackJoinsEach: 2, heartbeatsEach: 3 },
      shadow: { visitors: quick ? 30 : 120, botWorkers: 4 },
      flood: {
        instances: num("--flood-instances", 2, 2),
        seconds: num("--flood-seconds", 10, 3),
        joinRate: num("--flood-rate", 200, 100),
        floodConnections: 4,
      },
    },
    sessions: {
      visitors: num("--session-visitors", 3000, 150),
      capacity: quick ? 10 : 200,
      arrivalSeconds: 600,
      hourSeconds: quick ? 1200 : 3600,
      clockSpeed: num("--session-clock-speed", 20, 40, 1),
      idleSeconds: 120,
      activeEverySec: 30,
      releaseShare: 0.25,
      seed: 33,
    },
    // Issue 32: 20% silent for 2 minutes, 5% moving, 5% leaving, 5% asking for the e-mail. The
    // grace (120 s) and the tokens (60 s) are short so the run ends within about 5 minutes at the
    // real clock; --quick shortens the silence and the grace and runs the clock 10 times as fast.
    places: {
      visitors: num("--places-visitors", 1000, 60),
      joinSeconds: quick ? 6 : 60,
      rate: quick ? 1 : 5,
      capacity: quick ? 10 : 250,
      tokenTtlSec: quick ? 10 : 60,
      graceSec: quick ? 60 : 120,
      silentShare: 0.2,
      silenceSec: quick ? 55 : 120,
      moveShare: 0.05,
      leaveShare: 0.05,
      mailShare: 0.05,
      mailAtPosition: num("--places-mail-at", 0, 0, 0),
      holdSec: num("--places-hold", 60, 60, 10),
      clockSpeed: num("--places-clock-speed", 1, 10, 1),
      connections: 32,
      seed: 32,
    },
    results,
    strict: flags.has("--strict"),
    keepTmp: flags.has("--keep-tmp"),
  };
}

/** One scenario's outcome. */
interface Outcome {
  name: Scenario;
  report: unknown;
  checks: Check[];
  tallies: [string, TallySummary][];
}

async function runOne(name: Scenario, a: LoadArgs, dir: string): Promise<Outcome> {
  const e = { dir, log: (m: string) => console.log(m) };
  if (name === "flash") {
    const r = await flashCrowd(e, a.flash);
    return {
      name,
      report: r,
      checks: flashChecks(r),
      tallies: [["POST /join", r.joins], ["GET /status (following timeslots)", r.statuses]],
    };
  }
  if (name === "line") {
    const r = await followLine(e, a.line);
    return {
      name,
      report: r,
      checks: lineChecks(r),
      tallies: [["GET /status (following timeslots)", r.statuses]],
    };
  }
  if (name === "sessions") {
    const r = await sessionScenario(e, a.sessions);
    return { name, report: r, checks: sessionChecks(r), tallies: [] };
  }
  if (name === "places") {
    const r = await placesScenario(e, a.places);
    return {
      name,
      report: r,
      checks: placesChecks(r),
      tallies: Object.entries(r.requests),
    };
  }
  if (name === "attack") {
    const r = await attackScenario(e, a.attack);
    return { name, report: r, checks: attackChecks(r), tallies: attackTallies(r) };
  }
  const r = await mixedTraffic(e, a.mixed);
  return {
    name,
    report: r,
    checks: mixedChecks(r),
    tallies: [
      ["POST /join", r.joins],
      ["GET /status (following timeslots)", r.statuses],
      ["POST /leave", r.leaves],
      ...Object.entries(r.operator).map(([k, t]) =>
        [`operator: ${k}`, t] as [string, TallySummary]
      ),
    ],
  };
}

async function main(): Promise<number> {
  let a: LoadArgs;
  try {
    a = parseArgs(Deno.args);
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  installCleanup();
  const dir = await Deno.makeTempDir({ prefix: "tollgate-load-" });
  const command = ["deno task load", ...Deno.args].join(" ");
  const machine = await machineInfo();
  const outcomes: Outcome[] = [];
  let failed = false;
  try {
    for (const name of a.scenarios) {
      const loadAtStart = loadAverage();
      const startedAt = new Date();
      console.log(`${name} (load average ${loadAtStart}) ...`);
      let o: Outcome;
      try {
        o = await runOne(name, a, dir);
      } catch (e) {
        const msg = e instanceof Error ? e.stack ?? e.message : String(e);
        console.log(`  FAIL  ${name} did not run to the end: ${msg}`);
        failed = true;
        outcomes.push({ name, report: { error: msg }, checks: [], tallies: [] });
        continue;
      }
      outcomes.push(o);
      for (const c of o.checks) {
        console.log(`  ${verdict(c.pass).padEnd(4)}  ${c.name}: ${c.measured} (${c.target})`);
        if (c.pass === false) failed = true;
      }
      if (a.results) {
        const run = { command, startedAt, finishedAt: new Date(), machine, loadAtStart };
        const block = renderBlock(
          name,
          { ...run, loadAtEnd: loadAverage() },
          o.checks,
          o.tallies,
          notesOf(name, o.report),
        );
        const doc = await Deno.readTextFile(a.results).catch(() =>
          "# Tollgate benchmark results\n"
        );
        await Deno.writeTextFile(a.results, upsertBlock(doc, name, block));
        await output(Deno.execPath(), ["fmt", "--quiet", a.results]);
      }
    }
  } finally {
    await stopAll();
    if (a.keepTmp) console.log(`temp files kept in ${dir}`);
    else await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  console.log(
    "LOADJSON " +
      JSON.stringify(outcomes.map(({ name, report, checks }) => ({ name, report, checks }))),
  );
  if (a.results) console.log(`wrote ${a.results}`);
  return failed && a.strict ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main());
