/**
 * The notes of RESULTS.md: how each number was measured, and, while a target is missed, what
 * profiling found. The profile findings were measured when this bench was written
 * (`deno run --cpu-prof` on the server under wrk, and micro-benchmarks of the pieces; those
 * scripts are not kept); re-profile after engine changes.
 */
import type { BenchConfig } from "./config.ts";
import type { LoadTool } from "./load.ts";
import { type Results, targets } from "./report.ts";

const f = (x: number) => Math.round(x).toLocaleString("en-US");

/** Profile findings for the joins target (after the first round of fixes). */
export const JOIN_ANALYSIS = [
  "- Joins, profiled again after the fixes this bench suggested first (time-ordered visitor ids, no random-key " +
  "lottery index, batches up to 250, synchronous HMAC, no view reload per batch; from about 3k to 6k-9k joins/s " +
  "depending on the machine's load): " +
  "the file KV alone takes about 2.2 ms to commit 64 joins of three keys each (about 30k joins/s with nothing " +
  "else running), and the server's JS spends about 50 to 60 us per join on HTTP, JSON, zod, the ticket HMAC and " +
  "cookies. Under wrk's closed loop of 64 connections the two alternate more than they overlap. The join answers " +
  "only after its commit is durable (a 202 must survive a crash), so the remaining levers are a cheaper request " +
  "path and overlapping the next batch's work with the current commit.",
];

/** Profile findings for the status target (after the first round of fixes). */
export const STATUS_ANALYSIS = [
  "- Status (slot not due), profiled again after the fixes (verified-ticket cache, synchronous HMAC, headers set " +
  "on the made Response, a plain Deno.serve fast path in front of Hono; from about 13k to 21k-34k status/s " +
  "depending on the machine's load): the engine's part " +
  "(cached view, position, estimate) is under 1 us and ticket verification of a repeat ticket 0.2 us; the rest " +
  "is Deno.serve and the Response with its JSON body and five headers (a header passed in a Response init " +
  "costs about a microsecond in Deno; set on the made Response, a third of that). The ratio also moves with " +
  "the baseline, which ran between 55k and 114k requests/s on this shared machine.",
];

/** The notes of a run. */
export function notes(r: Results, cfg: BenchConfig, tool: LoadTool): string[] {
  const out = [
    `- Servers: each measured server is its own process (\`deno run -A main.ts\` with a fresh temp KV file via DENO_KV_PATH, TOKEN_SECRET, PORT, MAX_WAITING_VISITORS=50000000, ADMIT_PER_SECOND=${cfg.serverAdmitPerSecond}), and so is the load generator (${tool}). Baseline: bench/baseline_server.ts (Deno.serve + Hono, \`c.text\`), its own process, running through the joins and status runs: each of those alternates ${cfg.rounds} slices with a baseline slice of the same length, and its ratio is against those baseline slices.`,
    `- Joins: \`POST /join\` with body \`{"queue":"default"}\` and no cookie, so every request creates a new visitor (the server draws the id); ${cfg.connections} connections, ${cfg.threads} wrk threads, ${cfg.warmupSec} s warm-up then ${cfg.durationSec} s in ${cfg.rounds} slices.`,
    `- Status: \`GET /status?queue=default\` with a \`tg_ticket\` cookie from a real join whose nextCheckAt is after the run, so the engine answers from its cached view (no KV write).`,
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
