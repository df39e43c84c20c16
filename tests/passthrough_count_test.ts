/**
 * A passthrough room counts each visitor once while its slot is held. The sweep found every
 * reload counted again: one browser opening `/wait` five times was five arrivals and five held
 * slots in `room.passthroughSlots`, the figure a Safety Net adds to its holding, so a single
 * visitor could set it off. A join carrying the ticket of a passthrough admission still within
 * its token's lifetime is admitted again but not counted; after that, it counts again.
 */
import { assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { passedSlots } from "../lib/room/passthrough.ts";
import { readTraffic } from "../lib/traffic.ts";

Deno.test("a visitor joining a passthrough room again is one slot, not one a reload", async () => {
  const t = await makeApp();
  try {
    await t.services.rooms.save("default", { mode: "passthrough" });
    const ttl = t.config.ACCESS_TOKEN_TTL_SECONDS;
    const slots = async () => {
      await t.services.access.hits.idle();
      return await passedSlots(t.kv, "default", t.clock.now(), ttl);
    };
    const one = new Client(t.app);
    for (let i = 0; i < 5; i++) {
      const res = await one.join();
      assertEquals([res.status, res.json.status], [200, "admitted"], "admitted every time");
    }
    for (let i = 0; i < 3; i++) assertEquals((await one.req("GET", "/wait")).status, 303);
    assertEquals(await slots(), 1, "one browser, one slot");
    assertEquals((await new Client(t.app).join()).status, 200);
    assertEquals(await slots(), 2, "another browser is another slot");
    const rows = await readTraffic(t.kv, "default", t.clock.now(), 60_000);
    assertEquals(rows.reduce((n, r) => n + r.inflow, 0), 2, "two arrivals in the traffic");

    // Once its token has run out, the visitor's next join is an admission again.
    t.clock.advance(ttl * 1000 + 16_000); // past its token and the 15 s bucket it was counted in
    assertEquals((await one.join()).status, 200);
    assertEquals(await slots(), 1, "the old slots expired; the new admission holds one");
  } finally {
    t.close();
  }
});
