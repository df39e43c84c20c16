/**
 * The opening draw is uniform: over many small pre-queues (each its own random seed), which
 * arrival gets in first, and where the earliest arrival lands, are flat by a chi-square test, like
 * the lottery's. Arrival order gives no edge.
 */
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";
const N = 10;
const TRIALS = 300;
/** Chi-square critical value at p = 0.999 for 9 degrees of freedom. */
const CHI2_999_DF9 = 27.877;

function chiSquare(observed: number[]): number {
  const total = observed.reduce((a, b) => a + b, 0);
  const expected = total / observed.length;
  return observed.reduce((a, o) => a + (o - expected) ** 2 / expected, 0);
}

/** One pre-queue of N on an app seeded with `seed`: [arrival index admitted first, place of the first arrival]. */
async function trial(seed: number): Promise<[number, number]> {
  const t = await makeApp({ ADMIT_PER_SECOND: 100, CAPACITY: 100 }, { seed });
  const opensAt = t.clock.now() + 20_000;
  await t.engine.setOpensAt(Q, opensAt);
  await t.engine.setPrequeue(Q, 5);
  const ids: string[] = [];
  for (let i = 0; i < N; i++) ids.push((await t.engine.join(Q, null)).view.visitorId);
  t.clock.ms = opensAt;
  await t.engine.drawIfDue(Q);
  assertEquals(await t.engine.admit(Q, 1), 1);
  const { counts } = await t.engine.ctx.readCounts(Q);
  let first = -1;
  for (const [i, id] of ids.entries()) {
    if ((await t.engine.visitor(Q, id))!.state !== "waiting") first = i;
  }
  // Admitted or not, a record keeps its drawn place as its arrival-order key.
  const placeOfFirst = (await t.engine.visitor(Q, ids[0]))!.seq - counts.preCutoff;
  t.close();
  return [first, placeOfFirst];
}

Deno.test("over many small pre-queues, the first admitted and the first arrival's place are uniform", async () => {
  const firsts = new Array(N).fill(0);
  const places = new Array(N).fill(0);
  for (let s = 1; s <= TRIALS; s++) {
    const [f, p] = await trial(s * 7919);
    assert(f >= 0 && p >= 0 && p < N, `trial ${s}: ${f}, ${p}`);
    firsts[f]++;
    places[p]++;
  }
  const c1 = chiSquare(firsts), c2 = chiSquare(places);
  assert(c1 < CHI2_999_DF9, `first admitted by arrival: chi2 ${c1.toFixed(1)} ${firsts}`);
  assert(c2 < CHI2_999_DF9, `place of the first arrival: chi2 ${c2.toFixed(1)} ${places}`);
  // And the test can fail: arrival order itself is maximally non-uniform.
  assert(chiSquare([TRIALS, 0, 0, 0, 0, 0, 0, 0, 0, 0]) > CHI2_999_DF9);
});
