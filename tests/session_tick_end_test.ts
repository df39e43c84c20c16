/**
 * How the tick counts the sessions it ends (idle, at the cap, at the token's expiry), through
 * `noteSessionEnd` (lib/session/stats.ts) called from the tick's expiry, beside `releaseSlot`.
 * The tick belongs to the engine rewrite: this test is switched on when the call is wired in
 * (lib/queue/admit.ts, `expireInto`); until then `noteSessionEnd` is tested on its own in
 * tests/session_settings_test.ts.
 */
import { readSessionStats } from "../lib/session/stats.ts";
import { assertEquals } from "./assert.ts";
import { admittedVisitor, countedApp, setSessions, slotsHeld, verify } from "./session_helpers.ts";

Deno.test({
  name: "tick: idle, capped and expired sessions are each counted once when their slot is freed", // until the tick calls noteSessionEnd
  async fn() {
    const { t } = await countedApp({ CAPACITY: 10 });
    await setSessions(t, { sessionIdleSeconds: 60, sessionMaxSeconds: 300 });
    const idle = await admittedVisitor(t);
    const capped = await admittedVisitor(t);
    t.clock.advance(1000);
    assertEquals((await verify(t, idle.token)).status, 204);
    for (let s = 0; s < 31; s++) {
      t.clock.advance(10_000);
      assertEquals((await verify(t, capped.token)).status, s < 29 ? 204 : 401, `at ${s}`);
      await t.engine.tick("default");
    }
    await t.engine.tick("default");
    assertEquals(await slotsHeld(t), 0);
    const c = await readSessionStats(t.kv, "default");
    assertEquals([c.idle, c.cap, c.released, c.lengthCount], [1, 1, 0, 2]);
    t.close();
  },
});
