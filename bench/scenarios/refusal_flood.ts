/**
 * A refusal flood beside ordinary joins: real servers (main.ts) over one KV file, behind the
 * driver as their trusted proxy. Ordinary visitors join from their own addresses at a steady
 * offered rate, first alone, then while one address (past its allowance, so every join of it is
 * refused 429) sends joins at full speed on a few connections per instance. Measured per phase:
 * the ordinary joins answered per second and their latency, and per instance the KV commits
 * that wrote refusal statistics (`op="hit_count"` of its commit histogram) and all its commits.
 */
import { removeKv } from "../seeding.ts";
import { ATTACKER_IP, BEHIND_PROXY } from "./attack.ts";
import { HttpPool } from "./http.ts";
import { Tally, type TallySummary } from "./tally.ts";
import { newSecret, pause, type ScenarioEnv, startTarget, type Target } from "./target.ts";

/** Sizes of the refusal flood. */
export interface RefusalFloodOptions {
  instances: number;
  /** Seconds of each phase (without, then with the flood). */
  seconds: number;
  /** Ordinary joins offered per second, over all instances. */
  joinRate: number;
  /** The attacker's connections per instance. */
  floodConnections: number;
}

/** One phase's numbers. */
export interface FloodPhase {
  joins: TallySummary;
  /** Ordinary joins answered 200 or 202, per second of the phase. */
  placedPerSec: number;
  refused: number;
  /** Per instance: commits of refusal statistics per second, and all commits per second. */
  statCommitsPerSec: number[];
  commitsPerSec: number[];
}

/** What the refusal flood measured. */
export interface RefusalFloodReport {
  options: RefusalFloodOptions;
  without: FloodPhase;
  flood: FloodPhase;
}

const HIST = "tollgate_kv_commit_duration_seconds_count";

/** This instance's commits so far: of refusal statistics, and of every operation. */
async function commitCounts(t: Target): Promise<{ stats: number; all: number }> {
  const r = await fetch(`${t.url}/metrics?format=prometheus`, {
    headers: { authorization: `Bearer ${t.secret}` },
  });
  let stats = 0, all = 0;
  for (const line of (await r.text()).split("\n")) {
    if (!line.startsWith(HIST + "{")) continue;
    const n = Number(line.slice(line.lastIndexOf(" ") + 1));
    all += n;
    if (line.includes('op="hit_count"')) stats += n;
  }
  return { stats, all };
}

const join = (ip: string) => ({
  method: "POST" as const,
  path: "/join",
  body: JSON.stringify({ queue: "default" }),
  headers: { "x-forwarded-for": ip },
});

/** Runs one phase: ordinary joins at the offered rate, with the flood when `flood`. */
async function phase(
  targets: Target[],
  o: RefusalFloodOptions,
  from: number,
  flood: boolean,
): Promise<FloodPhase> {
  const pools = targets.map((t) => new HttpPool(t.url, 16));
  const floodPools = flood ? targets.map((t) => new HttpPool(t.url, o.floodConnections)) : [];
  const joins = new Tally();
  let placed = 0, refused = 0, running = true;
  const before = await Promise.all(targets.map(commitCounts));
  const started = performance.now();
  const attackers = floodPools.flatMap((p) =>
    Array.from({ length: p.size }, async () => {
      while (running) {
        const a = await p.request(join(ATTACKER_IP));
        if (a.status === 429) refused++;
      }
    })
  );
  const visits: Promise<void>[] = [];
  const total = Math.round(o.seconds * o.joinRate);
  for (let i = 0; i < total; i++) {
    await pause(started + (i * 1000) / o.joinRate - performance.now());
    const n = from + i;
    const ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    visits.push(
      pools[i % pools.length].request(join(ip)).then((a) => {
        joins.add(a);
        if (a.status === 200 || a.status === 202) placed++;
      }),
    );
  }
  await Promise.all(visits);
  const seconds = (performance.now() - started) / 1000;
  running = false;
  await Promise.all(attackers);
  const after = await Promise.all(targets.map(commitCounts));
  for (const p of [...pools, ...floodPools]) p.close();
  return {
    joins: joins.summary(),
    placedPerSec: placed / seconds,
    refused,
    statCommitsPerSec: after.map((a, i) => (a.stats - before[i].stats) / seconds),
    commitsPerSec: after.map((a, i) => (a.all - before[i].all) / seconds),
  };
}

/** Runs both phases against fresh servers over one KV file. */
export async function refusalFlood(
  e: ScenarioEnv,
  o: RefusalFloodOptions,
): Promise<RefusalFloodReport> {
  const kvPath = `${e.dir}/refusal-flood.kv`;
  const env = {
    ...BEHIND_PROXY,
    TOKEN_SECRET: newSecret(),
    ADMIT_PER_SECOND: "5",
    CAPACITY: "10000000",
    MAX_WAITING_VISITORS: "10000000",
  };
  const targets: Target[] = [];
  try {
    for (let i = 0; i < o.instances; i++) {
      targets.push(await startTarget(e, `server-flood-${i}`, kvPath, env));
    }
    e.log(
      `  refusal flood: ${o.joinRate} ordinary joins/s on ${o.instances} instances, ` +
        `${o.seconds} s alone, then ${o.seconds} s beside one address at full speed ...`,
    );
    const without = await phase(targets, o, 0, false);
    const flood = await phase(targets, o, 1 << 20, true);
    return { options: o, without, flood };
  } finally {
    for (const t of targets) await t.proc.stop();
    await removeKv(kvPath);
  }
}
