/** Targets, the console summary and bench/RESULTS.md. */
import type { CheckinSimResult } from "./checkins_sim.ts";
import { VARIABLES } from "./config.ts";
import { JOIN_FLOORS, type JoinsStatus, merge, type Paired } from "./http_phases.ts";
import type { LineLatency } from "./latency_phase.ts";
import type { LifecycleResult } from "./lifecycle_sim.ts";
import type { LoadResult } from "./load.ts";

/** Everything one run measured. */
export interface Results {
  startedAt: Date;
  finishedAt: Date;
  command: string;
  machine: Record<string, string>;
  settings: Record<string, string | number>;
  /** The baseline alone (only when neither joins nor status ran). */
  baselineOnly?: LoadResult;
  joinsStatus?: JoinsStatus;
  latency: LineLatency[];
  checkins: CheckinSimResult[];
  lifecycle?: LifecycleResult;
  failures: string[];
}

/** One target and whether it was met (null: not measured). */
export interface Target {
  name: string;
  measured: string;
  target: string;
  pass: boolean | null;
}

const f0 = (x: number) => Math.round(x).toLocaleString("en-US");
const f2 = (x: number) => x.toFixed(2);
const ms = (x: number) => `${x.toFixed(3)} ms`;

/** All baseline slices of the run merged (requests per second over all of them). */
export function baselineAll(r: Results): LoadResult | null {
  const parts = [r.joinsStatus?.joins?.baseline, r.joinsStatus?.status?.baseline, r.baselineOnly]
    .filter((x): x is LoadResult => x !== undefined);
  return parts.length ? merge(parts) : null;
}

/** Median over rounds of p50(long line) / p50(short line), slice by slice. */
export function latencyRatio(small: LineLatency, large: LineLatency): number {
  const qs = small.slices.map((s, i) => large.slices[i].p50Ms / s.p50Ms).sort((a, b) => a - b);
  return qs[Math.floor((qs.length - 1) / 2)];
}

/** The targets of the brief, evaluated on `r`. */
export function targets(r: Results): Target[] {
  const out: Target[] = [];
  const ratio = (name: string, x: Paired | undefined, min: number) => {
    const q = x ? x.result.rps / x.baseline.rps : null;
    out.push({
      name,
      measured: q === null
        ? "not measured"
        : `${f0(x!.result.rps)}/s vs baseline ${f0(x!.baseline.rps)}/s = ${f2(q)} x`,
      target: `>= ${min} x baseline`,
      pass: q === null ? null : q >= min && x!.result.non2xx === 0,
    });
  };
  const floor = (label: string, x: Paired | undefined) => {
    if (x) out[out.length - 1].measured += `; ${label} ${f2(x.result.rps / x.baseline.rps)} x`;
  };
  ratio("joins/s (POST /join)", r.joinsStatus?.joins, 0.35);
  for (const [layout, label] of JOIN_FLOORS) floor(label, r.joinsStatus?.joinFloors?.[layout]);
  ratio("status/s (GET /status, slot not due)", r.joinsStatus?.status, 0.5);
  floor("HTTP floor", r.joinsStatus?.statusFloor);
  const small = r.latency.find((l) => l.line === Math.min(...r.latency.map((x) => x.line)));
  const large = r.latency.find((l) => l.line === Math.max(...r.latency.map((x) => x.line)));
  const lq = small && large && small !== large ? latencyRatio(small, large) : null;
  out.push({
    name: "status p50, long line vs short line",
    measured: lq === null
      ? "not measured"
      : `${ms(large!.result.p50Ms)} at ${f0(large!.waitingMeasured)} vs ${
        ms(small!.result.p50Ms)
      } at ${f0(small!.waitingMeasured)} = ${f2(lq)} x`,
    target: "<= 1.2 x",
    pass: lq === null ? null : lq <= 1.2,
  });
  const steady = r.checkins.find((c) => c.start === "steady");
  out.push({
    name: `check-ins per second, ${
      steady ? f0(steady.waiting) : ""
    } waiting (simulated), p99 second`,
    measured: steady ? f0(steady.p99) : "not measured",
    target: "<= 790",
    pass: steady ? steady.p99 <= 790 : null,
  });
  out.push({
    name: "check-ins per second (simulated), mean",
    measured: steady ? f0(steady.mean) : "not measured",
    target: ">= 675 (budget 750)",
    pass: steady ? steady.mean >= 675 : null,
  });
  const lc = r.lifecycle;
  out.push({
    name: "admitted per minute, long line, free capacity",
    measured: lc
      ? `${lc.admittedPerMinute.join(", ")} (worst ${(lc.worstDeviation * 100).toFixed(2)}% off)`
      : "not measured",
    target: lc ? `${lc.expectedPerMinute} +- 1%` : "rate x 60 +- 1%",
    pass: lc ? lc.worstDeviation <= 0.01 : null,
  });
  out.push({
    name: "KV writes per visitor, join to admission, besides check-ins",
    measured: lc ? `max ${lc.writesMax}, mean ${f2(lc.writesMean)} commits` : "not measured",
    target: "<= 3",
    pass: lc ? lc.writesMax <= 3 : null,
  });
  return out;
}

