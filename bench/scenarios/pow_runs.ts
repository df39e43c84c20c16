/**
 * Runs the proof-of-work attack scenario `runs` times, one process each, and says how many
 * passed: one run's pass is a reading of the machine at that moment, several show whether it
 * holds. Each run is started at nice 10 (the devices' threads; its server higher) and
 * hands back its report in a file; the section of bench/RESULTS.md is the last run's report and
 * the table of all runs.
 */
import { passed, runsTable, type RunSummary } from "./pow_report.ts";

/** Where a run writes its report (set by the launcher; a run without it is the launcher). */
export const RUN_OUT_ENV = "POW_ATTACK_OUT";

/** A run's report: its section's lines and its summary. */
interface RunReport {
  lines: string[];
  summary: RunSummary;
}

/** Replaces the section headed `lines[0]` in `file` (or appends it). */
async function upsertSection(file: URL, lines: string[]): Promise<void> {
  const text = await Deno.readTextFile(file);
  const start = text.indexOf(lines[0] + "\n");
  let next = start < 0 ? -1 : text.indexOf("\n## ", start + lines[0].length);
  if (next >= 0) next += 1;
  await Deno.writeTextFile(
    file,
    start < 0
      ? text.trimEnd() + "\n\n" + lines.join("\n")
      : text.slice(0, start) + lines.join("\n") + (next >= 0 ? "\n" + text.slice(next) : ""),
  );
  // The file is kept as `deno fmt` writes it (wrapped prose, aligned tables; `deno task check`).
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", file.pathname] }).output();
}

/** One run of `script` at nice 10; its report, or null when it ended without one. */
async function runOnce(script: string, args: string[]): Promise<RunReport | null> {
  const out = await Deno.makeTempFile({ prefix: "pow-run-", suffix: ".json" });
  try {
    const child = new Deno.Command("nice", {
      args: ["-n", "10", Deno.execPath(), "run", "-A", script, ...args],
      env: { [RUN_OUT_ENV]: out },
    }).spawn();
    const st = await child.status;
    const text = await Deno.readTextFile(out);
    if (!st.success || !text) return null;
    return JSON.parse(text);
  } catch {
    return null;
  } finally {
    await Deno.remove(out).catch(() => {});
  }
}

/** Runs `script` `runs` times; prints each run's line and the table; returns how many passed. */
export async function launchRuns(
  script: string,
  args: string[],
  runs: number,
  opts: { results?: URL },
): Promise<number> {
  const done: RunSummary[] = [];
  let last: RunReport | null = null;
  for (let i = 1; i <= runs; i++) {
    const r = await runOnce(script, args);
    if (!r) {
      console.error(`run ${i} of ${runs} ended without a report (counted as failed)`);
      continue;
    }
    last = r;
    done.push(r.summary);
    const s = r.summary;
    console.log(
      `run ${i} of ${runs}: attacker ${(100 * s.share).toFixed(1)}%, demand ` +
        `${s.demand.toFixed(2)} x (achieved ${s.achieved.toFixed(2)} x), ${
          passed(s) ? "PASS" : "FAIL"
        }`,
    );
  }
  const n = done.filter(passed).length;
  const table = runsTable(done);
  table[0] = table[0].replace(`of ${done.length} passed`, `of ${runs} passed`);
  console.log(table.join("\n"));
  if (last && opts.results) await upsertSection(opts.results, [...last.lines, ...table]);
  return n;
}
