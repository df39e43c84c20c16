/**
 * The sequencer's numbering rate over a remote store: ARRIVALS joins written (undelayed), then one
 * engine over a store that delays every read by READ_MS and every commit by COMMIT_MS numbers them
 * with its tick's sequencer (600 ms budget a call, as at a tick). Prints arrivals numbered a second
 * of sequencer time and a second of wall time (calls back to back, as one tick a second would not).
 */
import { Engine } from "../lib/queue/engine.ts";
import { cryptoRandom, systemClock } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import { migrate } from "../lib/store/migrate.ts";
import { Signer } from "../lib/tokens.ts";
import { delayedKv } from "../testing/delayed_kv.ts";

const ARRIVALS = Number(Deno.env.get("ARRIVALS") ?? 3000);
const COMMIT_MS = Number(Deno.env.get("COMMIT_MS") ?? 100);
const READ_MS = Number(Deno.env.get("READ_MS") ?? 25);
const Q = "default";
const dir = await Deno.makeTempDir({ prefix: "tollgate-seq-", dir: "/dev/shm" });
const real = await Deno.openKv(`${dir}/store.kv`);
await migrate(real);
const config = testConfig({ ADMIT_PER_SECOND: 1, CAPACITY: 1, MAX_WAITING_VISITORS: 10_000_000 });
const deps = {
  clock: systemClock,
  config,
  random: cryptoRandom,
  signer: new Signer(config.TOKEN_SECRET),
};
const writer = new Engine({ ...deps, kv: real }, false);
await writer.ensureQueues([Q]);
await writer.setPaused(Q, true);
for (let i = 0; i < ARRIVALS; i += 500) {
  await Promise.all(
    Array.from({ length: Math.min(500, ARRIVALS - i) }, () => writer.join(Q, null)),
  );
}
const far = new Engine(
  { ...deps, kv: delayedKv(real, { readMs: READ_MS, commitMs: COMMIT_MS }) },
  false,
);
let numbered = 0, calls = 0;
const t0 = performance.now();
while (numbered < ARRIVALS && calls < 200) {
  numbered += await far.sequence(Q);
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
real.close();
await Deno.remove(dir, { recursive: true });
Deno.exit(0);
