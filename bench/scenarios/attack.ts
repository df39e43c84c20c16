/**
 * Attack from one fixed address: a real server (main.ts, KV file) behind a "trusted proxy" (the
 * driver on loopback names each request's client in `x-forwarded-for`), a line capped at
 * `maxWaiting` rows, the per-client limit at its default. Ordinary visitors from distinct
 * addresses join evenly over `seconds` and follow their timeslots; from the start one address
 * joins without cookies at full speed and floods `POST /heartbeat` on every ticket it gets.
 * Measured: the attacker's rows over all live rows at the peak, refusals of ordinary visitors,
 * and whether they were admitted in arrival order (the line drains at `rate` meanwhile).
 */
import { removeKv } from "../seeding.ts";
import { decodeTicket } from "../tickets.ts";
import { Follower } from "./follower.ts";
import { HttpPool } from "./http.ts";
import { admittedAt, doctor, type DoctorReport } from "./store.ts";
import { Tally, type TallySummary } from "./tally.ts";
import { pause, type ScenarioEnv, type ServerErrors, serverErrors, startTarget } from "./target.ts";

/** The client address of the attacker (a documentation range). */
export const ATTACKER_IP = "203.0.113.7";
/** The per-client limit the scenario runs under: the service's default. */
export const DEFAULT_JOINS_PER_MINUTE = 60;
/**
 * Server settings of the attack scenarios: the driver on loopback is the trusted proxy that names
 * each request's client, and the per-client limit is at its default.
 */
export const BEHIND_PROXY = {
  CLIENT_IP_HEADER: "x-forwarded-for",
  TRUSTED_PROXIES: "127.0.0.1",
  JOINS_PER_CLIENT_PER_MINUTE: String(DEFAULT_JOINS_PER_MINUTE),
};

/** Sizes of the one-address attack. */
export interface AttackOptions {
  visitors: number;
  /** Ordinary visitors join evenly over this many seconds. */
  seconds: number;
  /** Seconds everyone keeps going after the last ordinary join. */
  afterSeconds: number;
  maxWaiting: number;
  /** ADMIT_PER_SECOND while the attack runs (admission order is checked on these). */
  rate: number;
  joinConnections: number;
  floodConnections: number;
}

/** One sample of /metrics. */
interface Sample {
  sec: number;
  live: number;
  attacker: number;
}

/** What the one-address attack measured. */
export interface AttackReport {
  options: AttackOptions;
  /** The attacker's places the per-client limit allows over the attack's duration. */
  allowance: number;
  attackSeconds: number;
  peak: Sample;
  ordinaryJoins: TallySummary;
  ordinaryPlaced: number;
  queueFull: number;
  attackJoins: TallySummary;
  attackPlaced: number;
  heartbeats: TallySummary;
  statuses: TallySummary;
  /** Ordinary visitors admitted, and how many broke arrival order (admitted before an earlier one). */
  order: { admitted: number; outOfOrder: number; skipped: number };
  doctor: DoctorReport;
  serverErrors: ServerErrors;
}

