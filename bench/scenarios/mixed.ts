/**
 * Mixed traffic for a while: joins at a steady rate, every waiter following its timeslots, some
 * visitors leaving (waiting and entered ones), and the operator at work: force-admits, pause and
 * resume, mode switches, metrics every second. Small capacity and short tokens keep slots
 * expiring and freeing. Afterwards the queue doctor recounts the store.
 */
import { removeKv } from "../seeding.ts";
import { decodeTicket } from "../tickets.ts";
import { Follower } from "./follower.ts";
import { type Answer, type Call, HttpPool } from "./http.ts";
import { doctor, type DoctorReport } from "./store.ts";
import { type PerSecond, perSecond, Tally, type TallySummary } from "./tally.ts";
import {
  pause,
  type ScenarioEnv,
  type ServerErrors,
  serverErrors,
  startTarget,
  type Target,
} from "./target.ts";

const Q = "default";

/** Sizes of the mixed scenario. */
export interface MixedOptions {
  seconds: number;
  /** New visitors per second. */
  joinRate: number;
  /** Leaves per second, as a share of the join rate (a fifth of them entered visitors). */
  leaveShare: number;
  /** ADMIT_PER_SECOND. */
  rate: number;
  capacity: number;
  /** ACCESS_TOKEN_TTL_SECONDS: how long an entered visitor holds its slot. */
  tokenTtlSec: number;
  /** Seconds between operator actions (admit, pause, resume, lottery, queue, in turn). */
  operatorEverySec: number;
  connections: number;
}

/** What the mixed scenario measured. */
export interface MixedReport {
  options: MixedOptions;
  joins: TallySummary;
  statuses: TallySummary;
  leaves: TallySummary;
  /** Operator calls by action. */
  operator: Record<string, TallySummary>;
  statusPerSecond: PerSecond;
  /** Errors of any kind (none is expected). */
  unexpectedErrors: number;
  /** Admissions of the whole run (operator metrics `admittedTotal`). */
  admittedTotal: number;
  /** The recount after the run; its `stored` counts are the queue's final state. */
  doctor: DoctorReport;
  /** Error lines in the server's log (none is expected). */
  serverErrors: ServerErrors;
}

/** The operator's actions, in turn. */
const ACTIONS: [string, Call["method"], string, unknown][] = [
  ["admit", "POST", "/admit", { queue: Q, count: 20 }],
  ["pause", "POST", "/pause", { queue: Q, paused: true }],
  ["resume", "POST", "/pause", { queue: Q, paused: false }],
  ["mode lottery", "POST", "/mode", { queue: Q, mode: "lottery" }],
  ["mode queue", "POST", "/mode", { queue: Q, mode: "queue" }],
];

/** Runs the mixed scenario. */
export async function mixedTraffic(e: ScenarioEnv, o: MixedOptions): Promise<MixedReport> {
  const kvPath = `${e.dir}/mixed.kv`;
  const t: Target = await startTarget(e, "server-mixed", kvPath, {
    ADMIT_PER_SECOND: String(o.rate),
    CAPACITY: String(o.capacity),
    ACCESS_TOKEN_TTL_SECONDS: String(o.tokenTtlSec),
  });
  const pool = new HttpPool(t.url, o.connections);
  const statusPool = new HttpPool(t.url, o.connections);
  const opPool = new HttpPool(t.url, 2);
  const follower = new Follower(statusPool, t.clock);
  const joins = new Tally(), leaves = new Tally();
  const operator = new Map<string, Tally>();
  const entered: string[] = [];
  follower.onAdmitted = (i) => void entered.push(follower.ticket(i));
  const pending = new Set<Promise<unknown>>();
  const track = (p: Promise<Answer>, then: (a: Answer) => void) => {
    const q = p.then(then).finally(() => pending.delete(q));
    pending.add(q);
  };
  const op = (name: string, call: Call) =>
    track(opPool.request({ ...call, bearer: t.secret }), (a) => {
      if (!operator.has(name)) operator.set(name, new Tally());
      operator.get(name)!.add(a);
    });
  const leave = (ticket: string) => {
    const body = JSON.stringify({ queue: Q, visitorId: decodeTicket(ticket).sub });
    track(pool.request({ method: "POST", path: "/leave", body, ticket }), (a) => leaves.add(a));
  };
  const joinBody = JSON.stringify({ queue: Q });
  try {
    e.log(`  ${o.seconds} s of joins (${o.joinRate}/s), statuses, leaves and operator actions ...`);
    follower.start();
    const started = Date.now();
    let sent = 0, second = 0;
    while (Date.now() - started < o.seconds * 1000) {
      const elapsed = (Date.now() - started) / 1000;
      for (; sent < Math.floor(elapsed * o.joinRate); sent++) {
        track(pool.request({ method: "POST", path: "/join", body: joinBody }), (a) => {
          joins.add(a);
          if (a.status === 202 && a.ticket) follower.add(a.ticket);
          else if (a.status === 200 && a.ticket) entered.push(a.ticket);
        });
      }
      if (elapsed >= second + 1) {
        second++;
        op("metrics", { method: "GET", path: `/metrics?queue=${Q}` });
        if (second % o.operatorEverySec === 0) {
          const [name, method, path, body] =
            ACTIONS[(second / o.operatorEverySec - 1) % ACTIONS.length];
          op(name, { method, path, body: JSON.stringify(body) });
        }
        for (let n = 0; n < Math.round(o.joinRate * o.leaveShare); n++) {
          if (n % 5 === 4 && entered.length) leave(entered.pop()!);
          else {
            // A random waiter with no request in flight, if one is found quickly.
            for (let k = 0; k < 20 && follower.size; k++) {
              const i = Math.floor(Math.random() * follower.size);
              if (follower.idle(i)) {
                leave(follower.drop(i));
                break;
              }
            }
          }
        }
      }
      await pause(10);
    }
    while (pending.size) await Promise.all([...pending]);
    await follower.stop();
    const m = await opPool.request({
      method: "GET",
      path: `/metrics?queue=${Q}`,
      bearer: t.secret,
    });
    await t.proc.stop();
    const ops = Object.fromEntries([...operator].sort().map(([k, v]) => [k, v.summary()]));
    const secs = [...follower.perSecond.keys()];
    return {
      options: o,
      joins: joins.summary(),
      statuses: follower.tally.summary(),
      leaves: leaves.summary(),
      operator: ops,
      statusPerSecond: perSecond(follower.perSecond, Math.min(...secs), Math.max(...secs)),
      unexpectedErrors: [joins, leaves, follower.tally, ...operator.values()]
        .reduce((a, x) => a + x.errors, 0),
      admittedTotal: JSON.parse(m.body).admittedTotal,
      doctor: await doctor(kvPath),
      serverErrors: await serverErrors(t),
    };
  } finally {
    pool.close();
    statusPool.close();
    opPool.close();
    await t.proc.stop();
    await removeKv(kvPath);
  }
}
