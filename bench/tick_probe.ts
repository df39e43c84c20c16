/**
 * `deno run -A bench/tick_probe.ts`: joins arrive at RATE a second on one engine (local store)
 * while another engine over a store that delays reads by READ_MS and commits by COMMIT_MS runs the
 * tick once a second; prints each tick's numbered and admitted counts, its duration and the
 * arrivals left unnumbered after it. Shows whether the tick keeps up with a rate, apart from the
 * scale simulation's shared thread.
 */
import { Engine } from "../lib/queue/engine.ts";
import { cryptoRandom, systemClock } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import { migrate } from "../lib/store/migrate.ts";
import { Signer } from "../lib/tokens.ts";
import { keys } from "../lib/store/keys.ts";
import { delayedKv } from "../testing/delayed_kv.ts";

const RATE = Number(Deno.env.get("RATE") ?? 3000);
const SECONDS = Number(Deno.env.get("SECONDS") ?? 8);
const COMMIT_MS = Number(Deno.env.get("COMMIT_MS") ?? 100);
const READ_MS = Number(Deno.env.get("READ_MS") ?? 25);
const Q = "default";
const dir = await Deno.makeTempDir({ prefix: "tollgate-tick-", dir: "/dev/shm" });
const real = await Deno.openKv(`${dir}/store.kv`);
await migrate(real);
const config = testConfig({
  ADMIT_PER_SECOND: 50,
  CAPACITY: 100_000,
  MAX_WAITING_VISITORS: 10_000_000,
});
const deps = {
  clock: systemClock,
  config,
  random: cryptoRandom,
  signer: new Signer(config.TOKEN_SECRET),
};
const writer = new Engine({ ...deps, kv: real }, false);
await writer.ensureQueues([Q]);
const far = new Engine(
  { ...deps, kv: delayedKv(real, { readMs: READ_MS, commitMs: COMMIT_MS }) },
  false,
);
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
const unnumbered = async () => {
  let n = 0;
  for await (const _ of real.list({ prefix: keys.arrivalPrefix(Q) })) n++;
  return n;
};
const ticks: Promise<void>[] = [];
for (let s = 0; s < SECONDS; s++) {
  await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
  const started = Date.now();
  ticks.push(
    far.tick(Q).then(async (r) => {
      console.log(JSON.stringify({
        sec: r.sec % 100,
        ran: r.ran,
        numbered: r.numbered,
        admitted: r.admitted,
        ms: Date.now() - started,
        left: await unnumbered(),
      }));
    }),
  );
}
stop = true;
await Promise.all(ticks);
console.log("sent", await feeding);
real.close();
await Deno.remove(dir, { recursive: true });
