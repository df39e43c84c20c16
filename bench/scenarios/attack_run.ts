/**
 * The `attack` scenario of `deno task load`: one fixed address attacking a line of ordinary
 * visitors (bench/scenarios/attack.ts), many people behind one address (nat.ts), the KV
 * commits per ordinary visitor under attack (attack_writes.ts), and a flood of refused joins
 * beside ordinary ones (refusal_flood.ts), and a bot against the shadow line (shadow.ts); their
 * targets and notes.
 */
import { ATTACKER_IP, type AttackOptions, type AttackReport, oneAddressAttack } from "./attack.ts";
import { countWrites, type WritesOptions, type WritesReport } from "./attack_writes.ts";
import { type Check, f0 } from "./checks.ts";
import { behindOneAddress, type NatOptions, type NatReport } from "./nat.ts";
import { POW_SECTION } from "./pow_report.ts";
import {
  refusalFlood,
  type RefusalFloodOptions,
  type RefusalFloodReport,
} from "./refusal_flood.ts";
import { shadowLineAttack, type ShadowOptions, type ShadowReport } from "./shadow.ts";
import type { TallySummary } from "./tally.ts";
import type { ScenarioEnv } from "./target.ts";

/** Sizes of the five parts. */
export interface AttackRunOptions {
  oneAddress: AttackOptions;
  nat: NatOptions;
  writes: WritesOptions;
  flood: RefusalFloodOptions;
  shadow: ShadowOptions;
}

/** What the five parts measured. */
export interface AttackRunReport {
  oneAddress: AttackReport;
  nat: NatReport;
  writes: WritesReport;
  flood: RefusalFloodReport;
  shadow: ShadowReport;
  /** The new-address attacker's peak share as bench/pow_attack.ts last recorded it (not re-run). */
  newAddress: { measured: string; pass: boolean } | null;
}

/**
 * The peak row of bench/pow_attack.ts's section in `results` (RESULTS.md), and how many of its
 * runs passed: that scenario needs its solver workers and a minute and a half a run, so it runs on
 * its own and is linked, not re-run.
 */
export function newAddressResult(results: string): AttackRunReport["newAddress"] {
  const at = results.indexOf(POW_SECTION);
  if (at < 0) return null;
  const row = results.slice(at).split("\n").find((l) => l.includes("live rows at the line's peak"));
  const cells = row?.split("|").map((c) => c.trim());
  if (!cells || cells.length < 5) return null;
  const date = /Run (\S+Z)/.exec(results.slice(at))?.[1] ?? "an earlier run";
  // With `--runs N` the section is the last run's, and says how many of the N passed.
  const runs = /Runs in this invocation: (\d+) of (\d+) passed/.exec(results.slice(at));
  const all = !runs || runs[1] === runs[2];
  return {
    measured: `${cells[2]} (bench/pow_attack.ts, ${date}${
      runs ? `; ${runs[1]} of ${runs[2]} runs passed` : ""
    })`,
    pass: cells[4] === "PASS" && all,
  };
}

/** Runs the five parts, one after the other (each on its own store). */
export async function attackScenario(
  e: ScenarioEnv,
  o: AttackRunOptions,
): Promise<AttackRunReport> {
  const oneAddress = await oneAddressAttack(e, o.oneAddress);
  const nat = await behindOneAddress(e, o.nat);
  e.log(`  counting KV commits per visitor (in-process, ${o.writes.visitors} visitors) ...`);
  const writes = await countWrites(o.writes);
  const flood = await refusalFlood(e, o.flood);
  e.log(`  the shadow line against a bot (in-process, off then on) ...`);
  const shadow = await shadowLineAttack(o.shadow);
  const results = await Deno.readTextFile(new URL("../RESULTS.md", import.meta.url)).catch(() =>
    ""
  );
  return { oneAddress, nat, writes, flood, shadow, newAddress: newAddressResult(results) };
}