const verdict = (p: boolean | null) => (p === null ? "n/a" : p ? "PASS" : "FAIL");

/** The short summary printed at the end of a run. */
export function consoleSummary(r: Results): string {
  const base = baselineAll(r);
  const lines = [
    "",
    `baseline (plain Hono text, all slices): ${
      base === null ? "not measured" : f0(base.rps) + " req/s"
    }`,
  ];
  for (const t of targets(r)) {
    lines.push(`${verdict(t.pass).padEnd(4)}  ${t.name}: ${t.measured} (target ${t.target})`);
  }
  for (const f of r.failures) lines.push(`ERROR ${f}`);
  return lines.join("\n");
}

function loadRow(name: string, x: LoadResult, base: number | null): string {
  const q = base ? f2(x.rps / base) : "";
  return `| ${name} | ${f0(x.rps)} | ${q} | ${ms(x.p50Ms)} | ${ms(x.p90Ms)} | ${ms(x.p99Ms)} | ${
    f0(x.requests)
  } | ${x.non2xx} | ${x.socketErrors} |`;
}

function simRow(c: CheckinSimResult): string {
  return `| ${c.start} | ${
    f0(c.waiting)
  } | ${c.warmupSeconds} + ${c.seconds} | ${c.periodAtStart} -> ${c.periodAtEnd} | ${
    f0(c.mean)
  } | ${c.p50} | ${c.p99} | ${c.max} | ${c.min} | ${c.warmupMax} |`;
}

