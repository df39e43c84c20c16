/**
 * The section bench/pow_attack.ts writes into bench/RESULTS.md: its table and what it means, with
 * the run's own numbers (the section is replaced as a whole by the next run).
 */
import { DEFAULT_JOIN_DIFFICULTY } from "../../lib/guard/settings.ts";
import type { Calibration, JoinCommits } from "./pow_calibrate.ts";

/** What one run measured. */
export interface PowRun {
  o: {
    seconds: number;
    visitors: number;
    difficulty: number;
    /** True when `--difficulty` stated it; else margin x the calibrated capacity. */
    stated: boolean;
    margin: number;
    serverNice: number;
    attackers: number;
    maxSolvers: number;
    cap: number;
    autoJoinsPerMinute: number;
    autoWaiting: number;
    admitPerSecond: number;
    tailSeconds: number;
  };
  /**
   * Hashing measured before the run with one thread a core (the basis of the difficulty) and
   * with the run's threads, and with one thread a core after it.
   */
  calibration: { basis: Calibration; runThreads: Calibration; after: Calibration };
  /** The line's peak while the crowd arrived, and the last sample (after the tail). */
  peak: { sec: number; live: number; attacker: number };
  tail: { sec: number; live: number; attacker: number };
  /** From the start to the last ordinary visitor placed. */
  windowSeconds: number;
  ordinary: {
    placed: number;
    challenged: number;
    busyRetries: number;
    refused: Map<string, number>;
    /** Arrival to place, seconds: p50, p95, max. */
    toPlace: number[];
    order: { admitted: number; outOfOrder: number; skipped: number };
  };
  attack: {
    joined: number;
    solved: number;
    tries: number;
    windowJoined: number;
    refused: Map<string, number>;
  };
  /** Hashes per second in the crowd's window (the attacker's from its start). */
  hashRates: { crowd: number; attacker: number; attackerAlone: number };
  /**
   * Solver threads: started, most at once, the mean busy at each second of the attack while the
   * crowd arrived, and how many of those seconds all were busy (visitors waiting for a thread).
   */
  solvers: {
    started: number;
    peakBusy: number;
    meanBusy: number;
    fullSeconds: number;
    attackSeconds: number;
  };
  /** Cores' worth of CPU time while the crowd arrived: this driver, the server, the machine. */
  cpu: { devices: number; server: number; busy: number; all: number };
  final: {
    waiting: number;
    joinGuards: { challengesIssued: number; challengesSolved: number; challengesFailed: number };
  };
  /** The server's join commits over the whole run (its /metrics). */
  commits: JoinCommits;
  load: number[];
}

export const POW_SECTION = "## Attack: a new address per join, proof of work automatic " +
  "(bench/pow_attack.ts)";

const f0 = (n: number) => Math.round(n).toLocaleString("en");
const pct = (n: number) => `${(100 * n).toFixed(1)}%`;
const share = (s: { live: number; attacker: number }) =>
  `${pct(s.attacker / Math.max(1, s.live))} (${f0(s.attacker)} of ${f0(s.live)})`;
const refused = (m: Map<string, number>) =>
  m.size ? [...m].map(([k, v]) => `${k} ${v}`).join(", ") : "none";

/** One run in a line: what `--runs` lists, and whether it passed. */
export interface RunSummary {
  at: string;
  difficulty: number;
  /** The attacker's live rows over all, at the line's peak while the crowd arrived. */
  share: number;
  /** The crowd's joins a second x difficulty over the calibrated capacity (before the run). */
  demand: number;
  /** The same over what all solver threads hashed while the crowd arrived. */
  achieved: number;
  /** Seconds of the attack, while the crowd arrived, with every solver thread busy (share). */
  full: number;
  /** Cores' worth of CPU time other work on this machine took, and left idle, meanwhile. */
  others: number;
  idle: number;
  placed: number;
  busyRetries: number;
  toPlaceP50: number;
  pass: { share: boolean; placed: boolean; order: boolean };
}

