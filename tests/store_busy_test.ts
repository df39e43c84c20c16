/**
 * A store that will not take a write: a KV file locked by another process, a store that answers
 * too late. Each time the visitor gets a clear 503 within the bound (3 s for the waiting page),
 * nothing is counted twice, and once the store answers again the same visitor gets in line exactly
 * once. A join let in at once whose commit keeps losing its check takes the line instead.
 */
import { DatabaseSync } from "node:sqlite";
import { delayedKv } from "../testing/delayed_kv.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, withDefaults } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, type TestApp } from "./helpers.ts";

/** A browser over the served fetch (fast paths included), as `Deno.serve` runs it. */
function served(t: TestApp): Client {
  return new Client({ request: (p, init) => t.fetch(new Request(`http://localhost${p}`, init)) });
}

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const start = Date.now();
  const out = await f();
  return [out, Date.now() - start];
}

async function countsOf(kv: Deno.Kv): Promise<Counts> {
  return withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts("default"))).value);
}

async function tempKv() {
  const dir = await Deno.makeTempDir({ prefix: "tollgate-busy-" });
  const path = `${dir}/store.kv`;
  return { path, kv: await Deno.openKv(path), remove: () => Deno.remove(dir, { recursive: true }) };
}

Deno.test("a KV file locked by another process: /wait answers its 503 page within 3 s", async () => {
  const store = await tempKv();
  const t = await makeApp({}, { kv: store.kv });
  const v = served(t);
  // Joins on this queue wait: the line is long enough that nobody is let in at once.
  await t.engine.setPaused("default", true);
  const lock = new DatabaseSync(store.path);
  try {
    lock.exec("BEGIN EXCLUSIVE");
    // A tick is stuck on the lock first, holding this instance's counts writers: the join's
    // bound counts its wait behind it too.
    t.clock.advance(1000);
    const ticking = t.engine.tick("default").catch((e) => e);
    // A second visitor comes a second later, while the first one's join is stuck: its bound
    // counts from its own arrival too, not from when the stuck batch lets go.
    const later = new Promise((r) => setTimeout(r, 1000)).then(() =>
      timed(() => served(t).req("GET", "/wait"))
    );
    const [page, ms] = await timed(() => v.req("GET", "/wait"));
    assertEquals(page.status, 503);
    assert(page.headers.get("content-type")!.startsWith("text/html"), "a page, not JSON");
    assert(page.text.includes("tries again by itself"), page.text.slice(0, 400));
    assert(ms < 3000, `answered after ${ms} ms`);
    const [second, secondMs] = await later;
    assertEquals(second.status, 503);
    assert(secondMs < 3000, `the second visitor heard after ${secondMs} ms`);
    const [api, apiMs] = await timed(() => served(t).join());
    assertEquals([api.status, api.json.error.code], [503, "store_busy"]);
    assertEquals(api.json.error.details.retryAfterSeconds, 2, "says when to come back");
    assertEquals(api.headers.get("retry-after"), "2");
    assert(apiMs < 3000, `POST /join answered after ${apiMs} ms`);
    assertEquals((await ticking)?.code, "store_busy", "the tick gave up too");
  } finally {
    lock.exec("ROLLBACK");
    lock.close();
  }
  // The store answers again: a cut-off commit may have landed meanwhile (a row nobody holds a
  // ticket for, dropped when its deadline passes), but nothing is counted twice.
  await new Promise((r) => setTimeout(r, 3000));
  const again = await v.req("GET", "/wait");
  assertEquals(again.status, 200);
  // 0.8: joins are counted once the sequencer numbered them (the tick's first phase).
  await t.engine.sequence("default");
  const c = await countsOf(t.kv);
  assert(
    c.waiting >= 1 && c.waiting <= 3,
    `waiting ${c.waiting}: the retry, and at most 2 cut off`,
  );
  assert((await diagnose(t.kv, "default")).healthy, "counts equal a recount");
  assertEquals(c.admitted, 0, "nobody admitted while paused");
  t.close();
  await store.remove();
});

// 0.8: a join that waits writes only its own records and checks nothing another writer touches;
// the join that goes in at once (an empty, open line) is the one that still commits checked
// against the queue's records, so this runs on an open queue (it was paused before). It once
// retried until the store's deadline and answered 503; now, after three lost tries, it takes the
// line (another writer of the counts coming first is the line forming), and the tick admits it.
Deno.test("a join let in at once whose commit keeps losing its check: in line at once, written once", async () => {
  const real = await Deno.openKv(":memory:");
  let rival = false;
  // A real competing writer: just before each of our commits it rewrites the queue's settings
  // (same value, new versionstamp), so every checked commit of ours really loses in the store.
  const kv = delayedKv(real, {
    readMs: 0,
    commitMs: 0,
    beforeCommit: async () => {
      if (!rival) return;
      const s = await real.get(keys.queue("default"));
      await real.set(keys.queue("default"), s.value);
    },
  });
  const t = await makeApp({}, { kv });
  const c0 = await countsOf(real);
  rival = true;
  const v = served(t);
  const [r, ms] = await timed(() => v.join());
  assertEquals([r.status, r.json?.status, r.json?.positionExact], [202, "waiting", false], r.text);
  assert(ms < 1000, `answered after ${ms} ms`);
  assertEquals(await countsOf(real), c0, "counts unchanged (the sequencer counts it)");
  const arrivals = await Array.fromAsync(real.list({ prefix: keys.arrivalPrefix("default") }));
  assertEquals(arrivals.length, 1, "one arrival written");
  rival = false;
  t.clock.advance(1000);
  await t.engine.tick("default");
  const again = await v.join();
  assertEquals(again.json.visitorId, r.json.visitorId, "its ticket resumed its place");
  assertEquals([again.status, again.json.status], [200, "admitted"], "the tick let it in, once");
  const c = await countsOf(real);
  assertEquals([c.admitted, c.waiting], [1, 0]);
  assert((await diagnose(real, "default")).healthy, "counts equal a recount");
  t.close();
});

Deno.test("a store that answers commits too late: 503 within the bound, then one place in line", async () => {
  const real = await Deno.openKv(":memory:");
  const delays = { readMs: 0, commitMs: 0 };
  const t = await makeApp({}, { kv: delayedKv(real, delays) });
  await t.engine.setPaused("default", true);
  const v = served(t);
  delays.commitMs = 4000;
  const [r, ms] = await timed(() => v.req("GET", "/wait"));
  assertEquals(r.status, 503);
  assert(ms < 3000, `answered after ${ms} ms`);
  // The cut-off commit still reaches the store later: it lands once (0.8: as its own records,
  // numbered by the next sequencer run).
  delays.commitMs = 0;
  const landBy = Date.now() + 6000;
  const landed = async () =>
    (await Array.fromAsync(real.list({ prefix: keys.visitorPrefix("default") }))).length;
  while (await landed() < 1 && Date.now() < landBy) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assertEquals(await landed(), 1, "the late commit landed");
  const again = await v.req("GET", "/wait");
  assertEquals(again.status, 200);
  await t.engine.sequence("default");
  const c = await countsOf(real);
  // The 503 carried the ticket of the id it tried: the retry resumed the place the late commit
  // wrote, never a second one (issue 36, part 2).
  assertEquals([c.waiting, c.nextSeq], [1, 2], "the late commit once, resumed by the retry");
  assert((await diagnose(real, "default")).healthy, "counts equal a recount");
  t.close();
});