/** Renders RESULTS.md. */
export function renderMarkdown(r: Results, notes: string[]): string {
  const md: string[] = [];
  md.push("# Tollgate benchmark results", "");
  md.push(
    `Written by \`deno task bench\` (bench/run.ts). Numbers are from one run; ratios compare`,
  );
  md.push(`with the baseline measured in the same run, because these machines are noisy.`, "");
  md.push("## Run", "");
  md.push(`- command: \`${r.command}\``);
  md.push(
    `- started: ${r.startedAt.toISOString()}, finished: ${r.finishedAt.toISOString()} ` +
      `(${Math.round((r.finishedAt.getTime() - r.startedAt.getTime()) / 1000)} s)`,
  );
  for (const [k, v] of Object.entries(r.machine)) md.push(`- ${k}: ${v}`);
  md.push(`- settings: ${Object.entries(r.settings).map(([k, v]) => `${k}=${v}`).join(", ")}`, "");
  md.push("## Targets", "");
  md.push("| what | measured | target | result |", "|---|---|---|---|");
  for (const t of targets(r)) {
    md.push(`| ${t.name} | ${t.measured} | ${t.target} | ${verdict(t.pass)} |`);
  }
  if (r.failures.length) {
    md.push("", "Parts that failed to run:", "");
    for (const f of r.failures) md.push(`- ${f.replace(/\n/g, " ").slice(0, 500)}`);
  }
  md.push("", "## HTTP throughput and latency", "");
  md.push(
    `Each run is cut into ${r.settings.rounds} slices alternating with its counterpart (joins and status with`,
    "the baseline, the short line with the long line), after one warm-up each; percentiles are the",
    "median of the slices'.",
    "",
  );
  md.push("| run | req/s | x baseline | p50 | p90 | p99 | requests | non-2xx | socket errors |");
  md.push("|---|---|---|---|---|---|---|---|---|");
  const js = r.joinsStatus;
  const paired = (name: string, p: Paired) => md.push(loadRow(name, p.result, p.baseline.rps));
  if (js?.joins) {
    md.push(loadRow("baseline, interleaved with joins", js.joins.baseline, null));
    paired("POST /join", js.joins);
  }
  const floors = js?.joinFloors ?? {};
  for (const [layout, , row] of JOIN_FLOORS) if (floors[layout]) paired(row, floors[layout]);
  if (js?.status) {
    md.push(loadRow("baseline, interleaved with status", js.status.baseline, null));
    paired("GET /status, slot not due", js.status);
  }
  if (js?.statusFloor) paired("HTTP floor of a status answer (no queue logic)", js.statusFloor);
  if (r.baselineOnly) md.push(loadRow("baseline", r.baselineOnly, null));
  // Latency runs use few connections: their req/s is about 1 / latency, not a throughput.
  for (const l of r.latency) {
    md.push(loadRow(`GET /status latency, ${f0(l.waitingMeasured)} waiting`, l.result, null));
  }
  md.push("");
  for (
    const [name, p] of [
      ["joins", js?.joins],
      ...JOIN_FLOORS.map(([layout, label]) => [label, floors[layout]] as const),
      ["status", js?.status],
      ["HTTP floor", js?.statusFloor],
    ] as const
  ) {
    if (!p) continue;
    md.push(
      `- Slices, req/s: ${name} ${p.slices.result.map(f0).join(", ")}; baseline ${
        p.slices.baseline.map(f0).join(", ")
      }.`,
    );
  }
  for (const l of r.latency) {
    md.push(
      `- Slices, p50 with ${f0(l.waitingMeasured)} waiting: ${
        l.slices.map((s) => s.p50Ms.toFixed(3)).join(", ")
      } ms.`,
    );
  }
  if (js?.waitingAfterJoins !== undefined) {
    md.push(`- Waiting after the join runs: ${f0(js.waitingAfterJoins)}.`);
  }
  if (js?.statusTickets !== undefined) {
    md.push(
      `- Status load: ${js.statusTickets} distinct waiters (tickets from ${js.statusTicketJoins} real joins, ` +
        `kept those whose slot is after the run), round-robin, one per request, on a line of ${
          f0(js.statusLine ?? 0)
        } (seeded; not the join runs' leftovers).`,
    );
  }
  for (const l of r.latency) {
    md.push(
      `- Line of ${f0(l.line)}: ${f0(l.seeded)} seeded into the KV file (${
        l.seedSeconds.toFixed(1)
      } s), ` +
        `${f0(l.line - l.seeded)} joined over HTTP and polled; ${
          f0(l.waitingMeasured)
        } waiting per /metrics.`,
    );
  }
  if (r.checkins.length) {
    md.push("", "## Check-ins per second (simulated clock)", "");
    md.push(
      "| start | waiting | warm-up + measured s | period s | mean/s | p50 | p99 | max | min | max before window |",
    );
    md.push("|---|---|---|---|---|---|---|---|---|---|");
    for (const c of r.checkins) md.push(simRow(c));
  }
  const lc = r.lifecycle;
  if (lc) {
    md.push("", "## Engine in-process: admissions, KV writes, real check-ins", "");
    md.push(
      `- ${f0(lc.visitors)} visitors joined at once (${lc.admittedAtJoin} admitted at join); ` +
        `ADMIT_PER_SECOND=${lc.ratePerSecond}, CAPACITY=10,000,000; engine.tick every simulated second; ` +
        `every waiter calls engine.status at its nextCheckAt.`,
    );
    md.push(
      `- Admitted per minute: ${
        lc.admittedPerMinute.join(", ")
      } (expected ${lc.expectedPerMinute}); ` +
        `waiting at the end ${f0(lc.waitingAtEnd)}, abandoned ${lc.abandoned}.`,
    );
    md.push(
      `- ${
        f0(lc.completed)
      } visitors went join -> admitted by a tick -> entered at their check-in. ` +
        `Commits touching each, check-in renewals excluded: max ${lc.writesMax}, mean ${
          f2(lc.writesMean)
        }, ` +
        `histogram ${JSON.stringify(lc.writesHistogram)}; by kind ${JSON.stringify(lc.byLabel)}; ` +
        `mutations of its keys per visitor ${
          f2(lc.mutationsMean)
        }; check-in renewals per visitor ` +
        `${f2(lc.checkinRenewalsMean)}.`,
    );
    md.push(
      `- All commits: ${f0(lc.totalCommits)}, of which ${lc.sharedCommits} touched no visitor key.`,
    );
    md.push(
      `- Real check-ins per second in this run: mean ${
        f0(lc.checkinMean)
      }, p99 ${lc.checkinP99}, ` +
        `max ${lc.checkinMax} (budget 750).`,
    );
  }
  if (notes.length) md.push("", "## Notes", "", ...notes);
  md.push("", "## Knobs", "", "| variable | default | meaning |", "|---|---|---|");
  for (const [k, d, m] of VARIABLES) md.push(`| ${k} | ${d} | ${m} |`);
  md.push("");
  return md.join("\n");
}
