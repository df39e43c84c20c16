/**
 * Positions are exact on every instance after one tick: several real server processes over one KV
 * file, 1,000 joins split between them while the tick admits up to capacity.
 *
 * 0.8: a join's answer is provisional (`positionExact: false`, the back of the line as its
 * instance knows it) until the tick's sequencer numbered it; it was exact at the join before.
 * What stays exact is checked here: once the sequencer ran, every waiter asks its status on EVERY
 * instance, and each answer must give the position the store says (1 + the waiters with lower
 * arrival numbers), its arrival number in the ticket, ahead/behind/waiting that agree with it,
 * and the same on every instance. A stale view on one of two instances once answered 150 too low.
 */
import { keys } from "../lib/store/keys.ts";
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
const SECRET = "multiprocess-positions-secret-0123456789";

interface Answer {
  id: string;
  ticket: string;
  port: number;
  position: number;
  ahead: number;
  behind: number;
  waiting: number;
  positionExact?: boolean;
}

async function joinOnce(port: number, id: string): Promise<Answer | { admitted: true }> {
  const res = await fetch(`http://127.0.0.1:${port}/join`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ queue: Q, visitorId: id }),
  });
  const body = await res.json();
  if (res.status === 200) return { admitted: true };
  assertEquals(res.status, 202, `join on ${port}: ${JSON.stringify(body)}`);
  assertEquals(body.visitorId, id, "the client-chosen id");
  const { position, ahead, behind, waiting, positionExact } = body;
  return {
    id,
    ticket: ticketCookieOf(res)!,
    port,
    position,
    ahead,
    behind,
    waiting,
    positionExact,
  };
}

/** A status on `port` (200 expected). */
async function statusAt(port: number, ticket: string) {
  const out = await statusOn(port, Q, ticket);
  assertEquals(out.status, 200, `status on ${port}: ${JSON.stringify(out.body)}`);
  return out;
}

