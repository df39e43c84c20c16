/**
 * Sliding sessions through `/verify`: a flood of requests costs at most one store write per
 * visitor per renewal interval (counted over the whole service), an active visitor is never cut
 * off and gets a re-issued token once less than half its life is left, an idle one loses its slot
 * at the next tick and its token is refused here and on a second instance. Fixed queues write
 * nothing at all.
 */
import { readSessionStats } from "../lib/session/stats.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";
import {
  accessCookie,
  admittedVisitor,
  countedApp,
  record,
  setSessions,
  slotsHeld,
  verify,
} from "./session_helpers.ts";

/** `n` concurrent `/verify` calls with `token`; all must pass. Returns the answers. */
async function flood(t: Parameters<typeof verify>[0], token: string, n: number) {
  const all = await Promise.all(Array.from({ length: n }, () => verify(t, token)));
  for (const r of all) assertEquals(r.status, 204);
  return all;
}

Deno.test("sliding /verify: a flood writes once per renewal interval, never more", async () => {
  const { t, writes } = await countedApp();
  await setSessions(t, { sessionIdleSeconds: 300 }); // renewal interval 60 s
  const v = await admittedVisitor(t);
  t.clock.advance(1000);
  const before = writes.n;
  // The first request after entry shrinks the slot's time from the token's 900 s to the window.
  await flood(t, v.token, 200);
  assertEquals(writes.n - before, 1, "one write for 200 requests");
  const rec = await record(t, v.id);
  assertEquals(rec!.until, t.clock.now() + 360_000, "idle time plus one interval");
  // Ten intervals, a flood every 10 s: one write per interval.
  for (let i = 0; i < 60; i++) {
    t.clock.advance(10_000);
    await flood(t, v.token, 20);
  }
  assertEquals(writes.n - before, 11, "the first write, then one per 60 s interval");
  assertEquals((await readSessionStats(t.kv, "default")).renewed, 11);
  t.close();
});

Deno.test("fixed /verify: no store write at all, whatever the flood", async () => {
  const { t, writes } = await countedApp();
  const v = await admittedVisitor(t);
  const before = writes.n;
  for (let i = 0; i < 10; i++) {
    t.clock.advance(30_000);
    await flood(t, v.token, 50);
  }
  assertEquals(writes.n - before, 0);
  t.close();
});

Deno.test("sliding: an active visitor is never cut off; its token is re-issued past half-life", async () => {
  const { t } = await countedApp();
  await setSessions(t, { sessionIdleSeconds: 120 }); // interval 24 s
  const v = await admittedVisitor(t);
  let token = v.token;
  const first = token;
  let reissued = 0;
  // 40 minutes (well past the 900 s token), a request every 50 s, a tick every step.
  for (let s = 0; s < 48; s++) {
    t.clock.advance(50_000);
    await t.engine.tick("default");
    const res = await verify(t, token);
    assertEquals(res.status, 204, `request at ${(s + 1) * 50} s`);
    const fresh = accessCookie(res);
    if (fresh) {
      const claims = await t.services.signer.verifyAccessToken(fresh, t.clock.now(), "default");
      assert(claims && claims.exp - claims.iat === 900, "a full-length token");
      const old = await t.services.signer.verifyAccessToken(token, t.clock.now(), "default");
      assert(old && (old.exp * 1000 - t.clock.now()) < 450_000, "only below half its life");
      token = fresh;
      reissued++;
    }
    assertEquals(await slotsHeld(t), 1, "the slot is held while the visitor is active");
  }
  assert(reissued >= 4, `re-issued ${reissued} times over 40 minutes`);
  // The status answer signs the token the record holds: the newest one, not the first.
  assertEquals(
    (await record(t, v.id))!.enteredAt,
    (await t.services.signer.verifyAccessToken(
      token,
      t.clock.now(),
    ))!.iat * 1000,
  );
  assert(first !== token);
  t.close();
});

Deno.test("sliding: an idle session frees its slot at the next tick; its token is refused everywhere", async () => {
  const { t, base } = await countedApp();
  await setSessions(t, { sessionIdleSeconds: 60 }); // interval 12 s
  const v = await admittedVisitor(t);
  t.clock.advance(2000);
  assertEquals((await verify(t, v.token)).status, 204);
  const other = await makeApp({}, { kv: base, clock: t.clock });
  assertEquals((await verify(other, v.token)).status, 204, "the second instance knows it too");
  // Idle: 60 s plus one interval after the last request (never sooner).
  t.clock.advance(71_000);
  await t.engine.tick("default");
  assertEquals(await slotsHeld(t), 1, "not before idle plus one interval");
  t.clock.advance(2000);
  await t.engine.tick("default");
  assertEquals(await slotsHeld(t), 0, "freed by the tick");
  assertEquals(await record(t, v.id), null);
  // The token itself is still signed and unexpired (900 s): the session's mark refuses it.
  assertEquals((await verify(t, v.token)).status, 401);
  assertEquals((await verify(other, v.token)).status, 401, "refused on the second instance");
  // A second tick frees nothing more: the slot was freed once.
  await t.engine.tick("default");
  const m = await t.engine.metrics("default");
  assertEquals([m.entered, m.holding], [0, 0]);
  t.close(); // the second instance shares this store
});

Deno.test("sliding: the hard cap ends an active session; a token without a slot still passes", async () => {
  const { t } = await countedApp();
  await setSessions(t, { sessionIdleSeconds: 300, sessionMaxSeconds: 600 });
  const v = await admittedVisitor(t);
  for (let s = 0; s < 11; s++) {
    t.clock.advance(50_000);
    await t.engine.tick("default");
    assertEquals((await verify(t, v.token)).status, 204, `at ${(s + 1) * 50} s`);
  }
  t.clock.advance(51_000); // 601 s after admission
  await t.engine.tick("default");
  assertEquals((await verify(t, v.token)).status, 401, "capped");
  assertEquals(await slotsHeld(t), 0);
  // An admin pass (no visitor record, no slot) is not a session that ended.
  const pass = await t.services.signer.signAccessToken("admin-1", "default", t.clock.now(), 900);
  assertEquals((await verify(t, pass)).status, 204);
  t.close();
});

Deno.test("sliding, two instances: floods on both still write once per renewal interval", async () => {
  const { t, base } = await countedApp();
  await setSessions(t, { sessionIdleSeconds: 300 });
  const other = await makeApp({}, { kv: base, clock: t.clock });
  const v = await admittedVisitor(t);
  for (let i = 0; i < 60; i++) {
    t.clock.advance(10_000);
    await Promise.all([flood(t, v.token, 10), flood(other, v.token, 10)]);
  }
  // The first request's write (at 10 s), then one per 60 s interval up to 600 s: the instance
  // that comes second reads the record renewed and writes nothing.
  assertEquals((await readSessionStats(t.kv, "default")).renewed, 10);
  t.close();
});