const pct = (a: number, b: number) => `${(100 * a / Math.max(1, b)).toFixed(1)}%`;

/** The targets of the attack scenario. */
export function attackChecks(r: AttackRunReport): Check[] {
  const a = r.oneAddress, n = r.nat, w = r.writes;
  const refusedOrdinary = Object.entries(a.ordinaryJoins.outcomes)
    .filter(([k]) => !k.startsWith("20")).map(([k, v]) => `${k}: ${f0(v)}`).join(", ");
  const healthy = a.doctor.healthy;
  return [
    {
      name: "one address: the attacker's rows over all live rows, at the peak",
      measured: `${f0(a.peak.attacker)} of ${f0(a.peak.live)} (${
        pct(a.peak.attacker, a.peak.live)
      }) at second ${a.peak.sec}`,
      target: `<= ${f0(a.allowance)}, the allowance for ${
        a.attackSeconds.toFixed(0)
      } s (60 at once + 60 a minute)`,
      pass: a.peak.attacker <= a.allowance,
    },
    {
      name: "one address: ordinary visitors placed",
      measured: `${f0(a.ordinaryPlaced)} of ${f0(a.options.visitors)}, ${f0(a.queueFull)} ` +
        `queue_full${refusedOrdinary ? ` (refused: ${refusedOrdinary})` : ""}`,
      target: "all, 0 queue_full",
      pass: a.ordinaryPlaced === a.options.visitors && a.queueFull === 0,
    },
    {
      name: "one address: ordinary visitors admitted in arrival order",
      measured: `${f0(a.order.admitted)} admitted, ${a.order.outOfOrder} out of order, ` +
        `${a.order.skipped} passed over`,
      target: "0 out of order, 0 passed over",
      pass: a.order.admitted > 0 && a.order.outOfOrder === 0 && a.order.skipped === 0,
    },
    {
      name: "one address: heartbeat flood on its tickets",
      measured: `${f0(a.heartbeats.requests)} sent (${
        f0(a.heartbeats.requests / a.attackSeconds)
      }/s), ${f0(a.heartbeats.outcomes["200"] ?? 0)} answered 200`,
      target: "answered (writes bounded per visitor: tests/abuse_limits_test.ts)",
      pass: (a.heartbeats.outcomes["200"] ?? 0) > 0,
    },
    {
      name: `${n.options.visitors} visitors behind one address over ${n.options.minutes} minutes`,
      measured: `${f0(n.placed)} placed (${
        Object.entries(n.joins.outcomes).map(([k, v]) => `${k}: ${f0(v)}`).join(", ")
      })`,
      target: "all placed",
      pass: n.placed === n.options.visitors,
    },
    {
      name: "KV commits per ordinary visitor besides check-ins, under attack",
      measured: `max ${w.max}, mean ${w.mean.toFixed(2)} over ${f0(w.completed)} visitors ` +
        `(join ${f0(w.byLabel.join)}, admission ${f0(w.byLabel.admit)}, entry ${
          f0(w.byLabel.enter)
        }, other ${f0(w.byLabel.other)})`,
      target: "3 (join, admission, entry)",
      pass: w.completed === w.options.visitors && w.max === 3 && w.mean === 3 &&
        w.heartbeatsAnswered === w.heartbeatsSent,
    },
    ...floodChecks(r.flood),
    ...shadowChecks(r.shadow),
    {
      name: "a new address per join, proof of work automatic: the attacker's share at the peak",
      measured: r.newAddress?.measured ?? "not run yet: deno run -A bench/pow_attack.ts",
      target: "<= 10% (its own section in this file: not re-run here)",
      pass: r.newAddress?.pass ?? null,
    },
    {
      name: "store after the one-address attack (queue doctor)",
      measured: healthy ? `healthy (${f0(a.doctor.visitors)} records)` : a.doctor.counterDiffs
        .concat(a.doctor.indexProblems.slice(0, 3)).join("; "),
      target: "counters equal a recount, indexes consistent",
      pass: healthy,
    },
    {
      name: "error lines in the server's log",
      measured: a.serverErrors.count
        ? `${f0(a.serverErrors.count)}: ${a.serverErrors.messages.join("; ")}`
        : "0",
      target: "0",
      pass: a.serverErrors.count === 0,
    },
  ];
}

