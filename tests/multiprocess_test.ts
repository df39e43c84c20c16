/**
 * Several real server processes (`deno run -A main.ts`) over ONE local KV file, with concurrent
 * visitor and operator load spread across them. During the run the test samples operator
 * metrics and the shared counts record; afterwards it stops the servers, opens the KV file and
 * checks the invariants: counts equal a recount, indexes are consistent, nobody was admitted
 * twice, capacity was never exceeded, FIFO held, and the rate budget and the once-a-second tick
 * held across the processes.
 *
 * 0.8: joins are numbered by the tick's sequencer, not at the join, so arrival numbers come from
 * the tickets of statuses after it ran (or the record), and the store is read once every arrival
 * is numbered.
 */
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { withEnters } from "../lib/queue/enters.ts";
import { pendingOf } from "../lib/store/sums.ts";
import { assert, assertEquals } from "./assert.ts";
import { claimsOf, type Server, sleep, startServers, stopServers } from "./server_procs.ts";

const Q = "default";
const SECRET = "multiprocess-test-secret-0123456789abcdef";

/** One simulated visitor, as the test saw it. */
interface Seen {
  n: number;
  id: string;
  seq: number;
  cookies: Map<string, string>;
  /** Response time of the first answer that said admitted. */
  admittedAt?: number;
  /** When the leave request was sent. */
  leaveSentAt?: number;
  leftWhileWaiting?: boolean;
  /** Start times of due status checks that still answered waiting. */
  waitingAt: number[];
}

interface Load {
  servers: Server[];
  /** The test's own handle on the shared KV file. */
  spy: Deno.Kv;
  seen: Seen[];
  errors: string[];
  forced: number;
  metricSamples: number;
  maxOccupancySample: number;
  tickLag: number[];
  firstJoinAt: number;
  loadEndAt: number;
}

async function call(
  load: Load,
  v: Seen | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const s = load.servers[Math.floor(Math.random() * load.servers.length)];
  const h: Record<string, string> = { ...headers };
  if (body !== undefined) h["content-type"] = "application/json";
  if (v?.cookies.size) h.cookie = [...v.cookies].map(([k, c]) => `${k}=${c}`).join("; ");
  const start = Date.now();
  const res = await fetch(`http://127.0.0.1:${s.port}${path}`, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const end = Date.now();
  if (v) {
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i), value = pair.slice(i + 1);
      if (/max-age=0/i.test(sc) || value === "") v.cookies.delete(name);
      else v.cookies.set(name, value);
      // 0.8: a join not numbered yet carries arrival number 0; the ticket of a status after the
      // sequencer ran carries the number, which the FIFO checks below compare.
      if (name === "tg_ticket" && value !== "") {
        const seq = claimsOf(value).seq as number;
        if (seq > 0) v.seq = seq;
      }
    }
  }
  // deno-lint-ignore no-explicit-any
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, json, text, start, end, port: s.port };
}

