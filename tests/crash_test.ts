/**
 * A server killed with SIGKILL in the middle of a flash crowd, then restarted on the same KV file:
 * every visitor that got a 202 is still in line with the number it was given, every 200 is still
 * admitted, nobody is admitted twice, and the counters equal a full recount (the doctor's).
 */
import { diagnose } from "../lib/queue/doctor.ts";
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { claimsOf, type Server, sleep, startServers, stopServers } from "./server_procs.ts";

const Q = "default";
const SECRET = "crash-test-secret-0123456789abcdefghijkl";

interface Outcome {
  id: string;
  status: number;
  ticket?: string;
  seq?: number;
}

/** Joins with `workers` concurrent loops until `stop()`; records answers and unknown outcomes. */
function flashCrowd(s: Server, workers: number, prefix = "crash") {
  const answered: Outcome[] = [];
  const unknown: string[] = [];
  let next = 0;
  let stopped = false;
  const loops = Array.from({ length: workers }, async () => {
    while (!stopped) {
      const id = `${prefix}-${String(next++).padStart(6, "0")}`;
      try {
        const r = await fetch(`http://127.0.0.1:${s.port}/join`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ queue: Q, visitorId: id }),
        });
        await r.body?.cancel();
        const cookie = r.headers.getSetCookie().find((c) => c.startsWith("tg_ticket="));
        const ticket = cookie?.split(";")[0].slice("tg_ticket=".length);
        answered.push({
          id,
          status: r.status,
          ticket,
          seq: ticket ? claimsOf(ticket).seq as number : undefined,
        });
      } catch {
        unknown.push(id); // sent, but the server died before answering: in line or not
        if (stopped) break;
        await sleep(5);
      }
    }
  });
  return {
    answered,
    unknown,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

Deno.test({
  name: "crash: SIGKILL during a flash crowd loses no visitor and admits nobody twice",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "tollgate-crash-" });
    const env = {
      DENO_KV_PATH: `${dir}/store.kv`,
      JOINS_PER_CLIENT_PER_MINUTE: "0", // one loopback client makes every join
      TOKEN_SECRET: SECRET,
      ADMIT_PER_SECOND: "200",
      CAPACITY: "150",
    };
    const [first] = await startServers(1, env);
    // 0.8: a crowd's joins mostly take the line (one of an instance at a time tries to go in at
    // once, and the line is rarely empty in it): a few joins alone first go in at once.
    const alone = flashCrowd(first, 1, "alone");
    while (alone.answered.length < 5) await sleep(5);
    await alone.stop();
    const crowd = flashCrowd(first, 48);
    try {
      while (crowd.answered.length < 800) await sleep(20);
      first.child.kill("SIGKILL");
      await first.child.status;
      await first.done;
    } finally {
      await crowd.stop();
    }
    const answered = [...alone.answered, ...crowd.answered];
    const unknown = [...alone.unknown, ...crowd.unknown];
    const ok = answered.filter((o) => o.status === 200 || o.status === 202);
    assertEquals(ok.length, answered.length, "every answered join succeeded");
    assert(ok.some((o) => o.status === 200) && ok.some((o) => o.status === 202), "both outcomes");
    assert(unknown.length > 0, "the kill cut joins in flight");

    // Restart on the same file: the line's tickets still work there.
    const [second] = await startServers(1, env);
    let checked = 0;
    try {
      for (const o of ok.filter((o) => o.status === 202).slice(0, 20)) {
        const r = await fetch(`http://127.0.0.1:${second.port}/status?queue=${Q}`, {
          headers: { cookie: `tg_ticket=${o.ticket}` },
        });
        const body = await r.json();
        assertEquals([r.status, body.visitorId], [200, o.id], "a waiting ticket resumes");
        checked++;
      }
    } finally {
      await stopServers([second]);
    }
    assertEquals(checked, 20);

    const kv = await Deno.openKv(env.DENO_KV_PATH);
    try {
      const records = new Map<string, Visitor>();
      for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
        records.set(e.value.id, e.value);
      }
      const counts = withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);
      // Every 202 is still there with its arrival number (so its place in line), every 200 holds
      // its admission; the only other records are joins whose answer the kill swallowed.
      for (const o of ok) {
        const v = records.get(o.id);
        assert(v, `visitor ${o.id} (answered ${o.status}) survived the crash`);
        // An admission has its number from its join; a waiter gets its number from the tick
        // (0.8.0), and keeps it.
        if ((o.seq ?? 0) > 0) assertEquals(v.seq, o.seq, `${o.id} keeps its arrival number`);
        if (o.status === 200) assert(v.state !== "waiting", `${o.id} is still admitted`);
      }
      const sent = new Set([...ok.map((o) => o.id), ...unknown]);
      for (const id of records.keys()) assert(sent.has(id), `a record nobody sent: ${id}`);
      const seqs = [...records.values()].map((v) => v.seq).filter((s) => s > 0);
      assertEquals(new Set(seqs).size, seqs.length, "arrival numbers are unique");
      // Nobody admitted twice: each admission in the total is one distinct record that holds it.
      const admitted = [...records.values()].filter((v) => v.state !== "waiting").length;
      assertEquals(counts.admitted, admitted, "admission total equals the admitted records");
      const d = await diagnose(kv, Q);
      assertEquals([d.counterDiffs, d.indexProblems], [[], []], "counters equal a recount");
    } finally {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
