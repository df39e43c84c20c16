/**
 * Check-ins around the opening draw, through the served `fetch`, on a fake clock: a pre-queue of
 * 4,500 participants (a check-in period of 6 s at 750 a second) follows its timeslots from the
 * window through the draw. Every participant, those drawn first included, is told its place at its
 * first check-in after the opening, within one period; check-ins that come while the draw runs
 * are held and answered with their place; the drawn front then checks in every 5 s; and no second
 * gets more than the 750-a-second budget, neither in requests nor in the check-in ledger.
 */
import { keys } from "../lib/store/keys.ts";
import { publicDraw } from "../lib/queue/draw_list.ts";
import type { DrawRecord } from "../lib/queue/prequeue.ts";
import { periodSeconds, STATUS_BUDGET_PER_SECOND } from "../lib/queue/timeslot.ts";
import type { Visitor, VisitorView } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";
const N = 4500;

interface Participant {
  id: string;
  ticket: string;
  dueAt: number;
  /** When it was first told a place (or its admission), unix ms. */
  toldAt?: number;
  /** When it was told of its admission, unix ms. */
  admittedAt?: number;
}

Deno.test("at the draw: every participant is told its place within one period of the opening, the front then every 5 s, within 750 a second", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100_000 });
  const period = periodSeconds(N);
  assertEquals(period, 6);
  const opensAt = t.clock.now() + 600_000;
  await t.engine.setOpensAt(Q, opensAt);
  await t.engine.setPrequeue(Q, 60);
  // The window: everyone joins 15 s before the opening.
  t.clock.ms = opensAt - 15_000;
  const ps: Participant[] = [];
  for (let i = 0; i < N; i += 500) {
    const outs = await Promise.all(Array.from({ length: 500 }, () => t.engine.join(Q, null)));
    for (const o of outs) {
      ps.push({ id: o.view.visitorId, ticket: o.ticket, dueAt: o.view.nextCheckAt! });
    }
  }
  const perSecond = new Map<number, number>();
  /** One check-in through the served fetch, as the page's timeslot loop makes it. */
  const checkIn = async (p: Participant) => {
    const sec = Math.floor(t.clock.now() / 1000);
    perSecond.set(sec, (perSecond.get(sec) ?? 0) + 1);
    const res = await t.fetch(
      new Request(`http://localhost/status?queue=${Q}`, {
        headers: { cookie: `tg_ticket=${p.ticket}` },
      }),
    );
    assertEquals(res.status, 200, await res.clone().text());
    const v: VisitorView = await res.json();
    const fresh = /tg_ticket=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
    if (fresh) p.ticket = fresh;
    if (v.status === "admitted" || v.position !== undefined) p.toldAt ??= t.clock.now();
    if (v.status === "admitted") p.admittedAt = t.clock.now();
    else p.dueAt = v.nextCheckAt!;
    return v;
  };
  let draw: Promise<unknown> | null = null;
  let heldAnswers: VisitorView[] = [];
  for (let ms = opensAt - 14_900; ms <= opensAt + 20_100; ms += 1000) {
    t.clock.ms = ms;
    // The draw starts at the opening (a long-lived process sets a timer for it).
    if (ms >= opensAt && !draw) draw = t.engine.drawIfDue(Q);
    const due = ps.filter((p) => !p.admittedAt && p.dueAt <= ms);
    const answers = await Promise.all(due.map(checkIn));
    if (draw && heldAnswers.length === 0) heldAnswers = answers;
    await draw;
    await t.engine.tick(Q);
  }
  const rec = (await t.kv.get<DrawRecord>(keys.draw(Q))).value!;
  assertEquals(rec.state, "done");
  const order = (await publicDraw(t.engine.ctx, Q, rec)).order!;
  assertEquals(order.length, N);

  // The budget: requests and the ledger's check-ins, every second.
  const busiest = Math.max(...perSecond.values());
  assert(busiest <= STATUS_BUDGET_PER_SECOND, `busiest second: ${busiest} requests`);
  for await (const e of t.kv.list<Deno.KvU64>({ prefix: keys.checkinsPrefix(Q) })) {
    assert(Number(e.value.value) <= STATUS_BUDGET_PER_SECOND, `ledger second ${String(e.key[2])}`);
  }
  // Check-ins that came while the draw ran were held and answered with their place.
  assert(heldAnswers.length > 0);
  for (const v of heldAnswers) assertEquals(v.drawPending, undefined);
  // Everyone is told its place within one period of the opening (the budget allows no sooner
  // for all: nobody knows who is drawn first until the draw), the drawn first included.
  const byArrival = new Map<number, Participant>();
  for (const p of ps) {
    const v = (await t.engine.visitor(Q, p.id))!;
    byArrival.set(v.arrival!, p);
  }
  const delay = (p: Participant) => (p.toldAt! - opensAt) / 1000;
  const delays = ps.map(delay);
  assert(Math.max(...delays) <= period + 1, `last told ${Math.max(...delays)} s after`);
  const mean = delays.reduce((a, b) => a + b, 0) / N;
  assert(mean <= period / 2 + 1, `told ${mean.toFixed(1)} s after the opening on average`);
  const front = order.slice(0, 50).map((a) => byArrival.get(a)!);
  for (const p of front) assert(delay(p) <= period + 1, `drawn first, told after ${delay(p)} s`);
  // Once told its place, a participant checks in by its drawn place: those whose turn comes
  // after the first period learn of their admission within 5 s of it (10 a second from the
  // opening), as in any queue; those before, at their first check-in.
  let admitted = 0;
  order.forEach((a, i) => {
    const p = byArrival.get(a)!;
    if (!p.admittedAt) return;
    admitted++;
    const turn = Math.max(period + 1, Math.ceil((i + 1) / 10) + 6);
    assert(p.admittedAt - opensAt <= turn * 1000, `place ${i + 1} learned of it late`);
  });
  assert(admitted >= 150, `admitted ${admitted}`);
  t.close();
});

Deno.test("the first check-in after the draw, even early, takes its next slot by drawn place, not its old time", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100_000 });
  const opensAt = t.clock.now() + 600_000;
  await t.engine.setOpensAt(Q, opensAt);
  await t.engine.setPrequeue(Q, 60);
  t.clock.ms = opensAt - 60_000;
  const outs = await Promise.all(Array.from({ length: 20 }, () => t.engine.join(Q, null)));
  // Their next check-ins were set far past the opening (as in a long line, a period of minutes).
  for (const o of outs) {
    const e = await t.kv.get<Visitor>(keys.visitor(Q, o.view.visitorId));
    await t.kv.set(e.key, { ...e.value!, nextCheckAt: opensAt + 100_000 });
  }
  t.clock.ms = opensAt;
  await t.engine.drawIfDue(Q);
  t.clock.ms = opensAt + 1000;
  for (const o of outs) {
    const res = await t.fetch(
      new Request(`http://localhost/status?queue=${Q}`, {
        headers: { cookie: `tg_ticket=${o.ticket}` },
      }),
    );
    const v: VisitorView = await res.json();
    assert(v.position !== undefined && v.position <= 20);
    // All 20 are admitted within 2 s at 10 a second: each checks in 5 s from now, the front's cadence.
    assertEquals(v.nextCheckAt, opensAt + 6000, `position ${v.position}`);
    const rec = (await t.kv.get<Visitor>(keys.visitor(Q, o.view.visitorId))).value!;
    assertEquals([rec.round, rec.nextCheckAt], [undefined, opensAt + 6000], "stored as placed");
  }
  t.close();
});