/** Runs `joins` joins over `processes` servers (`inFlight` at a time) and checks every answer. */
async function exactPositions(processes: number, joins: number, inFlight: number) {
  const { dir, kvPath } = await sharedStoreShowingCounts("tollgate-mp-pos-");
  const servers: Server[] = [];
  try {
    await startServers(
      processes,
      {
        DENO_KV_PATH: kvPath,
        TOKEN_SECRET: SECRET,
        ADMIT_PER_SECOND: "40",
        CAPACITY: "50",
        QUEUES: Q,
        ADMISSION_MODE: "queue",
        JOINS_PER_CLIENT_PER_MINUTE: "0", // one loopback client makes every join
      },
      true,
      servers,
    );
    const kv = await Deno.openKv(kvPath);
    try {
      const answers: Answer[] = [];
      let instant = 0, next = 0;
      const worker = async () => {
        while (next < joins) {
          const i = next++;
          const a = await joinOnce(servers[i % processes].port, `mp-pos-${i}`);
          if ("admitted" in a) instant++;
          else answers.push(a);
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
      assertEquals(answers.length + instant, joins, "every join answered");
      const ports = new Set(answers.map((a) => a.port));
      assertEquals(ports.size, processes, "every process answered joins");
      // 0.8: the join's answer is provisional and says so; it is still a consistent one.
      const badJoin = answers.filter((a) =>
        a.positionExact !== false || a.position < 1 || a.ahead !== a.position - 1 ||
        a.behind !== a.waiting - a.position || a.behind < 0
      );
      assertEquals(badJoin.slice(0, 5), [], `${badJoin.length} inconsistent join answers`);

      // One tick later the sequencer has numbered every join (no arrival entry, the sum empty).
      const numberedBy = Date.now() + 5000;
      let arrivals = 1;
      while (arrivals > 0 && Date.now() < numberedBy) {
        await sleep(100);
        arrivals = (await Array.fromAsync(kv.list({ prefix: keys.arrivalPrefix(Q) }))).length;
      }
      assertEquals(arrivals, 0, "every join numbered by the sequencer");
      const sum = (await kv.get<Deno.KvU64>(keys.arrivalsPending(Q))).value?.value ?? 0n;
      assertEquals(Number(sum), 0, "the sum of joins not numbered is empty");

      // Metrics say how old they are, and a view at most a second old counts every waiter: each
      // instance catches up with the store within about a second. The store's count settles once
      // the admissions reach capacity: 40 a second makes that two ticks, and on a loaded machine
      // the joins can all be numbered before the second one, so wait for it too (CI once saw 40).
      let counts = EMPTY_COUNTS;
      let seen: number[] = [];
      const settleBy = Date.now() + 10_000;
      do {
        if (seen.length) await sleep(100);
        counts = withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);
        seen = await Promise.all(
          servers.map(async (s) => (await operatorMetrics(s.port, SECRET, Q)).waiting),
        );
      } while (
        (counts.admitted < 50 || seen.some((w) => w !== counts.waiting)) &&
        Date.now() < settleBy
      );
      for (const s of servers) {
        const m = await operatorMetrics(s.port, SECRET, Q);
        assert(m.viewAgeMs >= 0 && m.viewAgeMs < 1000, `viewAgeMs ${m.viewAgeMs}`);
        assertEquals(m.waiting, counts.waiting, `metrics of ${s.port} against the store`);
      }
      assertEquals(counts.nextSeq - 1, joins, "one arrival number per join");
      assert(counts.admitted > 0, `the tick admitted while joins came (${counts.admitted})`);
      assertEquals(counts.admitted, 50, "admitted up to capacity, then none");

      // The store's line: each waiter's exact position is 1 + the waiters with lower numbers.
      const line = new Map<string, { seq: number; position: number }>();
      const waiters = [];
      const inside = new Set<string>();
      for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
        if (e.value.state === "waiting") waiters.push(e.value);
        else inside.add(e.value.id);
      }
      assertEquals(inside.size, counts.admitted, "every admission holds its record");
      waiters.sort((a, b) => a.seq - b.seq);
      waiters.forEach((v, i) => line.set(v.id, { seq: v.seq, position: i + 1 }));
      assertEquals(waiters.length, counts.waiting, "counts equal a recount of the waiters");

      // Every waiter asks on every instance: the same exact answer everywhere.
      const wrong: string[] = [];
      let k = 0;
      const asker = async () => {
        while (k < answers.length) {
          const a = answers[k++];
          const want = line.get(a.id);
          if (!want) {
            // Answered 202, then admitted by a tick: admitted on every instance.
            if (!inside.has(a.id)) wrong.push(`${a.id} answered 202 but holds no record`);
            for (const s of servers) {
              const { body } = await statusAt(s.port, a.ticket);
              if (inside.has(a.id) && body.status !== "admitted") {
                wrong.push(`${a.id} admitted, on ${s.port}: ${body.status}`);
              }
            }
            continue;
          }
          for (const s of servers) {
            const { body, ticket } = await statusAt(s.port, a.ticket);
            if (ticket) a.ticket = ticket;
            const seq = claimsOf(a.ticket.slice("tg_ticket=".length)).seq as number;
            const why = [];
            if (body.status !== "waiting") why.push(`status ${body.status}`);
            if (body.positionExact === false) why.push("still provisional");
            if (body.position !== want.position) why.push(`position ${body.position}`);
            if (seq !== want.seq) why.push(`ticket seq ${seq}`);
            if (body.ahead !== want.position - 1) why.push(`ahead ${body.ahead}`);
            if (body.waiting !== counts.waiting) why.push(`waiting ${body.waiting}`);
            if (body.behind !== counts.waiting - want.position) why.push(`behind ${body.behind}`);
            if (why.length) {
              wrong.push(`${a.id} (seq ${want.seq}, at ${want.position}) on ${s.port}: ${why}`);
            }
          }
        }
      };
      await Promise.all(Array.from({ length: inFlight }, asker));
      assertEquals(wrong.slice(0, 10), [], `${wrong.length} wrong status answers`);
    } finally {
      kv.close();
    }
  } finally {
    await stopServers(servers);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "two processes, 1,000 joins split between them: every position is exact",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () => exactPositions(2, 1000, 40),
});

Deno.test({
  name: "four processes, 1,000 joins split between them: every position is exact",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () => exactPositions(4, 1000, 40),
});
