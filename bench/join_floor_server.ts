/**
 * The floors of a join, for comparison with `POST /join`: a `Deno.serve` app that does only the
 * storage work of a waiting visitor's join and nothing of the queue. It reads the JSON body,
 * makes an id, and answers 202 as Tollgate's join does (the same response builder, security
 * headers, request id and `tg_ticket` cookie, for a view of the usual size), so the comparison
 * measures the queue's logic and nothing of the answer's shape. What it writes depends on
 * `FLOOR_LAYOUT`:
 *
 * - `visitor` (the default, "KV floor"): what 0.8's join commits (lib/queue/join_write.ts), with
 *   the same keys and sums: per join the visitor record (unnumbered, with its arrival key), its
 *   arrival entry (the record again) and its deadline entry; per commit the `arrivalsPending`,
 *   check-in and traffic sums; no checked counts record. Joins go through the same group commits
 *   as JoinWriter's (lib/queue/batches.ts: up to four in flight, a few ms apart, 150 joins each).
 * - `counted`: 0.7.3's join floor, for comparison: the visitor record, its line entry and its
 *   deadline (`putWaiting`), plus one counts record checked against the last commit, a check-in
 *   sum and a traffic sum per batch; up to 250 joins per commit, one commit in flight.
 * - `batch`: the same group commits, but one record per batch (the batch's ids) in place of the
 *   three records per visitor: close to the cheapest durable join a layout could have (Tollgate
 *   finds a waiter by its id, its place in line and its liveness deadline).
 * - `none`: no KV at all, the HTTP work of a join alone.
 *
 * It does no signing, no settings, no slot planning and no positions. Run as its own process,
 * like the baseline.
 */
import { setImmediate } from "node:timers";
import { visitorCookie } from "../http/cookies.ts";
import { jsonResponse } from "../http/response.ts";
import { assignRequestId } from "../lib/log.ts";
import { putWaiting } from "../lib/queue/records.ts";
import { countTraffic } from "../lib/traffic.ts";
import { sumCheckins } from "../lib/queue/checkins.ts";
import { GroupCommits } from "../lib/queue/batches.ts";
import type { Visitor, VisitorView } from "../lib/queue/types.ts";
import { keys } from "../lib/store/keys.ts";

const Q = "default";
/** Stands in for a signed ticket's claims and signature, about as long as a real one. */
const TICKET_TAIL = "x".repeat(120);
const port = Number(Deno.env.get("PORT") ?? "8101");
const LAYOUTS = ["visitor", "counted", "batch", "none"] as const;
const layout = Deno.env.get("FLOOR_LAYOUT") ?? "visitor";
if (!(LAYOUTS as readonly string[]).includes(layout)) {
  throw new Error(`FLOOR_LAYOUT must be one of ${LAYOUTS.join(", ")}, not "${layout}"`);
}
const kv = await Deno.openKv(Deno.env.get("DENO_KV_PATH") ?? ":memory:");

interface Pending {
  id: string;
  resolve: (seq: number) => void;
  reject: (e: unknown) => void;
}

let pending: Pending[] = [];
let busy = false;
let nextSeq = 0;
let countsStamp: string | null = null;

/** This process's id in arrival keys (an instance id) and its arrival counter. */
const INSTANCE = "floor1";
let arrivals = 0;

