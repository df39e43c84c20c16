/** Helpers of the pre-queue tests. */
import { Client, makeApp, type TestApp } from "./helpers.ts";

const Q = "default";

/** A visitor whose requests go through the served `fetch`, as `Deno.serve` runs it. */
export function served(t: TestApp): Client {
  return new Client({
    request: (p, init) => t.fetch(new Request(`http://localhost${p}`, init)),
  });
}

/** An app whose `default` queue opens in `opensIn` ms with a pre-queue of `minutes`. */
export async function prequeueApp(opensIn = 3_600_000, minutes = 30) {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  const opensAt = t.clock.now() + opensIn;
  await t.engine.setOpensAt(Q, opensAt);
  await t.engine.setPrequeue(Q, minutes);
  return { t, opensAt };
}
