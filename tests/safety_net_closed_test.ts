/**
 * A calm Safety Net lets visitors straight in only while the queue is open. The sweep found a
 * queue on the Safety Net that was paused, health-paused by an unhealthy origin, or not yet at
 * its scheduled opening letting every join in at once: its automatic passthrough overrode the
 * operator's stop signals, the health throttle included. It now queues like `normal` then; an
 * explicit `passthrough` stays the operator's override (nobody waits, pause notwithstanding).
 */
import { assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { Client, makeApp } from "./helpers.ts";

const CALM = {
  joinsPerMinuteHigh: 1000,
  joinsPerMinuteLow: 10,
  holdingHigh: null,
  holdingLow: null,
  calmMinutes: 5,
};

Deno.test("a calm Safety Net queues while the queue is paused, health-paused or not open yet", async () => {
  const t = await makeApp({ JOINS_PER_CLIENT_PER_MINUTE: 0 });
  try {
    const { client: admin } = await adminClient(t);
    const put = await admin.req("PUT", "/api/admin/room", { mode: "auto", safetyNet: CALM });
    assertEquals(put.json.effectiveMode, "passthrough", put.text);
    assertEquals((await new Client(t.app).join()).json.status, "admitted", "calm and open");

    const closers: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
      [
        "paused",
        () => t.engine.setPaused("default", true),
        () => t.engine.setPaused("default", false),
      ],
      [
        "health-paused",
        () => t.engine.setHealthPaused("default", true),
        () => t.engine.setHealthPaused("default", false),
      ],
      [
        "before its opening",
        () => t.engine.setOpensAt("default", t.clock.now() + 3_600_000),
        () => t.engine.setOpensAt("default", null),
      ],
    ];
    for (const [why, close, reopen] of closers) {
      await close();
      t.clock.advance(2000); // past the room's and the view's one-second caches
      const joined = await new Client(t.app).join();
      assertEquals([joined.status, joined.json.status], [202, "waiting"], `${why}: ${joined.text}`);
      const room = await admin.req("GET", "/api/admin/room");
      assertEquals(room.json.effectiveMode, "normal", `${why}: the operator sees it queue`);
      await reopen();
      // The line left meanwhile drains first (as after a surge); then newcomers pass again.
      t.clock.advance(2000);
      await t.engine.tick("default");
      const m = await t.engine.metrics("default");
      assertEquals(m.waiting, 0, `${why}: the waiter was admitted once open`);
    }
    // An explicit passthrough stays the operator's override.
    await t.engine.setPaused("default", true);
    await admin.req("PUT", "/api/admin/room", { mode: "passthrough" });
    t.clock.advance(2000);
    assertEquals((await new Client(t.app).join()).json.status, "admitted", "explicit passthrough");
  } finally {
    t.close();
  }
});