const rates = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(", ");

/** The refusal flood's targets: statistics cost no commit per refusal; joins keep their rate. */
function floodChecks(f: RefusalFloodReport): Check[] {
  const worst = Math.max(...f.flood.statCommitsPerSec);
  const ratio = f.flood.placedPerSec / Math.max(1e-9, f.without.placedPerSec);
  return [
    {
      name: "refusal flood from one address: KV commits of refusal statistics per instance",
      measured:
        `${rates(f.flood.statCommitsPerSec)} a second (${
          f0(f.flood.refused / f.options.seconds)
        } refusals a second; all commits per instance ${rates(f.flood.commitsPerSec)}, ` +
        `without the flood ${rates(f.without.commitsPerSec)})`,
      target: "<= 2 a second per instance",
      pass: f.flood.refused > 0 && worst <= 2,
    },
    {
      name: "refusal flood from one address: ordinary joins placed beside it",
      measured: `${f.flood.placedPerSec.toFixed(0)}/s (p99 ${
        f.flood.joins.p99Ms.toFixed(0)
      } ms) against ${f.without.placedPerSec.toFixed(0)}/s (p99 ${
        f.without.joins.p99Ms.toFixed(0)
      } ms) without: ${ratio.toFixed(2)}x`,
      target: ">= 0.9x of the rate without the flood, same run",
      pass: ratio >= 0.9,
    },
  ];
}

/** The shadow line's targets: the bot holds no real row, and stops hammering once placed. */
function shadowChecks(s: ShadowReport): Check[] {
  const { off, on } = s;
  return [
    {
      name: "shadow line on: the fixed-address bot's share of the real line",
      measured: `${on.botRealRows} of ${f0(on.realRows)} rows (${on.botShadowPlaces} shadow ` +
        `places; waiting ${f0(on.waiting)}, as without it: ${f0(off.waiting)})`,
      target: "0, and waiting counts no shadow place",
      pass: on.botRealRows === 0 && on.waiting === off.waiting &&
        on.ordinaryPlaced === s.options.visitors,
    },
    {
      name: "the bot's joins a second after its first failed check, shadow line off / on",
      measured: `${off.botJoinsPerSec.toFixed(1)} / ${on.botJoinsPerSec.toFixed(2)}`,
      target: "drops with it on (under a tenth)",
      pass: on.botJoinsPerSec < off.botJoinsPerSec / 10,
    },
  ];
}

/** The request tables of the attack scenario. */
export function attackTallies(r: AttackRunReport): [string, TallySummary][] {
  return [
    ["one address: ordinary POST /join", r.oneAddress.ordinaryJoins],
    ["one address: attacker's POST /join", r.oneAddress.attackJoins],
    ["one address: attacker's POST /heartbeat", r.oneAddress.heartbeats],
    ["one address: GET /status (following timeslots)", r.oneAddress.statuses],
    ["behind one address: POST /join", r.nat.joins],
    ["refusal flood: ordinary POST /join without the flood", r.flood.without.joins],
    ["refusal flood: ordinary POST /join beside it", r.flood.flood.joins],
  ];
}

