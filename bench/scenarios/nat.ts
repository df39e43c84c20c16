/**
 * Many people behind one address (a carrier NAT during a sale): `visitors` join from one client
 * address, evenly over `minutes` of server time, under the default per-client limit. The server
 * may run a faster clock (TOLLGATE_CLOCK_SPEED; the limit counts in server time), so five server
 * minutes pass in seconds. Every one of them must get a place.
 */
import { removeKv } from "../seeding.ts";
import { BEHIND_PROXY } from "./attack.ts";
import { HttpPool } from "./http.ts";
import { Tally, type TallySummary } from "./tally.ts";
import { pause, type ScenarioEnv, startTarget } from "./target.ts";

/** Sizes of the NAT scenario. */
export interface NatOptions {
  visitors: number;
  /** Server minutes the joins are spread over. */
  minutes: number;
  clockSpeed: number;
}

/** What the NAT scenario measured. */
export interface NatReport {
  options: NatOptions;
  joins: TallySummary;
  placed: number;
  realSeconds: number;
}

/** Runs the NAT scenario against a fresh server. */
export async function behindOneAddress(e: ScenarioEnv, o: NatOptions): Promise<NatReport> {
  const kvPath = `${e.dir}/nat.kv`;
  const t = await startTarget(e, "server-nat", kvPath, {
    ADMIT_PER_SECOND: "0.1",
    CAPACITY: "10000000",
    MAX_WAITING_VISITORS: "2000",
    ...BEHIND_PROXY,
  }, o.clockSpeed);
  const pool = new HttpPool(t.url, 8);
  const joins = new Tally();
  const started = performance.now();
  let placed = 0;
  try {
    const origin = t.clock.now();
    const every = (o.minutes * 60_000) / o.visitors;
    e.log(
      `  ${o.visitors} visitors behind one address over ${o.minutes} server minutes at clock ` +
        `speed ${o.clockSpeed} ...`,
    );
    const visits: Promise<void>[] = [];
    for (let i = 0; i < o.visitors; i++) {
      await pause(t.clock.msUntil(origin + i * every));
      visits.push(
        pool.request({
          method: "POST",
          path: "/join",
          body: JSON.stringify({ queue: "default" }),
          headers: { "x-forwarded-for": "198.51.100.20" },
        }).then((a) => {
          joins.add(a);
          if ((a.status === 200 || a.status === 202) && a.ticket) placed++;
        }),
      );
    }
    await Promise.all(visits);
    return {
      options: o,
      joins: joins.summary(),
      placed,
      realSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    pool.close();
    await t.proc.stop();
    await removeKv(kvPath);
  }
}
