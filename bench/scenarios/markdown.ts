/**
 * The "Load scenarios" section of bench/RESULTS.md: one block per scenario between
 * markers, so a run of one scenario replaces only its own block (and `deno task bench`'s part of
 * the file is left alone by the load run).
 */
import { output } from "../procs.ts";
import { type Check, f0, ms, verdict } from "./checks.ts";
import type { TallySummary } from "./tally.ts";

/** When, how and on what a scenario ran. */
export interface RunInfo {
  command: string;
  startedAt: Date;
  finishedAt: Date;
  machine: string[];
  loadAtStart: string;
  loadAtEnd: string;
}

/** The scenarios, in the order of the section. */
export const SCENARIOS = ["flash", "line", "mixed", "attack", "sessions", "places"] as const;
/** One scenario's name. */
export type Scenario = typeof SCENARIOS[number];

const TITLES: Record<Scenario, string> = {
  flash: "Flash crowd",
  line: "A line of waiting visitors following their timeslots",
  mixed: "Mixed traffic",
  attack: "Attacks: one address at full speed, many people behind one address",
  sessions: "Sessions: fixed against sliding and released by the site, capacity 200",
  places: "A place nobody loses: silent phones, moved places, the turn e-mail, leavers",
};

const HEADING = "## Load scenarios";
const INTRO = [
  HEADING,
  "",
  "Written by `deno task load` (bench/load_scenarios.ts; how to run and read it: docs/testing.md).",
  "Every scenario starts its own server (`deno run -A main.ts` over a fresh KV file, its own",
  "process) and drives it over HTTP from the driver's process: raw HTTP/1.1 keep-alive connections,",
  "every answer read (status, error code, `tg_ticket`, `nextCheckAt`). Afterwards the queue doctor",
  "(lib/queue/doctor.ts) recounts the KV file. Each block below is replaced by the next run of its",
  "scenario.",
  "",
];

/** The machine, as `uname -a`, `nproc` and Deno describe it. */
export async function machineInfo(): Promise<string[]> {
  let cpu = "unknown CPU";
  try {
    cpu = /model name\s*:\s*(.*)/.exec(await Deno.readTextFile("/proc/cpuinfo"))?.[1] ?? cpu;
  } catch { /* not Linux */ }
  const nproc = (await output("nproc", []))?.trim() ?? String(navigator.hardwareConcurrency);
  const uname = (await output("uname", ["-a"]))?.trim() ?? Deno.build.target;
  const gib = (Deno.systemMemoryInfo().total / 2 ** 30).toFixed(1);
  return [
    `machine: ${cpu}, nproc ${nproc}, ${gib} GiB RAM`,
    `uname -a: \`${uname}\``,
    `deno: ${Deno.version.deno} (V8 ${Deno.version.v8})`,
  ];
}

/** The load average as `uptime` shows it. */
export const loadAverage = () => Deno.loadavg().map((x) => x.toFixed(2)).join(" ");

function tallyTable(rows: [string, TallySummary][]): string[] {
  const out = [
    "| requests | count | answers | p50 | p99 | max |",
    "|---|---|---|---|---|---|",
  ];
  for (const [name, t] of rows) {
    const answers = Object.entries(t.outcomes).map(([k, n]) => `${k}: ${f0(n)}`).join(", ");
    out.push(
      `| ${name} | ${f0(t.requests)} | ${answers || "-"} | ${ms(t.p50Ms)} | ${ms(t.p99Ms)} | ${
        ms(t.maxMs)
      } |`,
    );
  }
  return out;
}

/** One scenario's block: run, targets, requests, notes. */
export function renderBlock(
  name: Scenario,
  run: RunInfo,
  checks: Check[],
  tallies: [string, TallySummary][],
  notes: string[],
): string {
  const secs = Math.round((run.finishedAt.getTime() - run.startedAt.getTime()) / 1000);
  return [
    `### ${TITLES[name]}`,
    "",
    `- command: \`${run.command}\``,
    `- date: ${run.startedAt.toISOString()} to ${run.finishedAt.toISOString()} (${secs} s)`,
    ...run.machine.map((m) => `- ${m}`),
    `- load average at start ${run.loadAtStart}, at end ${run.loadAtEnd} (2 CPUs: above 2 means` +
    " other work was running besides this scenario)",
    "",
    "| target | measured | wanted | result |",
    "|---|---|---|---|",
    ...checks.map((c) => `| ${c.name} | ${c.measured} | ${c.target} | ${verdict(c.pass)} |`),
    "",
    ...tallyTable(tallies),
    "",
    ...notes.map((n) => `- ${n}`),
  ].join("\n");
}

const begin = (n: Scenario) => `<!-- load:${n}:begin -->`;
const end = (n: Scenario) => `<!-- load:${n}:end -->`;

/**
 * `doc` with the block of scenario `name` replaced by `block` (the section and the block are
 * added when missing, blocks in scenario order).
 */
export function upsertBlock(doc: string, name: Scenario, block: string): string {
  const wrapped = `${begin(name)}\n\n${block}\n\n${end(name)}`;
  const b = doc.indexOf(begin(name)), e = doc.indexOf(end(name));
  if (b >= 0 && e > b) return doc.slice(0, b) + wrapped + doc.slice(e + end(name).length);
  let text = doc;
  if (!text.includes(HEADING)) text = text.trimEnd() + "\n\n" + INTRO.join("\n");
  // Before the first block of a later scenario, else at the end of the file.
  const later = SCENARIOS.slice(SCENARIOS.indexOf(name) + 1).map((n) => text.indexOf(begin(n)))
    .filter((i) => i >= 0);
  const at = later.length ? Math.min(...later) : text.length;
  return text.slice(0, at).trimEnd() + "\n\n" + wrapped + "\n\n" + text.slice(at).trimStart();
}

/** Sections of RESULTS.md that other tools write after `deno task bench`'s own part. */
const KEPT_HEADINGS = ["## Origin proxy", HEADING];

/**
 * `fresh` (a RESULTS.md just rendered by `deno task bench`) with the sections of `old` (the file
 * it replaces) that other tools wrote (the proxy bench, the load scenarios) kept at its end, so
 * one tool's run does not erase the others' numbers.
 */
export function keepLoadSection(old: string, fresh: string): string {
  const found = KEPT_HEADINGS.map((h) => old.indexOf(h)).filter((i) => i >= 0);
  return found.length ? fresh.trimEnd() + "\n\n" + old.slice(Math.min(...found)) : fresh;
}
