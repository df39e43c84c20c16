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

/** Profile findings for the joins target. */
export const JOIN_ANALYSIS = [
  "- Joins, profiled (server under wrk, 64 connections): the JS thread was about 70% idle, waiting for KV commits. " +
  "A join writes 4 keys (record, fifo, lottery, deadline index); on the file KV a group commit of 90 joins took " +
  "about 26 ms (about 3.5k visitors/s at best), almost all of it per key: the record key (random visitor id) and " +
  "the lottery key (random rkey) land on random B-tree pages, so each commit dirties about two pages per visitor. " +
  "Same commit with time-ordered visitor ids (a sequence or time prefix before the random part): about 15 ms; " +
  "with time-ordered ids and no lottery index: about 4.5 ms (about 20k visitors/s), 5.7x the current layout.",
  "- Suggestions (joins): (1) time-ordered visitor ids, e.g. 6 bytes of arrival time or sequence + 16 random bytes, " +
  "so record inserts append; (2) no random-keyed lottery index in queue mode: draw lottery winners by a uniform " +
  "arrival number in [head, nextSeq) looked up in the fifo index, retrying on gone ones (uniform, no extra key), " +
  "or keep the index only while the queue is in lottery mode; (3) keep one commit building while the previous " +
  "one is in flight (JoinBatcher awaits each commit before it reads the next batch), and let batches of " +
  "generated ids grow past 90 (they need no check; the 1000-mutation limit allows about 240); " +
  "(4) then the JS side: ticket signing with WebCrypto HMAC (about 20% of busy JS time per join) and the " +
  "security-header middleware below.",
];

/** Profile findings for the status target. */
export const STATUS_ANALYSIS = [
  "- Status (slot not due), profiled under wrk: the server's JS thread is saturated, at 70 to 135 us " +
  "per request depending on how busy the shared machine was; the engine part (cached view, waitingView) " +
  "is a few us. The time goes to: ticket verification with `crypto.subtle.verify` (HMAC-SHA256, an async " +
  "op) about 35 to 40% of it (20 to 50 us per call); app.ts's header middleware about 10%: `c.header()` " +
  "after `await next()` makes Hono copy the whole Response once per header (4 copies per request; a " +
  "micro-benchmark of that middleware: 14 us vs 2.7 us with `c.res.headers.set`); zod-openapi query " +
  "validation and cookie parsing about 10%; the rest is Deno.serve and Hono routing. Plain Hono text " +
  "costs about 10 us per request here, so 0.5 x baseline leaves a status call about 20 us.",
  "- Suggestions (status): (1) memoize verified tickets: a bounded Map from the exact ticket string to its claims " +
  "(the string carries the signature, so a hit is as good as a verification) makes repeat polls skip HMAC, and a " +
  "synchronous HMAC would make misses cheaper; (2) in app.ts set the security headers on `c.res.headers` " +
  "directly (or before `await next()`); (3) validate the hot `/status` query by hand instead of through the " +
  "OpenAPI validator, keeping the schema for the document. (1) and (2) together remove about half of the " +
  "per-request time measured here.",
];

/** The notes of a run. */
export function notes(r: Results, cfg: BenchConfig, tool: LoadTool): string[] {
  const out = [
    `- Servers: each measured server is its own process (\`deno run -A main.ts\` with a fresh temp KV file via DENO_KV_PATH, TOKEN_SECRET, PORT, MAX_WAITING_VISITORS=50000000, ADMIT_PER_SECOND=${cfg.serverAdmitPerSecond}), and so is the load generator (${tool}). Baseline: bench/baseline_server.ts (Deno.serve + Hono, \`c.text\`), its own process, running through the joins and status runs: each of those alternates ${cfg.rounds} slices with a baseline slice of the same length, and its ratio is against those baseline slices.`,
    `- Joins: \`POST /join\` with body \`{"queue":"default"}\` and no cookie, so every request creates a new visitor (the server draws the id); ${cfg.connections} connections, ${cfg.threads} wrk threads, ${cfg.warmupSec} s warm-up then ${cfg.durationSec} s in ${cfg.rounds} slices.`,
    `- Status: \`GET /status?queue=default\` with a \`tg_ticket\` cookie from a real join whose nextCheckAt is after the run, so the engine answers from its cached view (no KV write).`,
    `- Latency: ${cfg.latencyConnections} connection(s), so p50 is service time rather than queueing. The polled waiters joined over HTTP; a response's new \`tg_ticket\` replaces the old one, as in a browser. A line of ${cfg.smallLine} has a 5 s check-in period, so each polled waiter makes a due check-in (one KV commit) every 5 to 10 s; on the long line their slots are minutes away. Both p50s are dominated by the cached path. The two servers run side by side (idle while the other is measured) and their slices alternate; the ratio is the median of the per-round ratios.`,
    `- Long line: the waiters are written straight into the KV file before the server starts (bench/seed.ts: the record and its fifo, lottery and deadline index per visitor as putWaiting writes them, plus the counts record), each index in key order, 1000 keys per commit; the stored data is what joins would leave. Their slots and deadlines come from the engine's \`schedule()\` as if the line had joined 10 minutes ahead, so none lapses during the run; the check-in occupancy sums of their seconds are written too.`,
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
