/**
 * Sessions that slide and end when the visitor is done, against fixed ones, same run: one visitor
 * plan (seeded) played against three servers in turn, each its own process at an accelerated clock
 * (TOLLGATE_CLOCK_SPEED), capacity 200:
 *
 * - `fixed`: the specification's rule, the slot held for the token's 900 s;
 * - `fixed + release`: a quarter of the visitors released by the site at checkout;
 * - `sliding + release`: sliding sessions (idle time `idleSeconds`) and the same releases.
 *
 * Each visitor joins at its arrival time (arrivals spread evenly over `arrivalSeconds`), follows
 * its timeslots until admitted, then is active for its session length: a `/verify` (the site's
 * check, forward-auth style) every `activeEverySec`, taking any fresh cookie it is given. Session
 * lengths are log-normal with median 180 s and 10% over 900 s. A buyer's session ends with
 * `POST /release`; anyone else just stops. Measured, all in server time over `hourSeconds`:
 * visitors admitted, their median wait, sessions cut off while still active (a 401 before the
 * visitor was done) and the most slots ever held at once (entered plus holding, polled from
 * `/metrics`).
 */
import { percentile } from "../checkins_sim.ts";
import { seededRandom } from "../../lib/clock.ts";
import { writeSessionSettings } from "../../lib/session/settings.ts";
import { type Check, f0 } from "./checks.ts";
import { pause, type ScenarioEnv, startTarget, type Target } from "./target.ts";

/** Sizes of the sessions scenario. */
export interface SessionsOptions {
  visitors: number;
  capacity: number;
  arrivalSeconds: number;
  /** Server seconds measured from the first arrival ("per hour" at 3,600). */
  hourSeconds: number;
  clockSpeed: number;
  idleSeconds: number;
  activeEverySec: number;
  releaseShare: number;
  seed: number;
}

/** One variant's measurements. */
export interface SessionsRun {
  name: string;
  admitted: number;
  admittedPerHour: number;
  medianWaitSec: number;
  stillWaiting: number;
  /** Sessions refused while their visitor was still active. */
  cutOff: number;
  maxHeld: number;
  released: number;
  requests: number;
  errors: number;
  /** Error answers by HTTP status and error code ("network" when the request itself failed). */
  errorsBy: Record<string, number>;
  /** Visitors the room no longer knew while they waited (404: dropped or expired). */
  lost: number;
}

/** What the scenario measured. */
export interface SessionsReport {
  options: SessionsOptions;
  runs: SessionsRun[];
}

/** A visitor of the plan: when it arrives, how long its session lasts, whether it buys. */
interface Planned {
  arriveSec: number;
  lengthSec: number;
  buys: boolean;
}

/** The seeded plan: log-normal lengths with median 180 s and P(length > 900 s) = 10%. */
export function planVisitors(o: SessionsOptions): Planned[] {
  const r = seededRandom(o.seed);
  const sigma = Math.log(900 / 180) / 1.2815515655;
  const out: Planned[] = [];
  for (let i = 0; i < o.visitors; i++) {
    // Box-Muller: one standard normal per visitor.
    const z = Math.sqrt(-2 * Math.log(1 - r.float())) * Math.cos(2 * Math.PI * r.float());
    out.push({
      arriveSec: (i * o.arrivalSeconds) / o.visitors,
      lengthSec: Math.max(10, 180 * Math.exp(sigma * z)),
      buys: r.float() < o.releaseShare,
    });
  }
  return out;
}

const cookieOf = (res: Response, name: string): string | undefined => {
  for (const c of res.headers.getSetCookie()) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(c);
    if (m && m[1]) return decodeURIComponent(m[1]);
  }
  return undefined;
};