/** The run's one-line summary. */
export function summarize(r: PowRun): RunSummary {
  const { o, ordinary: v, hashRates: h, cpu } = r;
  const demand = o.visitors / o.seconds * o.difficulty;
  return {
    at: new Date().toISOString(),
    difficulty: o.difficulty,
    share: r.peak.attacker / Math.max(1, r.peak.live),
    demand: demand / r.calibration.basis.capacity,
    achieved: demand / Math.max(1, h.crowd + h.attacker),
    full: r.solvers.fullSeconds / Math.max(1, r.solvers.attackSeconds),
    others: Math.max(0, cpu.busy - cpu.devices - cpu.server),
    idle: Math.max(0, cpu.all - cpu.busy),
    placed: v.placed,
    busyRetries: v.busyRetries,
    toPlaceP50: v.toPlace[0],
    pass: {
      share: r.peak.attacker / Math.max(1, r.peak.live) <= 0.1,
      placed: v.placed === o.visitors && !v.refused.get("queue_full"),
      order: v.order.admitted > 0 && v.order.outOfOrder === 0 && v.order.skipped === 0,
    },
  };
}

/** True when every target of the run passed. */
export const passed = (s: RunSummary) => s.pass.share && s.pass.placed && s.pass.order;

const ok = (b: boolean) => (b ? "PASS" : "FAIL");

