/**
 * The per-second cache behind each queue's view and branding (lib/second_cache.ts): one load
 * shared by every caller, fresh for a second from when it started, renewed ahead in the
 * background, and a load under way forgotten with its key.
 */
import { SecondCache } from "../lib/second_cache.ts";
import { assertEquals } from "./assert.ts";

/** A cache over a loader that counts its loads and answers when `release` is called. */
function counted(max?: number) {
  let now = 1_000_000;
  const loads: { key: string; at: number; done: (v: string) => void }[] = [];
  const cache = new SecondCache<string>(
    () => now,
    (key, at) => new Promise((done) => loads.push({ key, at, done })),
    max,
  );
  const release = (v: string) => loads.splice(0).forEach((l) => l.done(`${l.key}:${v}`));
  return { cache, loads, release, advance: (ms: number) => void (now += ms) };
}

Deno.test("SecondCache: one load for every caller, fresh for a second, renewed ahead once", async () => {
  const t = counted();
  const a = t.cache.get("q"), b = t.cache.get("q");
  assertEquals(t.loads.length, 1, "callers of the moment share one load");
  t.release("1");
  assertEquals([await a, await b], ["q:1", "q:1"]);
  t.advance(700);
  assertEquals(t.cache.fresh("q"), "q:1");
  assertEquals(t.loads.length, 0, "not renewed before 750 ms");
  t.advance(100);
  assertEquals(t.cache.fresh("q"), "q:1", "still answered while it is renewed");
  assertEquals(t.cache.fresh("q"), "q:1");
  assertEquals(t.loads.length, 1, "one renewal at a time");
  t.release("2");
  await Promise.resolve();
  await Promise.resolve();
  assertEquals(t.cache.fresh("q"), "q:2");
  t.advance(1000);
  assertEquals(t.cache.fresh("q"), undefined, "a second after its load started");
  assertEquals(t.cache.last("q"), "q:2");
});

Deno.test("SecondCache: a load under way when its key is forgotten is not cached", async () => {
  const t = counted();
  const old = t.cache.get("q");
  t.cache.forget("q");
  const fresh = t.cache.get("q");
  assertEquals(t.loads.length, 2, "the next caller reads afresh");
  t.release("x");
  assertEquals(await old, "q:x");
  assertEquals(await fresh, "q:x");
  const before = t.cache.get("q");
  t.cache.forget();
  t.release("y");
  await before;
  assertEquals(t.cache.last("q"), undefined, "the forgotten load did not fill the cache");
});

Deno.test("SecondCache: replace keeps the age; past max keys it starts afresh", async () => {
  const t = counted(2);
  const a = t.cache.get("a");
  t.release("1");
  await a;
  t.cache.replace("a", "other", "a:no");
  assertEquals(t.cache.last("a"), "a:1", "only while it is still the value given");
  t.cache.replace("a", "a:1", "a:2");
  t.advance(1000);
  assertEquals(t.cache.fresh("a"), undefined, "replacing did not make it younger");
  for (const k of ["b", "c"]) {
    const p = t.cache.get(k);
    t.release("1");
    await p;
  }
  assertEquals([t.cache.last("a"), t.cache.last("b"), t.cache.last("c")], [
    undefined,
    undefined,
    "c:1",
  ]);
});