/** Plays the plan against a fresh server of one variant. */
async function playOne(
  e: ScenarioEnv,
  o: SessionsOptions,
  plan: Planned[],
  name: string,
  sliding: boolean,
  release: boolean,
): Promise<SessionsRun> {
  const kvPath = `${e.dir}/sessions-${name.replace(/\W+/g, "-")}.kv`;
  if (sliding) {
    const kv = await Deno.openKv(kvPath);
    await writeSessionSettings(kv, "default", {
      sessionMode: "sliding",
      sessionIdleSeconds: o.idleSeconds,
      sessionMaxSeconds: null,
    });
    kv.close();
  }
  const t: Target = await startTarget(e, `sessions-${name}`, kvPath, {
    CAPACITY: String(o.capacity),
    ADMIT_PER_SECOND: "10",
    MAX_WAITING_VISITORS: String(o.visitors * 2),
    // Every simulated visitor comes from this one loopback address.
    JOINS_PER_CLIENT_PER_MINUTE: "0",
  }, o.clockSpeed);
  const clock = t.clock;
  const start = clock.now() + 2000;
  const end = start + o.hourSeconds * 1000;
  const waits: number[] = [];
  const run = {
    admitted: 0,
    cutOff: 0,
    maxHeld: 0,
    released: 0,
    requests: 0,
    errors: 0,
    errorsBy: {} as Record<string, number>,
    lost: 0,
  };
  let done = false;
  const failed = (why: string) => {
    run.errors++;
    run.errorsBy[why] = (run.errorsBy[why] ?? 0) + 1;
  };
  const call = async (path: string, init: RequestInit = {}) => {
    run.requests++;
    try {
      return await fetch(t.url + path, init);
    } catch {
      failed("network");
      return null;
    }
  };
  const sleepUntil = (serverMs: number) => pause(clock.msUntil(serverMs));

  const visitor = async (p: Planned) => {
    const joinAt = start + p.arriveSec * 1000;
    await sleepUntil(joinAt);
    if (done) return;
    let res = await call("/join", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"queue":"default"}',
    });
    if (!res) return;
    let ticket = cookieOf(res, "tg_ticket");
    let body = await res.json().catch(() => ({}));
    while (!body.accessToken && !done) {
      if (!res.ok) failed(`${res.status}${body.error?.code ? ` ${body.error.code}` : ""}`);
      // A visitor the room dropped gets 404 on every check-in: it has lost its place, and a
      // real page would say so and stop (polling on would only load the room).
      if (res.status === 404) return void run.lost++;
      await sleepUntil(Math.max(body.nextCheckAt ?? 0, clock.now() + 1000));
      if (done || clock.now() >= end) return;
      res = await call("/status?queue=default", { headers: { cookie: `tg_ticket=${ticket}` } });
      if (!res) return;
      ticket = cookieOf(res, "tg_ticket") ?? ticket;
      body = await res.json().catch(() => ({}));
    }
    if (!body.accessToken) return;
    const admittedAt = clock.now();
    if (admittedAt < end) {
      run.admitted++;
      waits.push((admittedAt - joinAt) / 1000);
    }
    let token: string = body.accessToken;
    const until = admittedAt + p.lengthSec * 1000;
    // Active: a request every `activeEverySec` until the visitor is done.
    for (let at = admittedAt; at < until && !done; at += o.activeEverySec * 1000) {
      await sleepUntil(at);
      const r = await call("/verify", { headers: { cookie: `tg_access=${token}` } });
      if (!r) continue;
      await r.body?.cancel();
      token = cookieOf(r, "tg_access") ?? token;
      if (r.status === 401) {
        run.cutOff++;
        return;
      }
    }
    await sleepUntil(until);
    if (release && p.buys && !done) {
      const r = await call("/release", {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      });
      if (r?.ok) run.released++;
      await r?.body?.cancel();
    }
  };

  const watch = async () => {
    while (!done) {
      const r = await call("/metrics?queue=default", {
        headers: { authorization: `Bearer ${t.secret}` },
      });
      if (r?.ok) {
        const m = await r.json();
        run.maxHeld = Math.max(run.maxHeld, m.entered + m.holding);
      }
      await pause(clock.msUntil(clock.now() + 5000));
    }
  };

  e.log(`  ${name}: ${plan.length} visitors over ${o.hourSeconds} server s`);
  const watching = watch();
  const all = Promise.all(plan.map(visitor));
  await sleepUntil(end);
  done = true;
  await Promise.race([all, pause(10_000)]);
  await watching;
  await t.proc.stop();
  return {
    name,
    ...run,
    admittedPerHour: (run.admitted * 3600) / o.hourSeconds,
    medianWaitSec: waits.length ? percentile(waits, 50) : 0,
    stillWaiting: plan.length - waits.length,
  };
}

/** Runs the three variants on the same plan, one after the other. */
export async function sessionScenario(
  e: ScenarioEnv,
  o: SessionsOptions,
): Promise<SessionsReport> {
  const plan = planVisitors(o);
  const runs: SessionsRun[] = [];
  runs.push(await playOne(e, o, plan, "fixed", false, false));
  runs.push(await playOne(e, o, plan, "fixed + release", false, true));
  runs.push(await playOne(e, o, plan, "sliding + release", true, true));
  return { options: o, runs };
}

/** The issue's targets: >= 1.5x admitted per hour, nobody cut off while active, capacity held. */
export function sessionChecks(r: SessionsReport): Check[] {
  const [fixed, fixedRelease, sliding] = r.runs;
  const ratio = fixed.admittedPerHour ? sliding.admittedPerHour / fixed.admittedPerHour : 0;
  const row = (x: SessionsRun) =>
    `${f0(x.admittedPerHour)}/h, median wait ${f0(x.medianWaitSec)} s, ${f0(x.stillWaiting)} ` +
    `not admitted, ${f0(x.released)} released`;
  return [
    { name: "fixed (TTL 900)", measured: row(fixed), target: "shown", pass: null },
    { name: "fixed + release", measured: row(fixedRelease), target: "shown", pass: null },
    { name: "sliding + release", measured: row(sliding), target: "shown", pass: null },
    {
      name: "admitted per hour, sliding + release against fixed",
      measured: `${ratio.toFixed(2)} x`,
      target: ">= 1.5 x",
      pass: ratio >= 1.5,
    },
    {
      name: "sessions cut off while the visitor was active (sliding)",
      measured: f0(sliding.cutOff),
      target: "0",
      pass: sliding.cutOff === 0,
    },
    {
      name: "most slots held at once (every run)",
      measured: r.runs.map((x) => f0(x.maxHeld)).join(", "),
      target: `<= ${r.options.capacity}`,
      pass: r.runs.every((x) => x.maxHeld <= r.options.capacity),
    },
  ];
}
