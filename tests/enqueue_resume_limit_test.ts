/**
 * One place per person and the per-client limit together: resuming the place an enqueue key holds
 * (a second browser, no ticket) takes no new place, so it never counts against the limit.
 */
import { EnqueueTokens } from "../lib/guard/enqueue.ts";
import { writeJoinGuards } from "../lib/guard/settings.ts";
import { assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";

const ENQUEUE_SECRET = "enqueue-secret-enqueue-secret-0123456789";

function post(t: TestApp, body: unknown) {
  return t.fetch(
    new Request("http://tollgate.test/join", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { remoteAddr: { transport: "tcp", hostname: "203.0.113.9", port: 1 } } as Deno.ServeHandlerInfo,
  );
}

Deno.test("an enqueue key resumed from a second browser does not count against the per-client limit", async () => {
  const t = await makeApp({ ENQUEUE_SECRET, JOINS_PER_CLIENT_PER_MINUTE: 1 });
  try {
    await writeJoinGuards(t.kv, "default", { requireEnqueueToken: true });
    await t.engine.setRate("default", 0.01);
    await t.engine.join("default", null); // holds the line, so the keys below wait
    const tokens = new EnqueueTokens(ENQUEUE_SECRET);
    const exp = Math.floor(t.clock.now() / 1000) + 600;
    const dave = tokens.sign({ queue: "default", key: "dave", exp });
    const first = await post(t, { queue: "default", enqueueToken: dave });
    const placed = await first.json();
    assertEquals([first.status, placed.status], [202, "waiting"]);
    // The same key again, without the ticket (another browser), from the same address: the
    // allowance of 1 is spent, but this is the place the key already holds.
    for (let i = 0; i < 3; i++) {
      const again = await post(t, { queue: "default", enqueueToken: dave });
      const body = await again.json();
      assertEquals([again.status, body.visitorId], [202, placed.visitorId], JSON.stringify(body));
    }
    // A new key from that address is a new place: refused by the limit, no row written.
    const waiting = (await t.engine.metrics("default")).waiting;
    const erin = await post(t, {
      queue: "default",
      enqueueToken: tokens.sign({ queue: "default", key: "erin", exp }),
    });
    const refused = await erin.json();
    assertEquals([erin.status, refused.error.code], [429, "rate_limited"]);
    assertEquals(erin.headers.get("set-cookie"), null);
    t.engine.ctx.invalidate("default");
    assertEquals((await t.engine.metrics("default")).waiting, waiting, "no new row");
  } finally {
    await t.services.guards.stats.idle();
    t.close();
  }
});
