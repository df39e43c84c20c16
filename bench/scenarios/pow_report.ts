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
    fill: number;
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
  /** Hashes a second of this machine on `maxSolvers` threads, measured before the run. */
  machineRate: number;
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
  const atDefault = h.attackerAlone / DEFAULT_JOIN_DIFFICULTY;
  return [
    POW_SECTION,
    "",
    `Run ${new Date().toISOString()}: queue capped at ${o.cap} waiting rows, ${o.visitors} ` +
    `ordinary visitors from ${o.visitors} addresses over ${o.seconds} s, ${o.attackers} ` +
    `attacker thread(s) from second 5, each join from a new address (172.16.0.0/12, in order). ` +
    `Check: automatic (on at ${f0(o.autoJoinsPerMinute)} join attempts a minute or ` +
    `${f0(o.autoWaiting)} waiting), base difficulty ${f0(o.difficulty)}: this machine hashed ` +
    `${
      f0(r.machineRate)
    } a second on ${o.maxSolvers} threads (the best of 4 one-second windows before the run), over the ` +
    `crowd's ${(o.visitors / o.seconds).toFixed(1)} joins a second${
      o.fill === 1 ? "" : `, times ${o.fill}`
    } (the default is ${
      f0(DEFAULT_JOIN_DIFFICULTY)
    }; see below). Devices: each visitor solving has a thread of ` +
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
    "What this stands for. With a new address for every join nothing tells the attacker's joins " +
    "from a visitor's, so each pays the same price and the attacker's share of the line is its " +
    "hashing over everyone's. For at most 10% over a 60 s crowd of 1,000 it may take about 111 " +
    "places, under 2 a second, while the crowd takes 16.7 a second: the crowd's devices must hash " +
    "about 9 times as fast as the attacker's. Out there they do without trying (a thousand phones " +
    "against one computer); on this machine the crowd and the attacker share 2 cores, so the " +
    "scenario gives every visitor solving a thread of its own and the attacker one, and the " +
    "base difficulty is set so the crowd's solving fills the cores (joins a second times the " +
    `difficulty${
      o.fill === 1 ? "" : `, ${o.fill} times`
    } what the cores hash): while k visitors solve, ` +
    "the attacker's thread gets " +
    "about 1/(k+1) of the hashing. A lower difficulty leaves the cores idle part of the time, " +
    "and the attacker's thread takes all of that; a higher one makes the visitors wait for " +
    `each other; the default (${f0(DEFAULT_JOIN_DIFFICULTY)}) is more than 2 cores can solve ` +
    `for ${(o.visitors / o.seconds).toFixed(1)} visitors a second.`,
    "",
    "What it does not show. Once the crowd has its places the attacker's thread has a whole core " +
    `(the last row: ${f0(h.attackerAlone)} hashes a second), so at this run's low difficulty it ` +
    `takes about ${(h.attackerAlone / o.difficulty).toFixed(1)} places a second; at the default ` +
    `difficulty the same core takes about ${atDefault.toFixed(1)} a second, so ${
      f0(111 / Math.max(0.01, atDefault))
    } s of one core buy a 10% share of this line. That is the check's whole promise: a price per ` +
    "place, the same for everyone, high enough that a script gains a few places a second per " +
    "core instead of thousands. An attacker with many cores (or a GPU: SHA-256 runs there " +
    "thousands of times faster) pays it easily; enqueue tokens from the operator's site, which " +
    "vouch for a person, are the answer to that. The per-address limits stop one address; a " +
    "botnet or a proxy service gives an address per join, which is what this scenario assumes.",
    "",
  ];
}