const placed = (status: number) => status === 200 || status === 202;
const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** Runs the one-address attack against a fresh server. */
export async function oneAddressAttack(e: ScenarioEnv, o: AttackOptions): Promise<AttackReport> {
  const kvPath = `${e.dir}/attack.kv`;
  const t = await startTarget(e, "server-attack", kvPath, {
    ADMIT_PER_SECOND: String(o.rate),
    CAPACITY: "10000000",
    MAX_WAITING_VISITORS: String(o.maxWaiting),
    ...BEHIND_PROXY,
    // Admitted records outlive the run, so their `admittedAt` can be read afterwards.
    ACCESS_TOKEN_TTL_SECONDS: "3600",
  });
  const joinPool = new HttpPool(t.url, 32);
  const attackPool = new HttpPool(t.url, o.joinConnections);
  const floodPool = new HttpPool(t.url, o.floodConnections);
  const statusPool = new HttpPool(t.url, 32);
  const opPool = new HttpPool(t.url, 1);
  const follower = new Follower(statusPool, t.clock);
  const ordinaryJoins = new Tally(), attackJoins = new Tally(), heartbeats = new Tally();
  const seqOf = new Map<string, number>();
  const attackTickets: string[] = [];
  const samples: Sample[] = [];
  const body = JSON.stringify({ queue: "default" });
  let running = true, attackPlaced = 0;
  try {
    follower.start();
    const started = Date.now();
    const attackers = Array.from({ length: o.joinConnections }, async () => {
      while (running) {
        const a = await attackPool.request({
          method: "POST",
          path: "/join",
          body,
          headers: { "x-forwarded-for": ATTACKER_IP },
        });
        attackJoins.add(a);
        if (placed(a.status) && a.ticket) (attackPlaced++, attackTickets.push(a.ticket));
      }
    });
    let k = 0;
    const flooders = Array.from({ length: o.floodConnections }, async () => {
      while (running) {
        if (!attackTickets.length) {
          await pause(5);
          continue;
        }
        const ticket = attackTickets[k++ % attackTickets.length];
        heartbeats.add(
          await floodPool.request({
            method: "POST",
            path: "/heartbeat",
            body: JSON.stringify({ queue: "default", visitorId: decodeTicket(ticket).sub }),
            ticket,
            headers: { "x-forwarded-for": ATTACKER_IP },
          }),
        );
      }
    });
    e.log(`  ${o.visitors} visitors over ${o.seconds} s, one address attacking at full speed ...`);
    const visits: Promise<void>[] = [];
    let sent = 0, second = 0;
    const endMs = (o.seconds + o.afterSeconds) * 1000;
    while (Date.now() - started < endMs) {
      const elapsed = (Date.now() - started) / 1000;
      const due = Math.min(o.visitors, Math.floor(elapsed * o.visitors / o.seconds));
      for (; sent < due; sent++) {
        const i = sent;
        visits.push(
          joinPool.request({
            method: "POST",
            path: "/join",
            body,
            headers: { "x-forwarded-for": ip(i) },
          }).then((a) => {
            ordinaryJoins.add(a);
            if (!placed(a.status) || !a.ticket) return;
            seqOf.set(decodeTicket(a.ticket).sub, decodeTicket(a.ticket).seq);
            if (a.status === 202) follower.add(a.ticket);
          }),
        );
      }
      if (elapsed >= second + 1) {
        second++;
        const m = await opPool.request({
          method: "GET",
          path: "/metrics?queue=default",
          bearer: t.secret,
        });
        if (m.status === 200) {
          const j = JSON.parse(m.body);
          // Every row the attacker got is counted live (its heartbeats keep them so): an upper
          // bound of its live rows.
          samples.push({
            sec: second,
            live: j.waiting + j.holding + j.entered,
            attacker: attackPlaced,
          });
        }
      }
      await pause(20);
    }
    const attackSeconds = (Date.now() - started) / 1000;
    running = false;
    await Promise.all([...attackers, ...flooders, ...visits]);
    await follower.stop();
    await t.proc.stop();
    const admitted = await admittedAt(kvPath);
    const peak = samples.reduce((a, b) => (b.live > a.live ? b : a), samples[0]);
    return {
      options: o,
      allowance: Math.floor(DEFAULT_JOINS_PER_MINUTE * (1 + attackSeconds / 60)),
      attackSeconds,
      peak,
      ordinaryJoins: ordinaryJoins.summary(),
      ordinaryPlaced: seqOf.size,
      queueFull: ordinaryJoins.outcomes.get("503 queue_full") ?? 0,
      attackJoins: attackJoins.summary(),
      attackPlaced,
      heartbeats: heartbeats.summary(),
      statuses: follower.tally.summary(),
      order: arrivalOrder(seqOf, admitted),
      doctor: await doctor(kvPath),
      serverErrors: await serverErrors(t),
    };
  } finally {
    running = false;
    for (const p of [joinPool, attackPool, floodPool, statusPool, opPool]) p.close();
    await t.proc.stop();
    await removeKv(kvPath);
  }
}

/**
 * Whether the ordinary visitors (id -> arrival number) were admitted in arrival order: sorted by
 * arrival, no one admitted earlier than one before it, and no one before the last admitted left
 * unadmitted.
 */
export function arrivalOrder(
  seqOf: Map<string, number>,
  admitted: Map<string, number>,
): { admitted: number; outOfOrder: number; skipped: number } {
  const line = [...seqOf].sort((a, b) => a[1] - b[1]).map(([id]) => admitted.get(id));
  let last = -Infinity, outOfOrder = 0, lastAdmitted = -1;
  line.forEach((at, i) => {
    if (at === undefined) return;
    if (at < last) outOfOrder++;
    last = Math.max(last, at);
    lastAdmitted = i;
  });
  const skipped = line.slice(0, lastAdmitted + 1).filter((at) => at === undefined).length;
  return { admitted: line.filter((at) => at !== undefined).length, outOfOrder, skipped };
}
