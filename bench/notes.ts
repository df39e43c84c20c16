/**
 * The notes of RESULTS.md: how each number was measured, and, while a target is missed, what
 * profiling found. The profile findings were measured when this bench was written
 * (the V8 profiler over the inspector and per-thread CPU time of the server under wrk, and
 * micro-benchmarks of the pieces; those
 * scripts are not kept); re-profile after engine changes.
 */
import type { BenchConfig } from "./config.ts";
import type { LoadTool } from "./load.ts";
import { type Results, targets } from "./report.ts";

const f = (x: number) => Math.round(x).toLocaleString("en-US");

/** Profile findings for the joins target (fifth round, 2026-11-25). */
export const JOIN_ANALYSIS = [
  "- Joins, fifth round (2026-11-25): 0.13 x to 0.15 x. The three join-floor rows bound what any join " +
  "could do on this machine. bench/join_floor_server.ts reads the body, makes an id and answers like a " +
  "join, with no signing, settings, slots or positions. With no KV at all it reaches 0.61 x to 0.71 x. With " +
  "group commits (up to 250 joins a commit, one in flight, the counts record checked, the two sums) that " +
  "write one record per batch and nothing per visitor, close to the cheapest durable join a layout could " +
  "have, it reaches 0.37 x to 0.39 x (0.28 x to 0.40 x in runs by hand). With the three records per visitor " +
  'that Tollgate writes (a waiter is found by its id, its place in line and its liveness deadline; "KV ' +
  'floor") it reaches 0.17 x to 0.24 x. The throughputs are bound by the main thread, so costs per join ' +
  "add up: in the two recorded runs Tollgate took 24 and 43 us per join more than the KV floor, and the " +
  "batch floor 33 and 43 us per join; added run by run, 0.22 x and 0.20 x. No storage layout alone reaches " +
  "0.35 x.",
  "- What bounds the floors is the server's main thread, not the disk: under the load it is about 90% busy " +
  "(per-thread CPU from top -H; sqlite's thread about 40%). V8's profiler calls half of that time idle, " +
  "but that is Deno.serve's Rust side and the kernel (an earlier round read it as waiting for durable " +
  "writes, wrongly). The floor over a KV file on tmpfs is only about 7% faster, and two commits in flight " +
  "(without the counts check, as an upper bound) are no faster than one. perf puts a third to half of " +
  "the main thread in the kernel, a fifth of it in the hypervisor's interrupt path of loopback sends that " +
  "wake the load generator. Each KV mutation costs the main thread several us (V8 serialization of the " +
  "value, the op's conversion of the mutation list), three a visitor. Answering before the commit is " +
  "durable would lose visitors on a crash, so this service does not.",
];

/** Profile findings for the status target (fifth round, 2026-11-25). */
export const STATUS_ANALYSIS = [
  "- Status (slot not due), fifth round (2026-11-25): 0.43 x to 0.61 x over the day's runs on a seeded " +
  'line. The "HTTP floor of a status answer" row (bench/status_floor_server.ts: the request id, the cookie ' +
  "read and the same response builder with its six headers, no queue logic) reaches 0.52 x to 0.72 x in the " +
  "same runs. Tollgate's own JavaScript is about 3 us of a status request (the V8 profiler: under a tenth " +
  "of the main thread, which is about 94% busy); the rest is Deno.serve and the kernel. Setting any " +
  "response header costs Deno.serve about a fifth of a plain-text answer's throughput, each further one " +
  "about 1.5%. Single slices on this shared machine swing by a third for every server, floors included.",
];