/** One group commit of 0.8's join records: nothing checked (a generated id is never taken). */
async function commitOwn(batch: Pending[]): Promise<void> {
  const now = Date.now();
  const sec = Math.floor(now / 1000);
  const op = kv.atomic();
  const seqs: number[] = [];
  for (const p of batch) {
    const nextCheckAt = now + 60_000;
    const n = arrivals++;
    const v: Visitor = {
      id: p.id,
      seq: 0,
      joinedAt: now,
      state: "waiting",
      nextCheckAt,
      deadline: nextCheckAt + 30_000,
      mark: [now, INSTANCE, n],
    };
    op.set(keys.visitor(Q, v.id), v)
      .set(keys.arrival(Q, now, INSTANCE, n), v)
      .set(keys.deadline(Q, v.deadline, v.id), 0);
    // The provisional place: the back of the line as this process counts it.
    seqs.push(nextSeq++);
  }
  op.sum(keys.arrivalsPending(Q), BigInt(batch.length));
  sumCheckins(op, Q, batch.map(() => sec + 60));
  countTraffic(op, Q, now, "in", batch.length);
  const res = await op.commit();
  if (!res.ok) throw new Error("a commit with no checks lost");
  batch.forEach((p, i) => p.resolve(seqs[i]));
}

/** 0.8's group commits of joins (JoinWriter's settings). */
const own = new GroupCommits<Pending>({
  inFlight: 4,
  full: 150,
  cut: () => 150,
  commit: commitOwn,
});

async function commit(batch: Pending[]): Promise<number[]> {
  const now = Date.now();
  const sec = Math.floor(now / 1000);
  const op = kv.atomic().check({ key: keys.counts(Q), versionstamp: countsStamp });
  const seqs: number[] = [];
  for (const p of batch) {
    const seq = nextSeq++;
    const nextCheckAt = now + 60_000;
    const v: Visitor = {
      id: p.id,
      seq,
      joinedAt: now,
      state: "waiting",
      nextCheckAt,
      deadline: nextCheckAt + 30_000,
    };
    if (layout === "counted") putWaiting(op, Q, v);
    seqs.push(seq);
  }
  if (layout === "batch") op.set(["floor-batch", Q, seqs[0]], batch.map((p) => p.id));
  sumCheckins(op, Q, batch.map(() => sec + 60));
  countTraffic(op, Q, now, "in", batch.length);
  op.set(keys.counts(Q), { waiting: nextSeq, nextSeq });
  const res = await op.commit();
  if (!res.ok) throw new Error("counts changed under the floor server");
  countsStamp = res.versionstamp;
  return seqs;
}

async function flush(): Promise<void> {
  busy = true;
  // As 0.7.3's group commits waited: an immediate lets the requests already received join the
  // first batch.
  await new Promise((r) => setImmediate(r));
  while (pending.length > 0) {
    const batch = pending.slice(0, 250);
    pending = pending.slice(250);
    try {
      const seqs = await commit(batch);
      batch.forEach((p, i) => p.resolve(seqs[i]));
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }
  busy = false;
}

const rnd = new Uint8Array(16);
Deno.serve(
  { hostname: "127.0.0.1", port, onListen: () => console.log(`join floor on ${port}`) },
  async (req) => {
    if (req.method !== "POST") return new Response("ok");
    const requestId = assignRequestId(req);
    const body = await req.json();
    crypto.getRandomValues(rnd);
    const id = Date.now().toString(36) + btoa(String.fromCharCode(...rnd)).slice(0, 22);
    const seq = layout === "none" ? nextSeq++ : await new Promise<number>((resolve, reject) => {
      if (layout === "visitor") return own.add({ id, resolve, reject });
      pending.push({ id, resolve, reject });
      if (!busy) void flush();
    });
    // The answer Tollgate's join gives (the same builder, headers and cookie), for a view of the
    // usual size: the floor measures the records, not a cheaper answer.
    const view: VisitorView = {
      queue: body.queue,
      visitorId: id,
      status: "waiting",
      admissionMode: "queue",
      nextCheckAt: Date.now() + 60_000,
      nextPollAfterMs: 60_000,
      estimatedWaitSeconds: 600,
      position: seq + 1,
    };
    const res = jsonResponse(view, 202);
    res.headers.append(
      "Set-Cookie",
      visitorCookie("tg_ticket", `${id}.${seq}.${TICKET_TAIL}`, 86400, false),
    );
    res.headers.set("X-Request-Id", requestId);
    return res;
  },
);
