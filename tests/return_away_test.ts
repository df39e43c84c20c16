/**
 * A visitor away when its turn came keeps its place (issue 32). The room learns a waiter is silent
 * only two periods and 30 s after a missed check-in; a turn that comes before then admits it, and
 * nobody tells it. Once the admission's hold ends unconfirmed, the slot goes to the next visitor
 * and the place waits at the front, apart (the line of returners, lib/priority/line.ts), for the
 * rest of the grace: back within it, the visitor goes in at the next tick before anyone newer;
 * after it, it is dropped and counted abandoned. With click-to-enter an unconfirmed hold ends the
 * turn as before (the visitor may have seen it and not come).
 */
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";
import { RETURN_SLOT, slotOf } from "../lib/priority/line.ts";
import type { TicketClaims } from "../lib/tokens.ts";

const Q = "default";
type App = Awaited<ReturnType<typeof makeApp>>;

/** The others in line: they check in when due, as their pages would. */
const others = new Map<App, Map<string, TicketClaims>>();

/** A paused queue where `phone` joins first (its last check-in now), then `n` others. */
async function lineWithPhone(t: App, n: number): Promise<TicketClaims> {
  await t.engine.updateSettings(Q, (s) => void (s.returnGraceSeconds = 300));
  await t.engine.setPaused(Q, true);
  const a = await t.engine.join(Q, null, "phone-aaaa");
  const mine = new Map<string, TicketClaims>();
  others.set(t, mine);
  for (let i = 0; i < n; i++) {
    const o = await t.engine.join(Q, null, `other-${i}-aaaa`);
    mine.set(o.view.visitorId, (await t.services.signer.verifyTicket(o.ticket))!);
  }
  t.clock.advance(1000);
  await t.engine.tick(Q);
  const claims = (await t.services.signer.verifyTicket(a.ticket))!;
  const st = await t.engine.status(Q, claims); // its last check-in: then the phone is locked
  return (await t.services.signer.verifyTicket(st.ticket ?? a.ticket))!;
}

/** Ticks `seconds` times, a second apart; the others check in when due (and enter). */
async function run(t: App, seconds: number) {
  for (let i = 0; i < seconds; i++) {
    t.clock.advance(1000);
    await t.engine.tick(Q);
    for (const [id, ticket] of others.get(t) ?? []) {
      if (ticket.nextCheckAt > t.clock.now()) continue;
      const out = await t.engine.status(Q, ticket).catch(() => null);
      if (!out || out.view.status === "admitted") others.get(t)!.delete(id);
      else if (out.ticket) {
        others.get(t)!.set(id, (await t.services.signer.verifyTicket(out.ticket))!);
      }
    }
  }
}

Deno.test("away when its turn came: the slot goes on, the place waits at the front, back in 2 min it goes in first", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100 });
  try {
    const ticket = await lineWithPhone(t, 5);
    await t.engine.setPaused(Q, false);
    await run(t, 2);
    assertEquals((await t.engine.visitor(Q, "phone-aaaa"))?.state, "admitted", "its turn came");
    await run(t, 118); // its hold ends unconfirmed while it is away
    const back = (await t.engine.visitor(Q, "phone-aaaa"))!;
    assertEquals(back.state, "waiting", "its place waits");
    assertEquals(slotOf(back.seq), RETURN_SLOT, "at the front, apart");
    const m = await t.engine.metrics(Q);
    assertEquals([m.silent, m.abandoned], [1, 0], "silent, not abandoned");
    assertEquals(m.holding + m.entered, 5, "its slot went to the others");
    // Back after two minutes: told it waits at the front, and in at the next tick.
    t.clock.advance(1000);
    const again = await t.engine.status(Q, ticket);
    assertEquals([again.view.status, again.view.position], ["waiting", 1]);
    await t.engine.join(Q, null, "newcomer-aaaa"); // someone newer, who must not go first
    t.clock.advance(1000);
    await t.engine.tick(Q);
    t.clock.advance(1000);
    await t.engine.tick(Q);
    const mine = (await t.services.signer.verifyTicket(again.ticket!))!;
    const inside = await t.engine.status(Q, mine);
    assertEquals(inside.view.status, "admitted", "in at the next tick");
    t.clock.advance(5000); // the silent and returned figures are read at most every 5 s
    const after = await t.engine.metrics(Q);
    assertEquals([after.returned, after.abandoned], [1, 0]);
    // The phone, the five others and the newcomer: the unused admission is not counted twice.
    assertEquals(after.admittedTotal, 7);
    const phone = (await t.engine.visitor(Q, "phone-aaaa"))!;
    const newer = (await t.engine.visitor(Q, "newcomer-aaaa"))!;
    assert(
      newer.state === "waiting" || newer.admittedAt! >= phone.admittedAt!,
      `nobody newer went in before it: ${JSON.stringify([phone, newer])}`,
    );
  } finally {
    t.close();
  }
});

Deno.test("away past its grace: the kept place ends and is counted abandoned", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100 });
  try {
    const ticket = await lineWithPhone(t, 2);
    await t.engine.setPaused(Q, false);
    await run(t, 400);
    assertEquals(await t.engine.visitor(Q, "phone-aaaa"), null, "gone after its grace");
    const m = await t.engine.metrics(Q);
    assertEquals([m.abandoned, m.silent, m.waiting], [1, 0, 0]);
    let code = "";
    try {
      await t.engine.status(Q, ticket);
    } catch (e) {
      code = (e as { code?: string }).code ?? "";
    }
    assertEquals(code, "not_in_queue");
  } finally {
    t.close();
  }
});

Deno.test("with click-to-enter an unconfirmed hold still ends the turn", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 100 });
  try {
    await t.setBranding({ clickToEnter: true, admitHoldSeconds: 60 });
    await lineWithPhone(t, 2);
    await t.engine.setPaused(Q, false);
    await run(t, 2);
    assertEquals((await t.engine.visitor(Q, "phone-aaaa"))?.state, "admitted");
    await run(t, 90);
    assertEquals(await t.engine.visitor(Q, "phone-aaaa"), null, "its turn ended unconfirmed");
  } finally {
    t.close();
  }
});
