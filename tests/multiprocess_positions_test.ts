/**
 * Join answers are exact on every instance: several real server processes over one KV file, 1,000
 * joins split between them while the tick admits up to capacity. A join's position must be 1 +
 * the waiters with lower arrival numbers as of its own commit, whichever process answered.
 *
 * Nobody leaves and admission is FIFO, so the visitors not waiting below arrival number `s` at the
 * commit of `s` are always a prefix 1..A(s) of the arrivals, and the answer says A(s) = s -
 * position. A(s) can only grow with `s` (commits hand out arrival numbers in order, admissions
 * only add to the prefix) and can never pass the admissions counted at the end. An answer from a
 * stale view breaks one of the two: it was 150 too low on one of two instances before.
 */
import { keys } from "../lib/store/keys.ts";
import { type Counts, DEFAULT_BRANDING, EMPTY_COUNTS, withDefaults } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { claimsOf, type Server, sleep, startServers, stopServers } from "./server_procs.ts";

const Q = "default";
const SECRET = "multiprocess-positions-secret-0123456789";

interface Answer {
  seq: number;
  port: number;
  position: number;
  ahead: number;
  behind: number;
  waiting: number;
}

async function joinOnce(port: number): Promise<Answer | { seq: number; admitted: true }> {
  const res = await fetch(`http://127.0.0.1:${port}/join`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ queue: Q }),
  });
  const body = await res.json();
  const ticket = res.headers.getSetCookie().find((c) => c.startsWith("tg_ticket="))!;
  const seq = claimsOf(ticket.split(";")[0].slice("tg_ticket=".length)).seq as number;
  if (res.status === 200) return { seq, admitted: true };
  assertEquals(res.status, 202, `join on ${port}: ${JSON.stringify(body)}`);
  const { position, ahead, behind, waiting } = body;
  return { seq, port, position, ahead, behind, waiting };
}

async function metricsOf(port: number) {
  const r = await fetch(`http://127.0.0.1:${port}/metrics?queue=${Q}`, {
    headers: { authorization: `Bearer ${SECRET}` },
  });
  assertEquals(r.status, 200);
  return await r.json();
}

/** Runs `joins` joins over `processes` servers (`inFlight` at a time) and checks every answer. */
async function exactPositions(processes: number, joins: number, inFlight: number) {
  const dir = await Deno.makeTempDir({ prefix: "tollgate-mp-pos-" });
  const kvPath = `${dir}/shared.kv`;
  const servers: Server[] = [];
  try {
    // Waiting counts are shown (ahead, behind, waiting): written before any instance starts, so
    // none answers from an older branding.
    const setup = await Deno.openKv(kvPath);
    await setup.set(keys.branding(), { ...DEFAULT_BRANDING, showWaitingCount: true });
    setup.close();
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
          const a = await joinOnce(servers[i % processes].port);
          if ("admitted" in a) instant++;
          else answers.push(a);
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));

      // Metrics say how old they are, and a view at most a second old counts every waiter: each
      // instance catches up with the store within about a second (the admissions stop at
      // capacity, so the store's count settles).
      let counts = EMPTY_COUNTS;
      let seen: number[] = [];
      const settleBy = Date.now() + 5000;
      do {
        if (seen.length) await sleep(100);
        counts = withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);
        seen = await Promise.all(servers.map(async (s) => (await metricsOf(s.port)).waiting));
      } while (seen.some((w) => w !== counts.waiting) && Date.now() < settleBy);
      for (const s of servers) {
        const m = await metricsOf(s.port);
        assert(m.viewAgeMs >= 0 && m.viewAgeMs < 1000, `viewAgeMs ${m.viewAgeMs}`);
        assertEquals(m.waiting, counts.waiting, `metrics of ${s.port} against the store`);
      }

      assertEquals(answers.length + instant, joins, "every join answered");
      assertEquals(counts.nextSeq - 1, joins, "one arrival number per join");
      assert(counts.admitted > 0, `the tick admitted while joins came (${counts.admitted})`);
      answers.sort((a, b) => a.seq - b.seq);
      const wrong: string[] = [];
      let prefix = 0;
      for (const a of answers) {
        const before = a.seq - a.position; // arrivals below a.seq not waiting at its commit
        const why = [];
        if (before < prefix) why.push(`A=${before} below an earlier answer's ${prefix}`);
        if (before > counts.admitted) why.push(`A=${before} above all ${counts.admitted} admitted`);
        if (a.ahead !== a.position - 1) why.push(`ahead ${a.ahead}`);
        if (a.behind !== a.waiting - a.position || a.behind < 0) why.push(`behind ${a.behind}`);
        if (why.length) wrong.push(`seq ${a.seq} on ${a.port}: position ${a.position}, ${why}`);
        prefix = Math.max(prefix, before);
      }
      assertEquals(wrong.slice(0, 10), [], `${wrong.length} wrong answers of ${answers.length}`);
      // Each commit's waiting count is shown by its last join, whose position it is.
      const lastOfCommit = new Set(answers.map((a) => a.position));
      const badWaiting = answers.filter((a) => !lastOfCommit.has(a.waiting));
      assertEquals(badWaiting.length, 0, `waiting counts no commit left: ${badWaiting.length}`);
      const ports = new Set(answers.map((a) => a.port));
      assertEquals(ports.size, processes, "every process answered joins");
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
