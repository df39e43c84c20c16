/**
 * `deno run -A bench/multi_flash.ts [--processes 4] [--joins 20000] [--rate 500]`: the flash
 * crowd of `deno task load` against several real server processes over ONE KV file. Joins go
 * round-robin to the servers; each waiter then follows its timeslots through the next server
 * (so every status is answered by an instance that did not take its join). Afterwards it checks
 * what the simulation checks: exact join positions, nobody admitted twice, the counters against a
 * recount, admissions per second against the rate, and writes its section of bench/RESULTS.md.
 */
import { decodeTicket } from "./tickets.ts";
import { wrongPositions } from "./scale_sim.ts";
import { installCleanup, stopAll } from "./procs.ts";
import { Follower } from "./scenarios/follower.ts";
import { HttpPool } from "./scenarios/http.ts";
import { admittedAt, doctor } from "./scenarios/store.ts";
import { Tally } from "./scenarios/tally.ts";
import { newSecret, pause, startTarget, type Target } from "./scenarios/target.ts";

const arg = (name: string, dflt: number) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : dflt;
};
const PROCESSES = arg("--processes", 4);
const JOINS = arg("--joins", 20_000);
const RATE = arg("--rate", 500);
const CONNECTIONS = 64;
const HEADING = "## Flash crowd on several processes (bench/multi_flash.ts)";

installCleanup();
const dir = await Deno.makeTempDir({ prefix: "tollgate-multi-flash-" });
const kvPath = `${dir}/shared.kv`;
const secret = newSecret();
const env = { log: (m: string) => console.log(m), dir };
const targets: Target[] = [];
for (let i = 0; i < PROCESSES; i++) {
  targets.push(
    await startTarget(env, `server-${i}`, kvPath, {
      TOKEN_SECRET: secret,
      ADMIT_PER_SECOND: String(RATE),
      CAPACITY: "10000000",
      MAX_WAITING_VISITORS: "1000000",
    }),
  );
}
const joinPools = targets.map((t) => new HttpPool(t.url, CONNECTIONS / PROCESSES));
/** Visitors a status answered 404 `not_in_queue` (none is expected): id, and their ticket's claims. */
const gone: string[] = [];
const followers = targets.map((t) => {
  const pool = new HttpPool(t.url, 8);
  const request = pool.request.bind(pool);
  pool.request = async (c) => {
    const a = await request(c);
    if (a.status === 404 && c.ticket) gone.push(JSON.stringify(decodeTicket(c.ticket)));
    return a;
  };
  return new Follower(pool, t.clock);
});
const joins = new Tally();
const answers: { seq: number; position: number }[] = [];
let sent = 0, admittedAtJoin = 0;
for (const f of followers) f.start();
const started = performance.now();
const body = JSON.stringify({ queue: "default" });
await Promise.all(Array.from({ length: CONNECTIONS }, async (_, c) => {
  const s = c % PROCESSES;
  while (sent < JOINS) {
    sent++;
    const a = await joinPools[s].request({ method: "POST", path: "/join", body });
    joins.add(a);
    if (a.status === 202 && a.ticket) {
      answers.push({ seq: decodeTicket(a.ticket).seq, position: JSON.parse(a.body).position });
      followers[(s + 1) % PROCESSES].add(a.ticket);
    } else if (a.status === 200) admittedAtJoin++;
  }
}));
const joinSeconds = (performance.now() - started) / 1000;
const joinedAt = Date.now();
console.log(`${JOINS} joins in ${joinSeconds.toFixed(1)} s over ${PROCESSES} processes; draining`);
const metricsPool = new HttpPool(targets[0].url, 1);
const waitingNow = async () =>
  JSON.parse(
    (await metricsPool.request({
      method: "GET",
      path: "/metrics?queue=default",
      bearer: secret,
    })).body,
  ).waiting as number;
