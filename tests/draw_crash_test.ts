/**
 * The opening draw survives a crash: a separate process running the draw is killed (SIGKILL) in
 * the middle; a rerun finishes it with the same seed, list and order, nobody is lost, nobody is
 * placed twice; and two instances drawing at once agree.
 */
import { FakeClock } from "../lib/clock.ts";
import { keys } from "../lib/store/keys.ts";
import { publicDraw } from "../lib/queue/draw.ts";
import { verifyDraw } from "../lib/queue/draw_scheme.ts";
import type { DrawRecord } from "../lib/queue/prequeue.ts";
import type { Visitor } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";

const Q = "default";
const N = 1500;

/** Fills a pre-queue window with `n` joins over `kv` (a few leave); returns its opening time. */
async function fillWindow(kv: Deno.Kv, n: number): Promise<{ opensAt: number; left: Set<string> }> {
  const t = await makeApp({ MAX_WAITING_VISITORS: 10 * n }, { kv });
  const opensAt = t.clock.now() + 600_000;
  await t.engine.setOpensAt(Q, opensAt);
  await t.engine.setPrequeue(Q, 60);
  const outs = await Promise.all(Array.from({ length: n }, () => t.engine.join(Q, null)));
  const left = new Set<string>();
  for (const o of outs.slice(0, 20)) {
    await t.engine.leave(
      Q,
      { sub: o.view.visitorId, queue: Q, iat: 0, seq: 0, nextCheckAt: 0 },
      o.view.visitorId,
    );
    left.add(o.view.visitorId);
  }
  return { opensAt, left };
}

/** Checks the finished draw: everyone still waiting from the window sits at its drawn place. */
async function checkPlaced(t: TestApp, expectCount: number, left: Set<string>) {
  const rec = (await t.kv.get<DrawRecord>(keys.draw(Q))).value!;
  assertEquals(rec.state, "done");
  const pub = await publicDraw(t.engine.ctx, Q, rec);
  assert(verifyDraw(pub).ok, JSON.stringify(verifyDraw(pub).lines));
  assertEquals(pub.count, expectCount);
  const byArrival = new Map<number, Visitor>();
  for await (const e of t.kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    assert(!left.has(e.value.id), "nobody who left comes back");
    assertEquals(e.value.state, "waiting");
    assert(e.value.arrival !== undefined, `visitor ${e.value.id} was moved`);
    assert(!byArrival.has(e.value.arrival!), "nobody placed twice");
    byArrival.set(e.value.arrival!, e.value);
  }
  assertEquals(byArrival.size, expectCount, "nobody lost");
  const fifo = new Map<number, string>();
  for await (const e of t.kv.list<string>({ prefix: keys.fifoPrefix(Q) })) {
    fifo.set(e.key[2] as number, e.value);
  }
  assertEquals(fifo.size, expectCount, "one line entry each");
  pub.order!.forEach((a, i) => {
    const v = byArrival.get(a)!;
    assertEquals(v.seq, rec.cutoff! + i, `arrival ${a} at place ${i + 1}`);
    assertEquals(fifo.get(v.seq), v.id);
  });
  return rec;
}

Deno.test("a draw killed in the middle is finished by a rerun with the same order, nobody lost", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/draw.kv`;
  let kv = await Deno.openKv(path);
  const { opensAt, left } = await fillWindow(kv, N);
  kv.close();
  const worker = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tests/fixtures/draw_worker.ts", path, String(opensAt + 100)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // Kill it once a third of the participants are moved.
  let seen = "";
  const reader = worker.stdout.pipeThrough(new TextDecoderStream()).getReader();
  while (!/moved (\d{3,})/.test(seen) || Number(/moved (\d+)\n?$/.exec(seen.trim())?.[1]) < N / 3) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  worker.kill("SIGKILL");
  await worker.status;
  await reader.cancel().catch(() => {});
  assert(!seen.includes("done"), "the worker was killed before finishing");

  kv = await Deno.openKv(path);
  const half = (await kv.get<DrawRecord>(keys.draw(Q))).value!;
  assertEquals(half.state, "listed", "killed after the list was fixed and the seed revealed");
  let moved = 0;
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    if (e.value.arrival !== undefined) moved++;
  }
  assert(moved > 0 && moved < N - left.size, `killed mid-draw (${moved} moved)`);
  const t = await makeApp({}, { kv, clock: new FakeClock(opensAt + 5_000) });
  await t.engine.drawIfDue(Q);
  const done = await checkPlaced(t, N - left.size, left);
  assertEquals([done.seed, done.listHash], [half.seed, half.listHash], "same seed, same list");
  const m = await t.engine.metrics(Q);
  assertEquals(m.waiting, N - left.size, "the counts agree");
  kv.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("two instances drawing at once agree on one order, and a rerun changes nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  const { opensAt, left } = await fillWindow(kv, 400);
  const clock = new FakeClock(opensAt + 10);
  const a = await makeApp({}, { kv, clock });
  const b = await makeApp({}, { kv, clock });
  a.engine.drawOptions = { chunk: 30 };
  b.engine.drawOptions = { chunk: 30 };
  await Promise.all([a.engine.drawIfDue(Q), b.engine.drawIfDue(Q)]);
  const rec = await checkPlaced(a, 400 - left.size, left);
  await a.engine.drawIfDue(Q);
  const again = await checkPlaced(a, 400 - left.size, left);
  assertEquals(again.drawnAt, rec.drawnAt, "done once");
  kv.close();
});

Deno.test("leaves during the draw are never undone; check-ins meanwhile write nothing; positions stay exact", async () => {
  const kv = await Deno.openKv(":memory:");
  const { opensAt, left } = await fillWindow(kv, 300);
  const t = await makeApp({}, { kv, clock: new FakeClock(opensAt + 10) });
  const ids: string[] = [];
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) ids.push(e.value.id);
  const leaving = [ids[5], ids[150], ids[ids.length - 1]];
  const ticket = (id: string) => ({ sub: id, queue: Q, iat: 0, seq: 0, nextCheckAt: 0 });
  let once = false;
  t.engine.drawOptions = {
    chunk: 40,
    onMoved: async () => {
      if (once) return;
      once = true;
      // One moved, two not yet: all three leave mid-draw.
      for (const id of leaving) await t.engine.leave(Q, ticket(id), id);
      // A due check-in of a waiting participant answers without writing its record.
      const id = ids.find((x) => !leaving.includes(x))!;
      const before = await kv.get(keys.visitor(Q, id));
      const out = await t.engine.heartbeat(Q, ticket(id), id);
      assertEquals(out.view.drawPending, true);
      assertEquals((await kv.get(keys.visitor(Q, id))).versionstamp, before.versionstamp);
    },
  };
  await t.engine.drawIfDue(Q);
  assert(once);
  for (const id of leaving) {
    assertEquals(await t.engine.visitor(Q, id), null, `${id} stays gone`);
    left.add(id);
  }
  const rec = (await t.kv.get<DrawRecord>(keys.draw(Q))).value!;
  const pub = await publicDraw(t.engine.ctx, Q, rec);
  assertEquals(pub.count, 300 - 20, "they were in the list");
  const view = await t.engine.ctx.view(Q);
  let place = 0;
  for (const a of pub.order!) {
    const v = [...(await Array.fromAsync(kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })))]
      .find((e) => e.value.arrival === a)?.value;
    if (!v) continue;
    place++;
    assertEquals(t.engine.ctx.position(view, v.seq), place, `arrival ${a}`);
  }
  assertEquals(place, 300 - 20 - leaving.length);
  assertEquals((await t.engine.metrics(Q)).waiting, place);
  kv.close();
});
