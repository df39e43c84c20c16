/**
 * The opening draw survives a crash: a separate process running the draw is killed (SIGKILL) in
 * the middle; a rerun finishes it with the same seed, list and order, nobody is lost, nobody is
 * placed twice; and two instances drawing at once agree.
 */
import { FakeClock } from "../lib/clock.ts";
import { keys } from "../lib/store/keys.ts";
import { publicDraw } from "../lib/queue/draw_list.ts";
import { verifyDraw } from "../lib/queue/draw_scheme.ts";
import { type DrawRecord, settleRoundNow } from "../lib/queue/prequeue.ts";
import { placeOf } from "../lib/queue/placement.ts";
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
  await t.engine.sequence(Q); // numbered into the window, as each tick does first (0.8.0)
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

/** The queue's visitor records, as the draw placed them (records keep arrival numbers until written). */
async function placedRecords(kv: Deno.Kv): Promise<Visitor[]> {
  const out: Visitor[] = [];
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    out.push((await placeOf(kv, Q, e.value)).v);
  }
  return out;
}

/** Checks the finished draw: everyone still waiting from the window sits at its drawn place. */
async function checkPlaced(t: TestApp, expectCount: number, left: Set<string>) {
  const rec = (await t.kv.get<DrawRecord>(keys.draw(Q))).value!;
  assertEquals(rec.state, "done");
  const pub = await publicDraw(t.engine.ctx, Q, rec);
  assert(verifyDraw(pub).ok, JSON.stringify(verifyDraw(pub).lines));
  assertEquals(pub.count, expectCount);
  const byArrival = new Map<number, Visitor>();
  for (const v of await placedRecords(t.kv)) {
    assert(!left.has(v.id), "nobody who left comes back");
    assertEquals(v.state, "waiting");
    assert(v.arrival !== undefined, `visitor ${v.id} was placed`);
    assert(!byArrival.has(v.arrival!), "nobody placed twice");
    byArrival.set(v.arrival!, v);
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
  for await (const _ of kv.list({ prefix: keys.fifoPrefix(Q) })) moved++;
  assert(moved > 0 && moved < N - left.size, `killed mid-draw (${moved} placed)`);
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

Deno.test("leaves during the draw are never undone; check-ins meanwhile are held and write nothing; positions stay exact", async () => {
  const kv = await Deno.openKv(":memory:");
  const { opensAt, left } = await fillWindow(kv, 300);
  const t = await makeApp({}, { kv, clock: new FakeClock(opensAt + 10) });
  const ids: string[] = [];
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) ids.push(e.value.id);
  const leaving: string[] = [];
  const ticket = (id: string) => ({ sub: id, queue: Q, iat: 0, seq: 0, nextCheckAt: 0 });
  let once = false;
  let held: ReturnType<typeof t.engine.heartbeat> | null = null;
  const checker = ids[ids.length - 1];
  t.engine.drawOptions = {
    chunk: 40,
    onMoved: async () => {
      if (once) return;
      once = true;
      // One with its line entry written, two without: all three leave mid-draw.
      const inLine = new Set<string>();
      for await (const e of kv.list<string>({ prefix: keys.fifoPrefix(Q) })) inLine.add(e.value);
      leaving.push([...inLine][3], ...ids.filter((id) => !inLine.has(id)).slice(0, 2));
      for (const id of leaving) await t.engine.leave(Q, ticket(id), id);
      // A check-in of a waiting participant is held while the draw runs, writing nothing.
      assert(!leaving.includes(checker));
      const before = await kv.get(keys.visitor(Q, checker));
      held = t.engine.heartbeat(Q, ticket(checker), checker);
      await new Promise((r) => setTimeout(r, 30));
      assertEquals((await kv.get(keys.visitor(Q, checker))).versionstamp, before.versionstamp);
    },
  };
  await t.engine.drawIfDue(Q);
  assert(once);
  // Answered once the draw is done, with its place.
  const out = await held!;
  assertEquals(out.view.drawPending, undefined);
  assertEquals(
    out.view.position,
    t.engine.ctx.position(
      await t.engine.ctx.view(Q),
      (await t.engine.visitor(Q, checker))!.seq,
    ),
  );
  assertEquals(leaving.length, 3);
  for (const id of leaving) {
    assertEquals(await t.engine.visitor(Q, id), null, `${id} stays gone`);
    left.add(id);
  }
  const rec = (await t.kv.get<DrawRecord>(keys.draw(Q))).value!;
  const pub = await publicDraw(t.engine.ctx, Q, rec);
  assertEquals(pub.count, 300 - 20, "they were in the list");
  const view = await t.engine.ctx.view(Q);
  let place = 0;
  const placed = await placedRecords(kv);
  for (const a of pub.order!) {
    const v = placed.find((e) => e.arrival === a);
    if (!v) continue;
    place++;
    assertEquals(t.engine.ctx.position(view, v.seq), place, `arrival ${a}`);
  }
  assertEquals(place, 300 - 20 - leaving.length);
  assertEquals((await t.engine.metrics(Q)).waiting, place);
  kv.close();
});

Deno.test("participants who joined without a round mark (an older version) are placed like the others", async () => {
  const kv = await Deno.openKv(":memory:");
  const { opensAt, left } = await fillWindow(kv, 120);
  let stripped = 0;
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    if (e.value.seq % 3 !== 0) continue;
    const { round: _, ...old } = e.value;
    await kv.set(e.key, old);
    stripped++;
  }
  assert(stripped > 30);
  const t = await makeApp({}, { kv, clock: new FakeClock(opensAt + 10) });
  await t.engine.drawIfDue(Q);
  await checkPlaced(t, 120 - left.size, left);
  kv.close();
});

Deno.test("a leave that read no places before the draw wrote them cannot leave its line entry behind", async () => {
  const kv = await Deno.openKv(":memory:");
  const { opensAt, left } = await fillWindow(kv, 60);
  const clock = new FakeClock(opensAt + 10);
  // The leaving instance's store: its next commit waits at a gate (the store is real KV).
  let armed = false, release = () => {}, reached = () => {};
  const atGate = new Promise<void>((r) => reached = r);
  const gate = new Promise<void>((r) => release = r);
  const gated = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = async () => {
            if (armed) {
              armed = false;
              reached();
              await gate;
            }
            return await commit();
          };
          return op;
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const a = await makeApp({}, { kv, clock });
  const b = await makeApp({}, { kv: gated, clock });
  // The window is closed (the cutoff written) before the leave reads anything.
  await settleRoundNow(a.engine.ctx, Q);
  const id = (await Array.fromAsync(kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })))[7]
    .value.id;
  armed = true;
  const leaving = b.engine.leave(Q, { sub: id, queue: Q, iat: 0, seq: 0, nextCheckAt: 0 }, id);
  await atGate;
  // The leave read the record before any place existed; the whole draw runs meanwhile.
  await a.engine.drawIfDue(Q);
  release();
  await leaving;
  left.add(id);
  for await (const e of kv.list<string>({ prefix: keys.fifoPrefix(Q) })) {
    assert(e.value !== id, "no line entry left for the visitor who left");
  }
  const view = await a.engine.ctx.view(Q);
  assertEquals(view.head !== null, true);
  assertEquals((await a.engine.metrics(Q)).waiting, 60 - left.size);
  kv.close();
});
