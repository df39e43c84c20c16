/**
 * The sequencer's numbering rate over a remote store: ARRIVALS joins written (undelayed), then one
 * engine over a store that delays every read by READ_MS and every commit by COMMIT_MS numbers them
 * with its tick's sequencer (600 ms budget a call, as at a tick); with SPREAD, their arrival times
 * spread out (see `SPREAD`). Prints arrivals numbered a second
 * of sequencer time and a second of wall time (calls back to back, as one tick a second would not).
 * With RATE set, a tick probe instead (see `tickProbe`).
 */
import { Engine } from "../lib/queue/engine.ts";
import { cryptoRandom, systemClock } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import { migrate } from "../lib/store/migrate.ts";
import { Signer } from "../lib/tokens.ts";
import { delayedKv } from "../testing/delayed_kv.ts";
import { keys } from "../lib/store/keys.ts";
import { sequence } from "../lib/queue/sequencer.ts";

const ARRIVALS = Number(Deno.env.get("ARRIVALS") ?? 3000);
const COMMIT_MS = Number(Deno.env.get("COMMIT_MS") ?? 100);
const READ_MS = Number(Deno.env.get("READ_MS") ?? 25);
const RATE = Number(Deno.env.get("RATE") ?? 0);
const SECONDS = Number(Deno.env.get("SECONDS") ?? 8);
/** A call's budget: 600 ms as at a tick; 1,500 as the run beside the ticks behind a backlog. */
const BUDGET_MS = Number(Deno.env.get("BUDGET_MS") ?? 600);
const Q = "default";
const dir = await Deno.makeTempDir({ prefix: "tollgate-seq-", dir: "/dev/shm" });
const real = await Deno.openKv(`${dir}/store.kv`);
await migrate(real);
const config = testConfig({
  ADMIT_PER_SECOND: RATE > 0 ? 50 : 1,
  CAPACITY: RATE > 0 ? 100_000 : 1,
  MAX_WAITING_VISITORS: 10_000_000,
});
const deps = {
  clock: systemClock,
  config,
  random: cryptoRandom,
  signer: new Signer(config.TOKEN_SECRET),
};
/**
 * SPREAD (joins a second of arrival time): the ARRIVALS are written with arrival times spread at
 * that rate (5 ms of arrival time a group), as a crowd arriving over time would have them, not in
 * bursts of 500 in one millisecond.
 */
const SPREAD = Number(Deno.env.get("SPREAD") ?? 0);
const spreadClock = { t: Date.now() - (SPREAD > 0 ? ARRIVALS / SPREAD * 1000 : 0) };
const writer = new Engine(
  { ...deps, kv: real, clock: SPREAD > 0 ? { now: () => spreadClock.t } : systemClock },
  false,
);
await writer.ensureQueues([Q]);
await writer.setPaused(Q, true);
const group = SPREAD > 0 ? Math.max(1, Math.round(SPREAD / 200)) : 500;
for (let i = 0; i < ARRIVALS; i += group) {
  await Promise.all(
    Array.from({ length: Math.min(group, ARRIVALS - i) }, () => writer.join(Q, null)),
  );
  spreadClock.t += 5;
}
const far = new Engine(
  { ...deps, kv: delayedKv(real, { readMs: READ_MS, commitMs: COMMIT_MS }) },
  false,
);
if (RATE > 0) await tickProbe();
else await backToBack();
real.close();
await Deno.remove(dir, { recursive: true });

/** Numbers the ARRIVALS written with calls back to back and prints the rate. */
async function backToBack() {
  let numbered = 0, calls = 0;
  const t0 = performance.now();
  while (numbered < ARRIVALS && calls < 200) {
    numbered += await sequence(far.ctx, Q, BUDGET_MS);
    calls++;
  }
  const s = (performance.now() - t0) / 1000;
  console.log(
    JSON.stringify({
      arrivals: ARRIVALS,
      commitMs: COMMIT_MS,
      readMs: READ_MS,
      numbered,
      calls,
      seconds: +s.toFixed(2),
      perSecond: Math.round(numbered / s),
      perTick: Math.round(numbered / calls),
    }),
  );
}

/**
 * `RATE=3000`: joins arrive at RATE a second (on the local store, the queue open at 50 a second)
 * while the far engine runs the tick once a second for SECONDS; prints each tick's numbered and
 * admitted counts, its duration and the arrivals left unnumbered after it: whether the ticks keep
 * up with a rate, apart from the scale simulation's shared thread.
 */
async function tickProbe() {
  await writer.setPaused(Q, false);
  let stop = false;
  const feeding = (async () => {
    const t0 = Date.now();
    let sent = 0;
    const inFlight: Promise<unknown>[] = [];
    while (!stop) {
      const owed = Math.floor(((Date.now() - t0) / 1000) * RATE);
      for (; sent < owed; sent++) inFlight.push(writer.join(Q, null).catch(() => {}));
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(inFlight);
    return sent;
  })();
  const left = () => Array.fromAsync(real.list({ prefix: keys.arrivalPrefix(Q) }));
  const ticks: Promise<void>[] = [];
  for (let s = 0; s < SECONDS; s++) {
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
    const started = Date.now();
    ticks.push(
      far.tick(Q).then(async (r) => {
        const ms = Date.now() - started;
        const { ran, numbered, admitted } = r;
        console.log(JSON.stringify({ ran, numbered, admitted, ms, left: (await left()).length }));
      }),
    );
  }
  stop = true;
  await Promise.all(ticks);
  await far.sequence(Q);
  console.log(JSON.stringify({ sent: await feeding }));
}