/** A visitor's life: join, check in at each timeslot, enter, stay a while, maybe leave. */
async function visitor(load: Load, n: number, stopAt: number, leaveWaiting: boolean) {
  const v: Seen = { n, id: "", seq: 0, cookies: new Map(), waitingAt: [] };
  const j = await call(load, v, "POST", "/join", { queue: Q });
  if (j.status !== 200 && j.status !== 202) {
    load.errors.push(`join -> ${j.status} ${j.text}`);
    return;
  }
  v.id = j.json.visitorId;
  if (!load.firstJoinAt) load.firstJoinAt = j.start;
  load.seen.push(v);
  let view = j.json;
  if (view.status === "admitted") v.admittedAt = j.end;
  while (view.status === "waiting") {
    const nca = view.nextCheckAt as number;
    if (nca >= stopAt) return;
    await sleep(nca - Date.now() + Math.floor(Math.random() * 200));
    const r = await call(load, v, "GET", `/status?queue=${Q}`);
    if (r.status !== 200) {
      load.errors.push(`status of ${v.id} -> ${r.status} ${r.text} (server ${r.port})`);
      return;
    }
    view = r.json;
    if (view.status === "admitted") {
      v.admittedAt = r.end;
      break;
    }
    // 0.8: a waiter not numbered yet (`positionExact: false`, ticket without a number) has no
    // place in the order to compare; after the sequencer ran its ticket carries its number.
    if (r.start >= nca && view.positionExact !== false) {
      if (v.seq === 0) load.errors.push(`exact status of ${v.id} without an arrival number`);
      v.waitingAt.push(r.start);
    }
    if (leaveWaiting) {
      v.leaveSentAt = Date.now();
      v.leftWhileWaiting = true;
      const l = await call(load, v, "POST", "/leave", { queue: Q, visitorId: v.id });
      if (l.status !== 200) load.errors.push(`leave -> ${l.status} ${l.text}`);
      return;
    }
  }
  if (v.seq === 0) {
    // 0.8: admitted on a status, whose answer carries no ticket: the arrival number is read from
    // the record, which stays until the visitor leaves.
    const rec = await load.spy.get<Visitor>(keys.visitor(Q, v.id));
    v.seq = rec.value?.seq ?? 0;
  }
  if (view.entered !== true || typeof view.accessToken !== "string") {
    load.errors.push(`admitted without a token: ${JSON.stringify(view)}`);
  }
  // Browse for a while, then leave (or still be browsing when the run ends).
  await sleep(400 + Math.random() * 1600);
  if (Date.now() >= stopAt) return;
  const again = await call(load, v, "GET", `/status?queue=${Q}`);
  if (again.status !== 200 || again.json.status !== "admitted") {
    load.errors.push(`admitted visitor ${v.id} later answered ${again.status} ${again.text}`);
  }
  v.leaveSentAt = Date.now();
  const l = await call(load, v, "POST", "/leave", { queue: Q, visitorId: v.id });
  if (l.status !== 200) load.errors.push(`leave -> ${l.status} ${l.text}`);
}

/** Store invariants at rest: counters equal a recount, one index entry of each kind per waiter. */
function checkStore(
  visitors: Map<string, Visitor>,
  counts: Counts,
  index: { fifo: string[]; lottery: string[]; deadline: string[]; expiry: string[] },
) {
  const by = { waiting: 0, admitted: 0, entered: 0 };
  for (const v of visitors.values()) by[v.state]++;
  assertEquals(
    { waiting: counts.waiting, holding: counts.holding, entered: counts.entered },
    { waiting: by.waiting, holding: by.admitted, entered: by.entered },
    "counts record equals a full recount of visitor records",
  );
  for (const [name, ids] of Object.entries(index)) {
    if (name === "lottery" && !("lotteryPrefix" in keys)) {
      assertEquals(ids, [], "no lottery index entries in a layout without one");
      continue;
    }
    const tally = new Map<string, number>();
    for (const id of ids) tally.set(id, (tally.get(id) ?? 0) + 1);
    for (const [id, v] of visitors) {
      const want = (name === "expiry") === (v.state === "waiting") ? 0 : 1;
      assertEquals(tally.get(id) ?? 0, want, `${name} index entries of ${v.state} visitor ${id}`);
    }
    for (const id of tally.keys()) assert(visitors.has(id), `orphan ${name} entry for ${id}`);
  }
}

interface Scenario {
  processes: number;
  rate: number;
  capacity: number;
  loadMs: number;
  arrivalsPerSecond: number;
  /** Expect the line to be rate-bound (capacity never binding), so admissions track the rate. */
  rateBound: boolean;
}

