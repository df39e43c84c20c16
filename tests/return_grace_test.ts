/**
 * A place nobody loses by accident (issue 32, part 1): a waiter that stops checking in keeps its
 * place for the queue's `returnGraceSeconds`, is passed over by admissions meanwhile (no slot is
 * spent on someone who cannot learn of it), goes in first when it comes back after its turn, and
 * is dropped as abandoned only after the grace.
 */
import type { TicketClaims } from "../lib/tokens.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";
import { adminClient } from "./admin_helpers.ts";

type App = Awaited<ReturnType<typeof makeApp>>;
const Q = "default";

interface Waiter {
  id: string;
  ticket: TicketClaims;
  nextCheckAt: number;
}

async function joinOne(t: App, id: string): Promise<Waiter> {
  const o = await t.engine.join(Q, null, id);
  const ticket = await t.services.signer.verifyTicket(o.ticket);
  assert(ticket);
  assertEquals(o.view.status, "waiting");
  return { id, ticket, nextCheckAt: o.view.nextCheckAt! };
}

/** Checks in those whose slot is due; returns their views' positions by id. */
async function keepAlive(t: App, ws: Waiter[]) {
  for (const w of ws) {
    if (t.clock.now() < w.nextCheckAt) continue;
    const out = await t.engine.status(Q, w.ticket);
    if (out.view.status !== "waiting") continue;
    w.nextCheckAt = out.view.nextCheckAt!;
    if (out.ticket) w.ticket = (await t.services.signer.verifyTicket(out.ticket))!;
  }
}

const stateOf = async (t: App, id: string) => (await t.engine.visitor(Q, id))?.state ?? null;

/** A paused line a, b, c in which `a` goes silent past its deadline while b and c check in. */
async function silentHead(graceSeconds: number) {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100 });
  await t.engine.updateSettings(Q, (s) => void (s.returnGraceSeconds = graceSeconds));
  await t.engine.setPaused(Q, true);
  const a = await joinOne(t, "silent-a");
  const b = await joinOne(t, "alive-b");
  const c = await joinOne(t, "alive-c");
  const deadline = (await t.engine.visitor(Q, a.id))!.deadline;
  while (t.clock.now() <= deadline + 1000) {
    t.clock.advance(1000);
    await t.engine.tick(Q);
    await keepAlive(t, [b, c]);
  }
  return { t, a, b, c, deadline };
}

Deno.test("a silent waiter keeps its place and its count in the positions behind it, passed over by admissions", async () => {
  const { t, a, b, c } = await silentHead(120);
  assertEquals(await stateOf(t, a.id), "waiting", "kept past its deadline");
  let m = await t.engine.metrics(Q);
  assertEquals([m.waiting, m.silent, m.abandoned], [3, 1, 0]);
  assertEquals((await t.engine.status(Q, c.ticket)).view.position, 3, "a still counts ahead of c");
  await t.engine.setPaused(Q, false);
  for (let i = 0; i < 4; i++) {
    t.clock.advance(1000);
    await t.engine.tick(Q);
    await keepAlive(t, [b, c]);
  }
  assertEquals(await stateOf(t, a.id), "waiting", "not admitted while nobody can learn of it");
  assert((await stateOf(t, b.id)) !== "waiting", "b behind it went in");
  assert((await stateOf(t, c.id)) !== "waiting", "c behind it went in");
  m = await t.engine.metrics(Q);
  assertEquals([m.waiting, m.holding + m.entered, m.admittedTotal], [1, 2, 2]);
  t.close();
});

Deno.test("a silent waiter that comes back within its grace goes in at the next tick, before newer arrivals", async () => {
  const { t, a, b, c } = await silentHead(120);
  // A slow line now: one admission a second, and two newer arrivals behind.
  const d = await joinOne(t, "newer-d");
  await t.engine.setPaused(Q, false);
  t.clock.advance(1000);
  await t.engine.tick(Q);
  await keepAlive(t, [b, c, d]);
  assertEquals(await stateOf(t, a.id), "waiting");
  // a comes back: its check-in keeps its place and counts it as returned.
  const back = await t.engine.status(Q, a.ticket);
  assertEquals(back.view.status, "waiting");
  assertEquals((await t.engine.metrics(Q)).returned, 1);
  await t.engine.setCapacity(Q, 100);
  t.clock.advance(1000);
  await t.engine.tick(Q);
  assert((await stateOf(t, a.id)) !== "waiting", "a went in at the next tick");
  assertEquals(await stateOf(t, d.id), "waiting", "before the newer arrival");
  t.close();
});

Deno.test("a silent waiter is dropped and counted abandoned only once its grace has run out", async () => {
  const { t, a, b, c, deadline } = await silentHead(60);
  while (t.clock.now() <= deadline + 60_000 - 2000) {
    t.clock.advance(1000);
    await t.engine.tick(Q);
    await keepAlive(t, [b, c]);
  }
  assertEquals(await stateOf(t, a.id), "waiting", "still kept just before the grace ends");
  for (let i = 0; i < 4; i++) {
    t.clock.advance(1000);
    await t.engine.tick(Q);
    await keepAlive(t, [b, c]);
  }
  assertEquals(await stateOf(t, a.id), null, "dropped after the grace");
  const m = await t.engine.metrics(Q);
  assertEquals([m.waiting, m.abandoned, m.silent], [2, 1, 0]);
  assertEquals((await t.engine.status(Q, c.ticket)).view.position, 2, "the one behind moves up");
  t.close();
});

Deno.test("operator force-admit passes over silent waiters too", async () => {
  const { t, a, b } = await silentHead(120);
  await t.engine.setPaused(Q, false);
  await t.engine.setRate(Q, 0.1);
  assertEquals(await t.engine.admit(Q, 1), 1);
  assertEquals(await stateOf(t, a.id), "waiting");
  assert((await stateOf(t, b.id)) !== "waiting");
  t.close();
});

Deno.test("PUT /api/admin/return-grace sets the grace within 30 to 3600 s and refuses others unchanged", async () => {
  const t = await makeApp();
  const admin = (await adminClient(t)).client;
  for (const bad of [29, 3601, 1.5, "300", null]) {
    const r = await admin.req("PUT", "/api/admin/return-grace", { returnGraceSeconds: bad });
    assertEquals(r.status, 400, `${bad} refused`);
  }
  assertEquals((await t.engine.settings(Q)).returnGraceSeconds, 300, "default kept");
  const ok = await admin.req("PUT", "/api/admin/return-grace", { returnGraceSeconds: 900 });
  assertEquals(ok.status, 200);
  assertEquals(ok.json.returnGraceSeconds, 900);
  assertEquals((await t.engine.settings(Q)).returnGraceSeconds, 900);
  const read = await admin.req("GET", "/api/admin/return-grace?queue=default");
  assertEquals([read.json.returnGraceSeconds, read.json.silent], [900, 0]);
  t.close();
});
