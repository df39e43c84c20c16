/**
 * A join answered with an error is never a second place (issue 36, part 2; issue 31, "Shown
 * by"): four real server processes over one KV file, a crowd of joins spread over them, each sent
 * with its own visitor id so every answer can be matched to the store, and one instance stopped
 * (SIGSTOP) for 4 s mid-crowd, as a host that stalls. A stalled instance may answer 503 to joins
 * whose commit lands after all (0.7.3 placed 32 to 40 of them, without a ticket: the visitor's
 * retry took a second place); another instance's commit may wait on a lock the stalled one holds.
 *
 * Checked: no join answered with an error is placed (a commit under way at its deadline answers
 * the join when it lands within 100 ms of the deadline being seen; the 503 still carries the
 * ticket of its id, for a commit later still); its retry (same id, with that ticket) gets exactly
 * one place; nobody answered 200/202 is lost; no id holds two places (one arrival number, one
 * line entry each, numbers handed out = places); after a tick every waiter's status on EVERY
 * instance gives the store's exact position; the counts equal a recount (and the doctor's).
 */
import { keys } from "../lib/store/keys.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { withEnters } from "../lib/queue/enters.ts";
import { pendingOf } from "../lib/store/sums.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import {
  claimsOf,
  operatorMetrics,
  type Server,
  sharedStoreShowingCounts,
  sleep,
  startServers,
  statusOn,
  stopServers,
  ticketCookieOf,
} from "./server_procs.ts";

const Q = "default";
const SECRET = "multiprocess-sigstop-secret-0123456789ab";
/** Joins in the crowd, sent open-loop (a stalled instance does not slow the others' crowd). */
const JOINS = 800;
const CROWD_MS = 6000;
/** When the stalled instance stops (from the crowd's start), and for how long. */
const STOP_AT_MS = 1500;
const STOP_MS = 4000;
const CAPACITY = 20;
/** Joins sent to the stalled instance at once, `BURST_LEAD_MS` before it stops. */
const BURST = 150;
const BURST_LEAD_MS = 40;

/** One join's answer. */
interface Answer {
  id: string;
  port: number;
  status: number;
  code?: string;
  /** The `tg_ticket=...` cookie the answer set. */
  ticket?: string;
  visitorId?: string;
  /** Sent to the stalled instance while it was stopped. */
  toStopped: boolean;
}

const subOf = (ticket: string) => claimsOf(ticket.slice("tg_ticket=".length)).sub as string;

async function join(port: number, id: string, ticket?: string) {
  const res = await fetch(`http://127.0.0.1:${port}/join`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(ticket ? { cookie: ticket } : {}) },
    body: JSON.stringify({ queue: Q, visitorId: id }),
    // Far past the stall: a join is answered, never given up on by the client.
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  // deno-lint-ignore no-explicit-any
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return {
    status: res.status,
    code: json?.error?.code as string | undefined,
    visitorId: json?.visitorId as string | undefined,
    ticket: ticketCookieOf(res),
    json,
    text,
  };
}

const status = (port: number, ticket: string) => statusOn(port, Q, ticket);

/** The crowd: `JOINS` joins round-robin over the servers, one instance stopped for a while. */
async function crowd(servers: Server[], stalled: Server): Promise<Answer[]> {
  const t0 = Date.now();
  let stopped = false;
  const sent: Promise<Answer>[] = [];
  const send = (s: Server, id: string, toStopped: boolean) =>
    sent.push(
      join(s.port, id).then(
        (r) => ({ id, port: s.port, toStopped, ...r }),
        (e) => ({ id, port: s.port, toStopped, status: 0, code: String(e) }),
      ),
    );
  const stall = (async () => {
    await sleep(STOP_AT_MS);
    // A burst to the instance just before it stops: it stalls with joins half done (in its
    // commits, or holding the file's write lock), which is what a stalled host makes of a crowd.
    for (let i = 0; i < BURST; i++) send(stalled, `sigstop-b${String(i).padStart(3, "0")}`, true);
    await sleep(BURST_LEAD_MS);
    Deno.kill(stalled.child.pid, "SIGSTOP");
    stopped = true;
    await sleep(STOP_MS);
    Deno.kill(stalled.child.pid, "SIGCONT");
    stopped = false;
  })();
  for (let i = 0; i < JOINS; i++) {
    await sleep(t0 + (i * CROWD_MS) / JOINS - Date.now());
    const s = servers[i % servers.length];
    send(s, `sigstop-${String(i).padStart(4, "0")}`, stopped && s === stalled);
  }
  await stall;
  return await Promise.all(sent);
}

