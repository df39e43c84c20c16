/**
 * `deno task doctor [--queue Q] [--repair]`: recounts queues from their records and reports (or
 * repairs) counters that drifted. Opens the store named by DENO_KV_PATH, like the service; on a
 * store the service is using, it says so and reports only what a second look confirmed.
 * Exit code 0 when healthy (or repaired), 1 when problems remain, 2 on bad usage.
 */
import { parseEnv } from "../lib/config.ts";
import { diagnose, repairCounters } from "../lib/queue/doctor.ts";
import { keys } from "../lib/store/keys.ts";

const args = [...Deno.args];
const repair = args.includes("--repair");
const qi = args.indexOf("--queue");
const only = qi >= 0 ? args[qi + 1] : undefined;
if (qi >= 0 && !only) {
  console.error("usage: deno task doctor [--queue NAME] [--repair]");
  Deno.exit(2);
}
const path = parseEnv(Deno.env.toObject()).DENO_KV_PATH;
const kv = await Deno.openKv(path);
const names: string[] = [];
for await (const e of kv.list({ prefix: keys.queues() })) names.push(e.key[1] as string);
if (only && !names.includes(only)) {
  console.error(`no queue named ${only} in ${path} (queues: ${names.join(", ") || "none"})`);
  Deno.exit(2);
}
let problems = 0;
for (const q of only ? [only] : names) {
  const d = repair ? await repairCounters(kv, q) : await diagnose(kv, q);
  const fixed = "repaired" in d && d.repaired;
  console.log(`queue ${q}: ${d.visitors} visitor records`);
  if (d.live) {
    console.log(
      `  live store: it changed while read; ${d.transient} suspect(s) gone at a second look ` +
        "(changes in flight, not faults); only what persisted is reported" +
        (repair ? " or repaired" : ""),
    );
  }
  for (const k of d.counterDiffs) {
    const verb = fixed ? "repaired" : "differs";
    console.log(`  ${k}: stored ${d.stored[k]}, recounted ${d.recounted[k]} (${verb})`);
  }
  for (const p of d.indexProblems) console.log(`  index: ${p}`);
  if (d.healthy) console.log("  healthy");
  if (!fixed) problems += d.counterDiffs.length;
  problems += d.indexProblems.length;
}
kv.close();
if (problems && !repair) console.log("run with --repair to write the recounted counters");
Deno.exit(problems ? 1 : 0);