while (await waitingNow() > 0 && Date.now() - joinedAt < 600_000) await pause(1000);
const drainSeconds = (Date.now() - joinedAt) / 1000;
await pause(6000);
for (const f of followers) await f.stop();
metricsPool.close();
for (const p of joinPools) p.close();
await stopAll();

// ---- correctness, from the answers and the store -------------------------------------------
const admitted = await admittedAt(kvPath);
const health = await doctor(kvPath);
const kv = await Deno.openKv(kvPath);
const counts = (await kv.get<{ admitted: number }>(["counts", "default"])).value!;
kv.close();
const wrong = wrongPositions(answers, counts.admitted);
const bySec = new Map<number, number>();
for (const at of admitted.values()) {
  const s = Math.floor(at / 1000);
  bySec.set(s, (bySec.get(s) ?? 0) + 1);
}
const secs = [...bySec.keys()].sort((a, b) => a - b);
// Whole seconds of the drain only: after the first and before the last second of admissions.
const inner = secs.slice(1, -1).map((s) => bySec.get(s)!);
const meanPerSec = inner.reduce((a, b) => a + b, 0) / Math.max(1, inner.length);
let skipped = 0;
for (let s = secs[0] + 1; s < secs[secs.length - 1]; s++) if (!bySec.has(s)) skipped++;
const over = inner.filter((n) => n > 2 * RATE).length;
const statusErrors = followers.reduce((n, f) => n + f.tally.errors, 0);
const statusOutcomes: Record<string, number> = {};
for (const f of followers) {
  for (const [k, n] of Object.entries(f.tally.summary().outcomes)) {
    statusOutcomes[k] = (statusOutcomes[k] ?? 0) + n;
  }
}
const j = joins.summary();
const lines = [
  HEADING,
  "",
  `Run ${new Date().toISOString()}: ${PROCESSES} server processes (main.ts) over one KV file, ` +
  `${JOINS} joins over ${CONNECTIONS} connections round-robin, each waiter following its ` +
  `timeslots through the next process; ADMIT_PER_SECOND ${RATE}; load average ` +
  `${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}.`,
  "",
  "| figure | value |",
  "|---|---|",
  `| joins/s | ${Math.round(JOINS / joinSeconds)} |`,
  `| join answers by outcome, p99 ms | ${JSON.stringify(j.outcomes)}, ${Math.round(j.p99Ms)} |`,
  `| admitted at join | ${admittedAtJoin} |`,
  `| wrong positions (of ${answers.length} waiting answers) | ${wrong} |`,
  `| admitted in the records / counts.admitted | ${admitted.size} / ${counts.admitted} |`,
  `| counters equal a recount (doctor) | ${health.healthy} ${health.counterDiffs.join(" ")} |`,
  `| index problems | ${health.indexProblems.length} |`,
  `| admissions per whole second while draining: mean / rate | ${
    meanPerSec.toFixed(1)
  } / ${RATE} |`,
  `| seconds without an admission while draining / over 2x the rate | ${skipped} / ${over} |`,
  `| drain seconds | ${drainSeconds.toFixed(0)} |`,
  `| status answers by outcome (errors) | ${JSON.stringify(statusOutcomes)} (${statusErrors}) |`,
];
if (gone.length) console.log("answered 404 not_in_queue:\n" + gone.join("\n"));
const block = lines.join("\n");
console.log(block);
const path = new URL("./RESULTS.md", import.meta.url).pathname;
const doc = await Deno.readTextFile(path);
const b = doc.indexOf(HEADING);
const rest = b >= 0 ? doc.slice(b + HEADING.length) : "";
const next = rest.search(/\n## /);
await Deno.writeTextFile(
  path,
  b >= 0
    ? doc.slice(0, b) + block + (next >= 0 ? rest.slice(next) : "\n")
    : doc.trimEnd() + "\n\n" + block + "\n",
);
await Deno.remove(dir, { recursive: true }).catch(() => {});
Deno.exit(0);