/** The section's lines (its heading first), and the run's summary. */
export function powReport(r: PowRun): { lines: string[]; summary: RunSummary } {
  const {
    o,
    ordinary: v,
    attack: a,
    hashRates: h,
    calibration: { basis: c, runThreads: rt, after },
    cpu,
  } = r;
  const sum = summarize(r);
  const lines = [
    POW_SECTION,
    "",
    `Run ${sum.at}: queue capped at ${o.cap} waiting rows, ${o.visitors} ` +
    `ordinary visitors from ${o.visitors} addresses over ${o.seconds} s, ${o.attackers} ` +
    `attacker thread(s) from second 5, each join from a new address (172.16.0.0/12, in order). ` +
    `Check: automatic (on at ${f0(o.autoJoinsPerMinute)} join attempts a minute or ` +
    `${f0(o.autoWaiting)} waiting), base difficulty ${f0(o.difficulty)} (the default is ` +
    `${f0(DEFAULT_JOIN_DIFFICULTY)}; see below). Devices: each visitor solving has a thread of ` +
    `its own (at most ${o.maxSolvers}), each attacker one, all at the same priority; this ` +
    `machine (${c.cores} cores) runs them all, the server and the visitors' requests, and shares ` +
    `its cores by thread. The attack lasts while the crowd arrives (until the last ordinary ` +
    `visitor has a place, ${r.windowSeconds.toFixed(0)} s here), then ${o.tailSeconds} s more ` +
    `with the attacker alone. ADMIT_PER_SECOND ${o.admitPerSecond}; load average at the end ${
      r.load.map((x) => x.toFixed(2)).join(" ")
    }.`,
    "",
    `Difficulty: ${
      o.stated ? "stated (`--difficulty`)" : `${o.margin} x the calibrated capacity`
    }. Calibration before the run, at the devices' priority: one thread a core hashed ` +
    `${f0(c.perCore)} a CPU second, x ${c.cores} cores = ${f0(c.capacity)} a second, the most ` +
    `the devices' threads can hash here together; so the crowd's ` +
    `${(o.visitors / o.seconds).toFixed(1)} joins a second x ${f0(o.difficulty)} = ` +
    `${f0(o.visitors / o.seconds * o.difficulty)} hashes a second, ${sum.demand.toFixed(2)} x ` +
    `that. The run's ${rt.threads} threads, measured next, got ${f0(rt.perCore)} a CPU second ` +
    `(${pct(rt.perCore / c.perCore)} of it: they share the cores' caches and switch more) on ` +
    `${rt.cpuShare.toFixed(2)} cores, ${f0(rt.wallRate)} a second. One thread a core after the ` +
    `run: ${f0(after.perCore)} a CPU second (${pct(after.perCore / c.perCore - 1)}).`,
    "",
    "| what | measured | target | result |",
    "| --- | --- | --- | --- |",
    `| attacker's live rows at the line's peak | ${share(r.peak)} at second ${r.peak.sec} ` +
    `| <= 10% | ${ok(sum.pass.share)} |`,
    `| ordinary visitors placed | ${v.placed} of ${o.visitors} (refused: ${refused(v.refused)}; ` +
    `joins sent again after 503 store_busy, as the page does: ${v.busyRetries}) ` +
    `| all, 0 queue_full | ${ok(sum.pass.placed)} |`,
    `| ordinary visitors admitted in arrival order | ${v.order.admitted} admitted, ` +
    `${v.order.outOfOrder} out of order, ${v.order.skipped} passed over | 0 out of order, ` +
    `0 passed over | ${ok(sum.pass.order)} |`,
    `| ordinary visitors: arrival to place (p50, p95, max) | ${
      v.toPlace.map((s) => `${s.toFixed(1)} s`).join(", ")
    } | (info) | info |`,
    `| ordinary visitors that had to solve; solver threads started, most at once; busy on ` +
    `average during the attack, seconds all busy | ${v.challenged}; ${r.solvers.started}, ` +
    `${r.solvers.peakBusy}; ${r.solvers.meanBusy.toFixed(1)}, ${r.solvers.fullSeconds} of ` +
    `${r.solvers.attackSeconds} | (info) | info |`,
    `| hashes a second while the crowd arrived: the crowd's threads, the attacker's; demand over ` +
    `what they hashed | ${f0(h.crowd)}, ${f0(h.attacker)} ` +
    `(${(h.crowd / Math.max(1, h.attacker)).toFixed(1)} x); ${sum.achieved.toFixed(2)} x ` +
    `| (info) | info |`,
    `| CPU from the attack's start until the crowd had its places, in cores: the devices and ` +
    `the visitors' requests, the server, other work on this machine, idle | ${
      cpu.devices.toFixed(2)
    }, ` +
    `${cpu.server.toFixed(2)}, ${sum.others.toFixed(2)}, ${sum.idle.toFixed(2)} | (info) | info |`,
    `| the server's join commits: in all, over 1 s (the deadline is 2.5 s), failed | ` +
    `${f0(r.commits.count)}, ${f0(r.commits.overSecond)}, ${
      f0(r.commits.failed)
    } | (info) | info |`,
    `| attacker joins while the crowd arrived; in all (solved); refused | ${f0(a.windowJoined)}; ` +
    `${f0(a.joined)} (${f0(a.solved)}); ${refused(a.refused)} | (info) | info |`,
    `| after the crowd: ${o.tailSeconds} s with the attacker alone | ${share(r.tail)}, its ` +
    `thread hashing ${f0(h.attackerAlone)} a second | (info) | info |`,
    `| metrics at the end | waiting ${r.final.waiting}, challenges issued ` +
    `${r.final.joinGuards.challengesIssued}, solved ${r.final.joinGuards.challengesSolved}, ` +
    `failed ${r.final.joinGuards.challengesFailed} | (info) | info |`,
    "",
    ...explain(r),
  ];
  return { lines, summary: sum };
}

/** The `--runs` table: one line per run, and how many passed. */
export function runsTable(runs: RunSummary[]): string[] {
  const n = runs.filter(passed).length;
  return [
    `Runs in this invocation: ${n} of ${runs.length} passed every target (the table above is the ` +
    `last run's). "Demand" is the crowd's joins a second x difficulty over the calibrated ` +
    `capacity, "achieved" over what the solver threads hashed; "all busy" is the share of the ` +
    `attack's seconds with every solver thread busy; "others" the cores other work here took.`,
    "",
    "| run | difficulty | attacker at the peak | demand | achieved | all busy | others, idle | " +
    "placed (sent again) | arrival to place p50 | result |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...runs.map((s, i) =>
      `| ${i + 1} | ${f0(s.difficulty)} | ${pct(s.share)} | ${s.demand.toFixed(2)} x | ` +
      `${s.achieved.toFixed(2)} x | ${pct(s.full)} | ${s.others.toFixed(2)}, ` +
      `${s.idle.toFixed(2)} | ${s.placed} (${s.busyRetries}) | ${s.toPlaceP50.toFixed(1)} s | ${
        passed(s)
          ? "PASS"
          : `FAIL (${Object.entries(s.pass).filter(([, v]) => !v).map(([k]) => k).join(", ")})`
      } |`
    ),
    "",
  ];
}

