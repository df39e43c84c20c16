/**
 * The cached queue view and invalidation: a load whose reads predate a write must not be cached
 * or shared once the instance drops the view for that write.
 */
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, withDefaults } from "../lib/queue/types.ts";
import { assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

/**
 * `kv` whose `get` and `getMany` answers are held (already read) until `release` while `hold` is
 * on (a view load reads the settings with the former join-guards record in one `getMany`).
 */
function holdingKv(kv: Deno.Kv) {
  const gate = { hold: false, held: [] as (() => void)[] };
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      if (prop === "get" || prop === "getMany") {
        const read = (target[prop] as (...a: unknown[]) => Promise<unknown>).bind(target);
        return async (...args: unknown[]) => {
          const out = await read(...args);
          if (gate.hold) await new Promise<void>((r) => gate.held.push(r));
          return out;
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const release = () => gate.held.splice(0).forEach((r) => r());
  return { kv: wrapped as Deno.Kv, gate, release };
}

Deno.test("a view load under way when the view is invalidated is neither cached nor shared", async () => {
  const raw = await Deno.openKv(":memory:");
  const { kv, gate, release } = holdingKv(raw);
  const t = await makeApp({}, { kv });
  try {
    const q = "default";
    const ctx = t.engine.ctx;
    ctx.invalidate(q);
    gate.hold = true;
    const stale = ctx.view(q); // its reads are done, their answers held
    while (gate.held.length < 2) await new Promise((r) => setTimeout(r, 1));
    // Meanwhile another writer changes the counts, and this instance drops its view.
    const entry = await raw.get<Counts>(keys.counts(q));
    const counts = withDefaults(EMPTY_COUNTS, entry.value);
    await raw.set(keys.counts(q), { ...counts, waiting: counts.waiting + 7 });
    ctx.invalidate(q);
    gate.hold = false;
    const fresh = ctx.view(q); // a new load, not the one under way
    release();
    assertEquals((await stale).counts.waiting, counts.waiting, "the old load saw the old state");
    assertEquals((await fresh).counts.waiting, counts.waiting + 7);
    assertEquals((await ctx.view(q)).counts.waiting, counts.waiting + 7, "the cached view is new");
  } finally {
    t.close();
  }
});

Deno.test("a join commit of this instance while a view load is under way shows in the view it caches", async () => {
  const raw = await Deno.openKv(":memory:");
  const { kv, gate, release } = holdingKv(raw);
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, { kv });
  try {
    const q = "default";
    const ctx = t.engine.ctx;
    await t.engine.setPaused(q, true);
    await t.engine.join(q, null);
    ctx.invalidate(q);
    await ctx.view(q);
    // Late in the view's second: the next look starts a load ahead, in the background.
    t.clock.advance(800);
    gate.hold = true;
    assertEquals(ctx.freshView(q)?.counts.waiting, 1, "answered from the cached view");
    while (gate.held.length < 2) await new Promise((r) => setTimeout(r, 1));
    gate.hold = false;
    // Its reads are done (one waiter), their answers held. Meanwhile this instance commits a join.
    const out = await t.engine.join(q, null);
    assertEquals(out.view.position, 2);
    release();
    for (let i = 0; i < 100 && !ctx.freshView(q); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    // The load read one waiter, but this instance reads its writes: the cached view has both.
    assertEquals(ctx.freshView(q)?.counts.waiting, 2, "the view has the join committed meanwhile");
  } finally {
    t.close();
  }
});
