/**
 * The sum of joins not numbered yet (`arrivalsPending`) stays exact when a join commits while the
 * sequencer reads: the line's count (stored waiting plus that sum) must equal the joins. Found by
 * the browser suite (admin Live tab showed 6 waiting after 5 joins that raced the ticks).
 */
import { keys } from "../lib/store/keys.ts";
import { pendingOf } from "../lib/queue/enters.ts";
import { assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

Deno.test("a join committed between the sequencer's counts read and its list is not over-counted", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  const q = "default";
  await t.engine.setPaused(q, true);
  await t.engine.join(q, null);
  // The sequencer reads the counts (and the sum, 1); a second join lands before it lists.
  const ctx = t.engine.ctx;
  const readState = ctx.readState.bind(ctx);
  let raced = false;
  ctx.readState = async (name: string) => {
    const out = await readState(name);
    if (!raced) {
      raced = true;
      await t.engine.join(q, null);
    }
    return out;
  };
  assertEquals(await t.engine.sequence(q), 2, "both joins numbered");
  ctx.readState = readState;
  const left = pendingOf(await t.kv.get<Deno.KvU64>(keys.arrivalsPending(q)));
  assertEquals(left, 0, "no join is left counted as not numbered");
  ctx.invalidate(q);
  assertEquals((await t.engine.metrics(q)).waiting, 2, "the line counts two");
  t.close();
});