/** What the run means, in its own numbers. */
function explain(r: PowRun): string[] {
  const { o, hashRates: h } = r;
  const n = r.calibration.basis.cores;
  const perSecond = o.visitors / o.seconds;
  const atDefault = h.attackerAlone / DEFAULT_JOIN_DIFFICULTY;
  // Out there the crowd arrives in its 60 s whatever the attacker does: 55 s of attack.
  const attackSeconds = o.seconds - 5;
  const outThere = atDefault * attackSeconds;
  const tenth = o.visitors / 9;
  const forTenth = h.attackerAlone * attackSeconds / tenth;
  return [
    "What this stands for. With a new address for every join nothing tells the attacker's joins " +
    "from a visitor's, so each pays the same price and the attacker's share of the line is its " +
    `hashing over everyone's. For at most 10% of a crowd of ${f0(o.visitors)} it may take about ` +
    `${f0(tenth)} places while the crowd takes ${perSecond.toFixed(1)} a second: the ` +
    "crowd's devices must hash about 9 times as fast as the attacker's. Out there a thousand " +
    `phones have that over one computer; here the crowd and the attacker share ${n} cores, so ` +
    "each visitor solving gets a thread (each person brings a device), the attacker one, and " +
    "the OS shares the cores by thread: while k visitors solve, the attacker's thread gets " +
    "about 1/(k+1) of the hashing, but only while the crowd keeps the cores busy; when it " +
    "does not, the attacker's thread takes every idle moment (20% of the line and more). Hence " +
    "the calibrated difficulty: the crowd asks for more hashing than every core here gives even " +
    "when nothing else runs, so other work on the machine can only make the crowd's backlog " +
    "longer, never leave the cores to the attacker. The price of that is the visitors' wait " +
    `(the arrival-to-place row): on ${n} cores they solve one after another, where out ` +
    "there each has a phone of its own. The server runs at a higher priority than the devices' threads " +
    `(nice ${o.serverNice} against 10): out there it has a machine of its own.`,
    "",
    "What it does not show. Thread for thread, each visitor's device hashes as fast as the " +
    "attacker's computer, where a phone runs the loop 3 to 5 times slower than a core, so the " +
    "split favours the crowd. Once the crowd has its places the attacker's thread has a whole " +
    `core (${f0(h.attackerAlone)} hashes a second; the row after the crowd). Out there, at the ` +
    `default difficulty, that core takes ${atDefault.toFixed(1)} places a second whatever the ` +
    `crowd does: over the ${attackSeconds} s of attack on a ${o.seconds} s crowd about ` +
    `${f0(outThere)} places, ${pct(outThere / (o.visitors + outThere))} of this ` +
    `line. Holding one such core to 10% (${f0(tenth)} places) takes a difficulty of about ` +
    `${f0(forTenth)}, ${(forTenth / h.attackerAlone * 3).toFixed(1)} to ` +
    `${(forTenth / h.attackerAlone * 5).toFixed(1)} s on a phone 3 to 5 times slower than it. ` +
    "The check is a price per place, the same for everyone: a script gets a few places a second " +
    "per core instead of thousands; more cores, or a GPU (SHA-256 runs there thousands of times " +
    "faster), pay it easily. Enqueue tokens from the operator's site (one place per person the " +
    "site knows) are the answer to that; the per-address limits stop one address, not a botnet " +
    "or a proxy service with an address per join, which is what this scenario assumes.",
    "",
  ];
}