/** How the attack scenario measured what it shows. */
export function attackNotes(r: AttackRunReport): string[] {
  const a = r.oneAddress.options, n = r.nat.options, w = r.writes, f = r.flood.options;
  return [
    `Server: MAX_WAITING_VISITORS=${f0(a.maxWaiting)}, JOINS_PER_CLIENT_PER_MINUTE=60 (the ` +
    `default), CLIENT_IP_HEADER=x-forwarded-for with TRUSTED_PROXIES=127.0.0.1, so the driver ` +
    `on loopback speaks for many addresses; ADMIT_PER_SECOND=${a.rate} (CAPACITY 10,000,000), ` +
    `so the line drains slowly while it fills and admission order can be checked.`,
    `One address: ${f0(a.visitors)} ordinary visitors, each from its own address (10.x.y.z), ` +
    `joined evenly over ${a.seconds} s without cookies and followed their timeslots; from the ` +
    `start, 203.0.113.7 sent \`POST /join\` without cookies on ${a.joinConnections} ` +
    `connections as fast as answered, and \`POST /heartbeat\` on the tickets it got on ` +
    `${a.floodConnections} more, until ${a.afterSeconds} s after the last ordinary join. ` +
    `Live rows: waiting + holding + entered from \`/metrics\` each second; the attacker's: ` +
    `every place it got (an upper bound: its heartbeats keep them alive).`,
    `Arrival order: the ordinary visitors' arrival numbers (their tickets) against the ` +
    `\`admittedAt\` of their records, read from the KV file after the run; "passed over" is an ` +
    `ordinary visitor not admitted while a later one was.`,
    `Behind one address: ${n.visitors} joins from 198.51.100.20, evenly over ${n.minutes} ` +
    `server minutes, the server's clock ${n.clockSpeed} times as fast ` +
    `(TOLLGATE_CLOCK_SPEED; the per-client limit counts in server time), ${
      r.nat.realSeconds.toFixed(0)
    } s real.`,
    `Commits: the app in the driver's process over in-memory KV wrapped by bench/counting_kv.ts ` +
    `(each successful commit attributed to the visitors whose keys it writes), through the ` +
    `served handler with a fake clock, the join check on (difficulty 1,000, so each join carries ` +
    `a spent-solution record). ${f0(w.options.visitors)} ordinary visitors joined (queue paused, ` +
    `so none was admitted at its join), ${w.options.attackJoinsEach} attacker joins after each ` +
    `(${f0(w.attackPlaced)} placed); then everyone sent ${w.options.heartbeatsEach} heartbeats ` +
    `(${f0(w.heartbeatsSent)} in all, ${
      f0(w.heartbeatsAnswered)
    } answered 200, 2 s apart; renewals they made are check-ins, ` +
    `${w.renewalsMean.toFixed(2)} per visitor); the queue resumed, ticks admitted everyone and ` +
    `each visitor's status entered it. ${f0(w.sharedJoinCommits)} commits during the joins ` +
    `wrote no visitor key (counter and statistics sums).`,
    `Refusal flood: ${f.instances} servers over one KV file behind the driver (the same proxy ` +
    `settings). Ordinary joins from their own addresses at ${f.joinRate} a second over all ` +
    `instances, ${f.seconds} s alone, then ${f.seconds} s while ${ATTACKER_IP} sent joins as ` +
    `fast as answered on ${f.floodConnections} connections per instance (past its allowance ` +
    `every one is refused 429). Commits per instance from its \`/metrics\` before and after ` +
    `each phase (\`tollgate_kv_commit_duration_seconds_count\`; refusal statistics are ` +
    `\`op="hit_count"\`).`,
    `Shadow line: the app in the driver's process over in-memory KV with a simulated clock, the ` +
    `bot check on (difficulty 500), ADMIT_PER_SECOND=0.1; ${r.shadow.options.visitors} ordinary ` +
    `visitors, one a second, each from its own address with the check solved; ` +
    `${r.shadow.options.botWorkers} bot workers at ${ATTACKER_IP}, each a request every 100 ms, ` +
    `answering every challenge wrongly, retrying a refusal at once and following a place at its ` +
    `check-ins (\`GET /status\`), as a script that reacts to what it gets. Once with the shadow ` +
    `line off, once on.`,
  ];
}
