/**
 * The section bench/pow_attack.ts writes into bench/RESULTS.md: its table and what it means, with
 * the run's own numbers (the section is replaced as a whole by the next run).
 */
import { DEFAULT_JOIN_DIFFICULTY } from "../../lib/guard/settings.ts";

/** What one run measured. */
export interface PowRun {
  o: {
    seconds: number;
    visitors: number;
    difficulty: number;
    attackers: number;
    maxSolvers: number;
    cap: number;
    autoJoinsPerMinute: number;
    autoWaiting: number;
    admitPerSecond: number;
    tailSeconds: number;
  };
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
  solvers: { started: number; peakBusy: number };
  final: {
    waiting: number;
    joinGuards: { challengesIssued: number; challengesSolved: number; challengesFailed: number };
  };
  load: number[];
}

export const POW_SECTION = "## Attack: a new address per join, proof of work automatic " +
  "(bench/pow_attack.ts)";

const f0 = (n: number) => Math.round(n).toLocaleString("en");
const share = (s: { live: number; attacker: number }) =>
  `${(100 * s.attacker / Math.max(1, s.live)).toFixed(1)}% (${f0(s.attacker)} of ${f0(s.live)})`;
const refused = (m: Map<string, number>) =>
  m.size ? [...m].map(([k, v]) => `${k} ${v}`).join(", ") : "none";

/** The section's lines (its heading first). */
export function powReport(r: PowRun): string[] {
  const { o, ordinary: v, attack: a, hashRates: h } = r;
  const queueFull = v.refused.get("queue_full") ?? 0;
  const peakShare = r.peak.attacker / Math.max(1, r.peak.live);
  return [
    POW_SECTION,
    "",
    `Run ${new Date().toISOString()}: queue capped at ${o.cap} waiting rows, ${o.visitors} ` +
    `ordinary visitors from ${o.visitors} addresses over ${o.seconds} s, ${o.attackers} ` +
    `attacker thread(s) from second 5, each join from a new address (172.16.0.0/12, in order). ` +
    `Check: automatic (on at ${f0(o.autoJoinsPerMinute)} join attempts a minute or ` +
    `${f0(o.autoWaiting)} waiting), base difficulty ${f0(o.difficulty)} (the default is ` +
    `${f0(DEFAULT_JOIN_DIFFICULTY)}; see below). Devices: each visitor solving has a thread of ` +
    `its own (at most ${o.maxSolvers}), each attacker one; this machine (2 cores) runs them all, ` +
    `the server and the visitors' requests, and shares its cores by thread. The attack lasts ` +
    `while the crowd arrives (until the last ordinary visitor has a place, ` +
    `${
      r.windowSeconds.toFixed(0)
    } s here), then ${o.tailSeconds} s more with the attacker alone. ` +
    `ADMIT_PER_SECOND ${o.admitPerSecond}; load average at the end ${
      r.load.map((x) => x.toFixed(2)).join(" ")
    }.`,
    "",
    "| what | measured | target | result |",
    "| --- | --- | --- | --- |",
    `| attacker's live rows at the line's peak | ${share(r.peak)} at second ${r.peak.sec} ` +
    `| <= 10% | ${peakShare <= 0.1 ? "PASS" : "FAIL"} |`,
    `| ordinary visitors placed | ${v.placed} of ${o.visitors} (refused: ${refused(v.refused)}; ` +
    `joins sent again after 503 store_busy, as the page does: ${v.busyRetries}) ` +
    `| all, 0 queue_full | ${v.placed === o.visitors && queueFull === 0 ? "PASS" : "FAIL"} |`,
    `| ordinary visitors admitted in arrival order | ${v.order.admitted} admitted, ` +
    `${v.order.outOfOrder} out of order, ${v.order.skipped} passed over | 0 out of order, ` +
    `0 passed over | ${
      v.order.admitted > 0 && v.order.outOfOrder === 0 && v.order.skipped === 0 ? "PASS" : "FAIL"
    } |`,
    `| ordinary visitors: arrival to place (p50, p95, max) | ${
      v.toPlace.map((s) => `${s.toFixed(1)} s`).join(", ")
    } | (info) | info |`,
    `| ordinary visitors that had to solve; solver threads started, most at once | ` +
    `${v.challenged}; ${r.solvers.started}, ${r.solvers.peakBusy} | (info) | info |`,
    `| hashes a second while the crowd arrived: the crowd's threads, the attacker's | ` +
    `${f0(h.crowd)}, ${f0(h.attacker)} (${(h.crowd / Math.max(1, h.attacker)).toFixed(1)} x) ` +
    `| (info) | info |`,
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
}

/** What the run means, in its own numbers. */
function explain(r: PowRun): string[] {
  const { o, hashRates: h } = r;
  const perSecond = o.visitors / o.seconds;
  const demand = perSecond * o.difficulty;
  const used = h.crowd + h.attacker;
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
    `${f0(o.visitors / 9)} places while the crowd takes ${perSecond.toFixed(1)} a second: the ` +
    "crowd's devices must hash about 9 times as fast as the attacker's. Out there a thousand " +
    "phones have that over one computer; here the crowd and the attacker share 2 cores, so each " +
    "visitor solving gets a thread (each person brings a device), the attacker one, and the OS " +
    "shares the cores by thread: while k visitors solve, the attacker's thread gets about " +
    "1/(k+1) of the hashing, but only while the crowd keeps the cores busy. The base difficulty " +
    "is chosen for that: the crowd's demand, joins a second times the difficulty, was " +
    `${f0(demand)} hashes a second against the ${f0(used)} all solver threads got (` +
    `${(demand / Math.max(1, used)).toFixed(2)} x). Below 1 the attacker's thread takes every ` +
    "idle moment of the cores (a lower difficulty, or a quieter machine, gives it 20% and more); " +
    "above 1 the visitors wait for each other (the arrival-to-place row). The server runs at a " +
    "higher priority than the devices' threads (nice 0 against 10): out there it has a machine " +
    "of its own.",
    "",
    "What it does not show. Thread for thread, each visitor's device hashes as fast as the " +
    "attacker's computer, where a phone runs the loop 3 to 5 times slower than a core, so the " +
    "split favours the crowd. Once the crowd has its places the attacker's thread has a whole " +
    `core (${f0(h.attackerAlone)} hashes a second; the row after the crowd). Out there, at the ` +
    `default difficulty, that core takes ${atDefault.toFixed(1)} places a second whatever the ` +
    `crowd does: over the ${attackSeconds} s of attack on a ${o.seconds} s crowd about ` +
    `${f0(outThere)} places, ${(100 * outThere / (o.visitors + outThere)).toFixed(1)}% of this ` +
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