async function runScenario(sc: Scenario) {
  const dir = await Deno.makeTempDir({ prefix: "tollgate-mp-" });
  const kvPath = `${dir}/shared.kv`;
  const env = {
    DENO_KV_PATH: kvPath,
    JOINS_PER_CLIENT_PER_MINUTE: "0", // one loopback client makes every join
    TOKEN_SECRET: SECRET,
    ADMIT_PER_SECOND: String(sc.rate),
    CAPACITY: String(sc.capacity),
    QUEUES: Q,
    ADMISSION_MODE: "queue",
  };
  let servers: Server[] = [];
  try {
    const startedAt = Date.now();
    await startServers(sc.processes, env, false, servers);
    const spy = await Deno.openKv(kvPath);
    const load: Load = {
      servers,
      spy,
      seen: [],
      errors: [],
      forced: 0,
      metricSamples: 0,
      maxOccupancySample: 0,
      tickLag: [],
      firstJoinAt: 0,
      loadEndAt: 0,
    };
    const op = { authorization: `Bearer ${SECRET}` };
    const t0 = Date.now();
    const stopAt = t0 + sc.loadMs;
    const tasks: Promise<void>[] = [];
    // Samplers: operator metrics from the servers, and the shared counts record from the file.
    const samplers = (async () => {
      while (Date.now() < stopAt) {
        const m = await call(load, null, "GET", `/metrics?queue=${Q}`, undefined, op);
        if (m.status === 200) {
          load.metricSamples++;
          const occ = m.json.entered + m.json.holding;
          load.maxOccupancySample = Math.max(load.maxOccupancySample, occ);
          if (occ > sc.capacity) load.errors.push(`metrics show ${occ} > capacity ${sc.capacity}`);
        } else load.errors.push(`metrics -> ${m.status} ${m.text}`);
        try {
          const c = (await spy.get<Counts>(keys.counts(Q))).value;
          if (c && c.tickAt > 0) load.tickLag.push(Math.floor(Date.now() / 1000) - c.tickAt);
        } catch (e) {
          load.errors.push(`reading the shared KV file: ${e}`);
        }
        await sleep(250);
      }
    })();
    const operator = (async () => {
      await sleep(1500);
      while (Date.now() < stopAt - 1000) {
        const r = await call(load, null, "POST", "/admit", { queue: Q, count: 2 }, op);
        if (r.status === 200) load.forced += r.json.admitted;
        else load.errors.push(`admit -> ${r.status} ${r.text}`);
        await sleep(1500);
      }
    })();
    let n = 0;
    while (Date.now() < stopAt - 1500) {
      tasks.push(visitor(load, n, stopAt, Math.random() < 0.04));
      n++;
      await sleep(1000 / sc.arrivalsPerSecond);
    }
    await Promise.all([...tasks, samplers, operator]);
    load.loadEndAt = Date.now();
    // 0.8: a join is numbered into the line by the sequencer of a later tick; the store is read
    // once it has run (no arrival entry left), so counts and line are compared complete.
    const numberedBy = Date.now() + 5000;
    while (Date.now() < numberedBy) {
      const left = await Array.fromAsync(spy.list({ prefix: keys.arrivalPrefix(Q) }));
      if (left.length === 0) break;
      await sleep(100);
    }
    spy.close();
    await sleep(300);
    await stopServers(servers);
    const stoppedAt = Date.now();
    const logs = servers.map((s) => s.log.join("")).join("");
    servers = [];

    // ---- the store, read after all servers are gone -----------------------------------------
    const kv = await Deno.openKv(kvPath);
    const visitors = new Map<string, Visitor>();
    const index = {
      fifo: [] as string[],
      lottery: [] as string[],
      deadline: [] as string[],
      expiry: [] as string[],
    };
    let counts: Counts;
    let trafficOut = 0;
    try {
      for await (const e of kv.list<Visitor>({ prefix: ["v", Q] })) {
        visitors.set(e.value.id, e.value);
      }
      for await (const e of kv.list<string>({ prefix: keys.fifoPrefix(Q) })) {
        index.fifo.push(e.value);
      }
      // Older layouts kept a random-key lottery index ["r", q, rkey, id]; check it if present.
      for await (const e of kv.list({ prefix: ["r", Q] })) index.lottery.push(e.key[3] as string);
      for await (const e of kv.list({ prefix: keys.deadlinePrefix(Q) })) {
        index.deadline.push(e.key[3] as string);
      }
      for await (const e of kv.list({ prefix: keys.expiryPrefix(Q) })) {
        index.expiry.push(e.key[3] as string);
      }
      for await (const e of kv.list<Deno.KvU64>({ prefix: keys.trafficPrefix(Q) })) {
        if (e.key[3] === "out") trafficOut += Number(e.value.value);
      }
      // Enters add to a sum beside the counts that ticks take in (lib/queue/enters.ts): those of
      // the last moments may still be pending when the servers stop (once in CI the split was off
      // by two). Never taken in twice: the sum would have wrapped past 2^63.
      const pending = await kv.get<Deno.KvU64>(keys.entersPending(Q));
      assert((pending.value?.value ?? 0n) < 1n << 63n, "pending enters never taken in twice");
      // 0.8: the sequencer ran: every join is numbered, none waits as an arrival entry.
      const arrivals = await Array.fromAsync(kv.list({ prefix: keys.arrivalPrefix(Q) }));
      assertEquals(arrivals.length, 0, "every arrival numbered after the last tick");
      const unsequenced = await kv.get<Deno.KvU64>(keys.arrivalsPending(Q));
      assertEquals(Number(unsequenced.value?.value ?? 0n), 0, "the arrivals' sum taken in exactly");
      counts = withEnters(
        withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value),
        pendingOf(pending),
      );
    } finally {
      kv.close();
    }
    const context = `${sc.processes} processes: ${load.seen.length} visitors, ` +
      `admitted ${counts.admitted} (forced ${load.forced}), waiting ${counts.waiting}, ` +
      `entered ${counts.entered}, holding ${counts.holding}`;

    // No request failed, no server logged an unhandled error or a failed tick.
    assertEquals(load.errors, [], `client-side errors (${context})`);
    assert(
      !/"msg":"(unhandled|tick failed)"/.test(logs),
      `servers logged errors: ${logs.slice(0, 2000)}`,
    );
    assert(load.seen.length > 50 && load.metricSamples > 5, `the load ran: ${context}`);

    // Counts equal a recount; indexes are consistent; nobody was dropped in a short run.
    checkStore(visitors, counts, index);
    assertEquals(counts.abandoned, 0, "no waiter was dropped while checking in on time");
    assertEquals(trafficOut, counts.admitted, "outflow traffic counts every admission once");

    // Nobody admitted twice: the admitted total is exactly the distinct admissions, give or
    // take waiters that left without learning they had just been admitted.
    const byId = new Map(load.seen.map((v) => [v.id, v]));
    assertEquals(byId.size, load.seen.length, "visitor ids are distinct");
    // 0.8: the arrival number a visitor's tickets carried is the one its record holds; a visitor
    // that never made a call after the sequencer ran takes its number from the record.
    for (const v of visitors.values()) {
      assert(v.seq > 0, `visitor ${v.id} numbered`);
      const u = byId.get(v.id);
      if (u && u.seq > 0) assertEquals(u.seq, v.seq, `arrival number of ${v.id}`);
      else if (u) u.seq = v.seq;
    }
    const unknown = load.seen.filter((v) => v.seq === 0 && (v.admittedAt || v.waitingAt.length));
    assertEquals(unknown.map((v) => v.id), [], "every visitor seen in line knows its number");
    const admittedIds = new Set(load.seen.filter((v) => v.admittedAt).map((v) => v.id));
    for (const v of visitors.values()) {
      assert(byId.has(v.id), `store holds a visitor the test never created: ${v.id}`);
      if (v.state !== "waiting") admittedIds.add(v.id);
    }
    const uncertain = load.seen.filter((v) => v.leftWhileWaiting).length;
    assert(
      counts.admitted >= admittedIds.size && counts.admitted <= admittedIds.size + uncertain,
      `admitted total ${counts.admitted} vs ${admittedIds.size} distinct admissions ` +
        `(+${uncertain} left while waiting): ${context}`,
    );

    // Capacity was never exceeded: at each observed admission, visitors seen admitted earlier
    // that had not yet asked to leave surely held slots.
    const adm = load.seen.filter((v) => v.admittedAt !== undefined);
    let maxHeld = 0;
    for (const v of adm) {
      const at = v.admittedAt!;
      const held = adm.filter((u) =>
        u.admittedAt! <= at && (u.leaveSentAt === undefined || u.leaveSentAt > at)
      ).length;
      maxHeld = Math.max(maxHeld, held);
      assert(held <= sc.capacity, `${held} visitors held slots at ${at} > capacity (${context})`);
    }
    assert(counts.entered + counts.holding <= sc.capacity, `final occupancy (${context})`);

    // FIFO: every admitted visitor arrived before every visitor still waiting ...
    const waitingSeqs = [...visitors.values()].filter((v) => v.state === "waiting").map((v) =>
      v.seq
    );
    const admittedSeqs = [...admittedIds].map((id) => byId.get(id)!.seq);
    if (waitingSeqs.length && admittedSeqs.length) {
      assert(
        Math.max(...admittedSeqs) < Math.min(...waitingSeqs),
        `FIFO: seq ${Math.max(...admittedSeqs)} admitted while seq ${
          Math.min(...waitingSeqs)
        } still waits`,
      );
    }
    // ... and, during the run, nobody was admitted while an earlier arrival was seen waiting.
    for (const u of load.seen) {
      for (const at of u.waitingAt) {
        for (const v of adm) {
          assert(
            !(v.seq > u.seq && v.admittedAt! <= at),
            `FIFO: seq ${v.seq} was admitted by ${v.admittedAt} while seq ${u.seq} still ` +
              `waited at its due check-in at ${at}`,
          );
        }
      }
    }

    // Rate budget across all processes: admissions not forced stay within the rate plus the
    // two-second burst, counted from the first server start to the last server stop.
    const budgeted = counts.admitted - load.forced;
    const elapsed = (stoppedAt - startedAt) / 1000;
    assert(
      budgeted <= sc.rate * elapsed + 2 * sc.rate + 1,
      `rate budget: ${budgeted} admissions at ${sc.rate}/s in ${elapsed.toFixed(1)} s`,
    );
    // The tick ran about once a second in total: the shared tickAt never lagged far behind.
    assert(load.tickLag.length > 5, "tickAt was sampled");
    assert(
      load.tickLag.every((lag) => lag >= 0 && lag <= 2),
      `tickAt lag behind the clock (s): ${load.tickLag.join(",")}`,
    );
    if (sc.rateBound) {
      // With waiters always present and slots to spare, admissions follow the rate.
      const busy = (load.loadEndAt - load.firstJoinAt) / 1000;
      assert(
        budgeted >= 0.75 * sc.rate * (busy - 2),
        `admissions keep up with the rate: ${budgeted} in ${busy.toFixed(1)} s at ${sc.rate}/s`,
      );
    } else {
      assert(maxHeld >= sc.capacity - 2, `capacity was the binding limit (max held ${maxHeld})`);
    }
    return { context, maxHeld, budgeted, elapsed };
  } finally {
    await stopServers(servers);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "two server processes over one KV file keep every invariant (rate-bound line)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await runScenario({
      processes: 2,
      rate: 6,
      capacity: 200,
      loadMs: 8000,
      arrivalsPerSecond: 20,
      rateBound: true,
    });
  },
});