/** The notes of a run. */
export function notes(r: Results, cfg: BenchConfig, tool: LoadTool): string[] {
  const out = [
    `- Servers: each measured server is its own process (\`deno run -A main.ts\` with a fresh temp KV file via DENO_KV_PATH, TOKEN_SECRET, PORT, MAX_WAITING_VISITORS=50000000, ADMIT_PER_SECOND=${cfg.serverAdmitPerSecond}), and so is the load generator (${tool}). Baseline: bench/baseline_server.ts (Deno.serve + Hono, \`c.text\`), its own process, running through the joins and status runs: each of those alternates ${cfg.rounds} slices with a baseline slice of the same length, and its ratio is against those baseline slices.`,
    `- Joins: \`POST /join\` with body \`{"queue":"default"}\` and no cookie, so every request creates a new visitor (the server draws the id); ${cfg.connections} connections, ${cfg.threads} wrk threads, ${cfg.warmupSec} s warm-up then ${cfg.durationSec} s in ${cfg.rounds} slices.`,
    `- Status: \`GET /status?queue=default\` with a \`tg_ticket\` cookie from a real join whose nextCheckAt is after the run, so the engine answers from its cached view (no KV write). The server runs over its own line of ${cfg.statusLine} waiters seeded as for the latency runs (bench/seed.ts), whose slots and deadlines fall after the run. The join runs' server is not reused: its tens of thousands of joiners never poll, so the sweep that drops them as their deadlines pass would run during the status slices. The baseline slices of this run get the same requests (wrk's Lua rotation over the same cookies, which alone costs wrk about a third of its throughput).`,
    `- Latency: ${cfg.latencyConnections} connection(s), so p50 is service time rather than queueing. The polled waiters joined over HTTP; a response's new \`tg_ticket\` replaces the old one, as in a browser. A line of ${cfg.smallLine} has a 5 s check-in period, so each polled waiter makes a due check-in (one KV commit) every 5 to 10 s; on the long line their slots are minutes away. Both p50s are dominated by the cached path. The two servers run side by side (idle while the other is measured) and their slices alternate; the ratio is the median of the per-round ratios.`,
    `- Long line: the waiters are written straight into the KV file before the server starts (bench/seed.ts: the record and its fifo and deadline index per visitor as putWaiting writes them, plus the counts record), each index in key order, 1000 keys per commit; the stored data is what joins would leave. Their slots and deadlines come from the engine's \`schedule()\` as if the line had joined 10 minutes ahead, so none lapses during the run; the check-in occupancy sums of their seconds are written too.`,
    `- Check-in simulation (bench/checkins_sim.ts): every slot comes from the engine's own \`schedule()\` (lib/queue/visitor.ts, with its per-second occupancy ledger) on a real QueueContext with a fake clock, given the view a status call sees that second (waiting count, head, FIFO position, free capacity); only KV is left out. Each simulated second the tick admits SIM_ADMIT_PER_SECOND from the head, then every waiter whose slot is that second checks in: an admitted one learns it and stops, a waiting one renews. \`steady\`: the line holds slots as the engine hands them to newcomers with the full line, then one whole period runs as warm-up, so every waiter has renewed before the measured window (this row decides the targets). \`flash\`: the line joined over SIM_JOIN_SECONDS, each newcomer scheduled as the last in line like the join batcher does; the window starts when the last one joined.`,
    `- Engine in-process run (bench/lifecycle_sim.ts): tests/helpers.ts makeApp over \`Deno.openKv(":memory:")\` wrapped by bench/counting_kv.ts, which attributes every successful commit to the visitors whose keys it mutates and labels it join / admit (tick) / enter (status of an admitted visitor) / checkin (renewal of a waiting one). Admissions per minute are the counts record's \`admitted\` after each 60th tick.`,
  ];
  const steady = r.checkins.find((c) => c.start === "steady");
  if (steady && (steady.p99 > 790 || steady.mean < 675)) {
    out.push(
      `- Finding: the steady line checks in at mean ${
        Math.round(steady.mean)
      }/s, p99 ${steady.p99}/s against the 750/s budget; the simulation calls the engine's \`schedule()\`, so this is the engine's schedule, not the bench.`,
    );
  }
  const flash = r.checkins.find((c) => c.start === "flash");
  if (flash && flash.p99 > 790) {
    out.push(
      `- Finding: after a flash crowd (${
        f(flash.waiting)
      } joining in ${cfg.simJoinSeconds} s) the line checks in at p99 ${flash.p99}/s (up to ${flash.warmupMax}/s while joining).`,
    );
  }
  const t = targets(r);
  if (t[0].pass === false) out.push(...JOIN_ANALYSIS);
  if (t[1].pass === false) out.push(...STATUS_ANALYSIS);
  return out;
}
