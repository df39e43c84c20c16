/**
 * The waiting-row cap holds against joins that arrive together on one instance. The sweep sent
 * 30 joins at once to a paused queue capped at 5 and 20 took a place: each join checked the count
 * before any of them had added its row (the check-in ledger's read came between). The row is now
 * taken in the same step as a second check, so at most the cap waits.
 */
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

Deno.test("30 joins at once to a queue capped at 5 take 5 places; the rest are queue_full", async () => {
  const t = await makeApp({ JOINS_PER_CLIENT_PER_MINUTE: 0 });
  try {
    await t.engine.setPaused("default", true);
    await t.engine.setMaxWaiting("default", 5, t.config.MAX_WAITING_VISITORS);
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => new Client(t.app).join()),
    );
    const placed = answers.filter((a) => a.status === 202).length;
    const full = answers.filter((a) => a.status === 503 && a.json.error.code === "queue_full");
    assertEquals([placed, full.length], [5, 25], answers.map((a) => a.status).join(","));
    t.clock.advance(1000);
    await t.engine.tick("default");
    assertEquals((await t.engine.metrics("default")).waiting, 5, "five in the line");
    // A freed row is taken again.
    const again = await new Client(t.app).join();
    assert(again.status === 503, "still full");
  } finally {
    t.close();
  }
});