Deno.test({
  name: "four server processes over one KV file keep every invariant (capacity-bound line)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await runScenario({
      processes: 4,
      rate: 10,
      capacity: 12,
      loadMs: 8000,
      arrivalsPerSecond: 20,
      rateBound: false,
    });
  },
});

Deno.test({
  name: "six server processes started together over a fresh KV file all come up",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // DESIGN: with several processes on one file, commit() can throw "database is locked" and
    // must be retried like a conflict; that includes the start-up writes (migration, queues).
    // The lock race depends on timing: several fleet starts make it show up reliably.
    for (let round = 0; round < 12; round++) {
      const dir = await Deno.makeTempDir({ prefix: "tollgate-mp-start-" });
      const servers: Server[] = [];
      try {
        await startServers(
          6,
          {
            DENO_KV_PATH: `${dir}/shared.kv`,
            JOINS_PER_CLIENT_PER_MINUTE: "0", // one loopback client makes every join
            TOKEN_SECRET: SECRET,
            QUEUES: "default,second",
          },
          true,
          servers,
        );
        const r = await fetch(`http://127.0.0.1:${servers[5].port}/metrics`, {
          headers: { authorization: `Bearer ${SECRET}` },
        });
        assertEquals(r.status, 200);
        assertEquals((await r.json()).queues.length, 2, "both queues exist once");
      } finally {
        await stopServers(servers);
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
});