/** Waits until the sequencer numbered every join (no arrival entry, the sum empty). */
async function numbered(kv: Deno.Kv): Promise<void> {
  const by = Date.now() + 8000;
  for (;;) {
    const left = await Array.fromAsync(kv.list({ prefix: keys.arrivalPrefix(Q) }));
    const sum = pendingOf(await kv.get<Deno.KvU64>(keys.arrivalsPending(Q)));
    if (left.length === 0 && sum === 0) return;
    assert(Date.now() < by, `still unnumbered: ${left.length} arrivals, sum ${sum}`);
    await sleep(100);
  }
}

async function records(kv: Deno.Kv): Promise<Map<string, Visitor>> {
  const out = new Map<string, Visitor>();
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    out.set(e.value.id, e.value);
  }
  return out;
}

Deno.test({
  name:
    "four processes, one stopped for 4 s mid-crowd: no join answered with an error holds a place it was not told of, none holds two",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { dir, kvPath } = await sharedStoreShowingCounts("tollgate-mp-stop-");
    const servers: Server[] = [];
    try {
      await startServers(
        4,
        {
          DENO_KV_PATH: kvPath,
          TOKEN_SECRET: SECRET,
          ADMIT_PER_SECOND: "10",
          CAPACITY: String(CAPACITY),
          QUEUES: Q,
          ADMISSION_MODE: "queue",
          JOINS_PER_CLIENT_PER_MINUTE: "0", // one loopback client makes every join
        },
        true,
        servers,
      );
      const stalled = servers[1];
      const answers = await crowd(servers, stalled);
      const kv = await Deno.openKv(kvPath);
      try {
        await check(servers, kv, answers, stalled);
      } finally {
        kv.close();
      }
      await stopServers(servers);
      const logs = servers.map((s) => s.log.join("")).join("");
      assert(!/"msg":"unhandled"/.test(logs), `servers logged errors: ${logs.slice(0, 2000)}`);
      // At rest, the doctor's recount agrees with the counts too.
      const rest = await Deno.openKv(kvPath);
      try {
        const d = await diagnose(rest, Q, { pauseMs: 0 });
        assert(d.healthy, `doctor: ${JSON.stringify(d)}`);
      } finally {
        rest.close();
      }
    } finally {
      await stopServers(servers);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

async function check(servers: Server[], kv: Deno.Kv, answers: Answer[], stalled: Server) {
  const ok = answers.filter((a) => a.status === 200 || a.status === 202);
  const failed = answers.filter((a) => !(a.status === 200 || a.status === 202));
  const summary = {
    joins: answers.length,
    answered: ok.length,
    failed: failed.length,
    failedCodes: [...new Set(failed.map((a) => `${a.status} ${a.code}`))],
    failedWithTicket: failed.filter((a) => a.ticket).length,
    toStopped: answers.filter((a) => a.toStopped).length,
    failedOnStalled: failed.filter((a) => a.port === stalled.port).length,
  };
  // The crowd (besides the burst) reached the stalled instance while it was stopped.
  assert(summary.toStopped - BURST > 50, `joins sent into the stall: ${JSON.stringify(summary)}`);
  for (const a of ok) assertEquals(a.visitorId, a.id, "an answer names the id it placed");
  for (const a of failed) {
    // Errors a stalled host may cause: the store busy (503), nothing else.
    assertEquals([a.status, a.code], [503, "store_busy"], `join ${a.id} on ${a.port}`);
  }

  // Late commits of cut-off joins land once the stalled instance runs again; a tick numbers them.
  await sleep(1500);
  await numbered(kv);
  const before = await records(kv);
  const placedUntold = failed.filter((a) => before.has(a.id) && a.ticket === undefined);
  assertEquals(placedUntold.map((a) => a.id), [], "answered 503 without a ticket, yet placed");
  for (const a of failed) {
    if (a.ticket) assertEquals(subOf(a.ticket), a.id, "a 503's ticket is that of the id tried");
  }
  const placedAfter503 = failed.filter((a) => before.has(a.id)).length;
  // A commit under way when the host stalled lands as it runs again, when its deadline is seen as
  // past: its own outcome answers the join (it was cut off, 16 to 57 such joins placed a run).
  assertEquals(placedAfter503, 0, "joins answered 503 yet placed");

  // Each failed join retried with the same request (id, and the ticket its answer carried): one
  // place, the one written after all when there was one.
  for (const [i, a] of failed.entries()) {
    const r = await join(servers[i % servers.length].port, a.id, a.ticket);
    assert(r.status === 200 || r.status === 202, `retry of ${a.id}: ${r.status} ${r.text}`);
    assertEquals(r.visitorId, a.id, `retry of ${a.id} keeps its id`);
    a.ticket = r.ticket ?? a.ticket;
  }
  await numbered(kv);
  const store = await records(kv);
  console.log("sigstop round:", JSON.stringify({ ...summary, placedAfter503 }));

  // Nobody lost, nobody unknown, nobody twice.
  const sentIds = new Set(answers.map((a) => a.id));
  for (const a of answers) assert(store.has(a.id), `${a.id} holds no place (lost)`);
  for (const id of store.keys()) assert(sentIds.has(id), `a place nobody asked for: ${id}`);
  const counts = withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);
  // Nobody left or lapsed in this run: every arrival number handed out is one of these places.
  assertEquals(counts.nextSeq - 1, store.size, "arrival numbers handed out = places held");
  const line = await Array.fromAsync(kv.list<string>({ prefix: keys.fifoPrefix(Q) }));
  const waiting = [...store.values()].filter((v) => v.state === "waiting");
  assertEquals(line.length, waiting.length, "one line entry per waiter");
  const lineIds = new Set(line.map((e) => e.value));
  assertEquals(lineIds.size, line.length, "no id twice in the line");
  for (const v of waiting) {
    assert(v.seq > 0, `${v.id} numbered`);
    assert(lineIds.has(v.id), `${v.id} has its line entry`);
  }
  const seqs = new Set([...store.values()].map((v) => v.seq));
  assertEquals(seqs.size, store.size, "one arrival number per place");

  // Counts equal a recount.
  const enters = pendingOf(await kv.get<Deno.KvU64>(keys.entersPending(Q)));
  const c = withEnters(counts, enters);
  const inside = [...store.values()].filter((v) => v.state !== "waiting");
  assertEquals(
    { waiting: c.waiting, inside: c.holding + c.entered, admitted: c.admitted },
    { waiting: waiting.length, inside: inside.length, admitted: inside.length },
    "counts equal a recount",
  );
  assert(inside.length <= CAPACITY, `capacity held: ${inside.length}`);

  // Every instance's view agrees with the store (a view is at most a second old).
  const settleBy = Date.now() + 5000;
  let seen: number[] = [];
  do {
    if (seen.length) await sleep(100);
    seen = await Promise.all(
      servers.map(async (s) => (await operatorMetrics(s.port, SECRET, Q)).waiting),
    );
  } while (seen.some((w) => w !== c.waiting) && Date.now() < settleBy);
  assertEquals(seen, servers.map(() => c.waiting), "every instance's waiting count");

  // After the tick every waiter's status, on every instance, gives the store's exact position.
  const rank = new Map<string, number>();
  waiting.sort((a, b) => a.seq - b.seq).forEach((v, i) => rank.set(v.id, i + 1));
  const tickets = new Map<string, string>();
  for (const a of answers) if (a.ticket) tickets.set(a.id, a.ticket);
  const wrong: string[] = [];
  const ids = [...store.keys()];
  let k = 0;
  const asker = async () => {
    while (k < ids.length) {
      const id = ids[k++];
      const ticket = tickets.get(id);
      if (!ticket) {
        wrong.push(`${id}: no ticket`);
        continue;
      }
      for (const s of servers) {
        const r = await status(s.port, ticket);
        const want = rank.get(id);
        const b = r.body;
        const why = [];
        if (r.status !== 200) why.push(`status ${r.status}`);
        else if (want === undefined) {
          if (b.status !== "admitted") why.push(`${b.status}, admitted in the store`);
        } else {
          if (b.status !== "waiting") why.push(`${b.status}, waiting in the store`);
          if (b.positionExact === false) why.push("still provisional");
          if (b.position !== want) why.push(`position ${b.position}`);
          if (b.waiting !== c.waiting) why.push(`waiting ${b.waiting}`);
          if (b.ahead !== want - 1 || b.behind !== c.waiting - want) {
            why.push(`ahead ${b.ahead}, behind ${b.behind}`);
          }
        }
        if (why.length) wrong.push(`${id} (at ${want}) on ${s.port}: ${why}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 32 }, asker));
  assertEquals(wrong.slice(0, 10), [], `${wrong.length} wrong status answers`);
}
