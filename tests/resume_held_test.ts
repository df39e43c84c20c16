/**
 * `GET /resume/held` tells a page that shows a resume code when its place ended (left, dropped,
 * or its turn or session ran out), not only when it moved: before, it answered `held: true` for
 * a place that was gone, and the page kept showing a code that could no longer work.
 */
import { assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

const Q = "default";

Deno.test("held answers 404 not_in_queue once the place was left", async () => {
  const t = await makeApp();
  try {
    await t.engine.setPaused(Q, true);
    const a = new Client(t.app);
    await a.join();
    const held = await a.req("GET", `/resume/held?queue=${Q}`);
    assertEquals([held.status, held.json], [200, { queue: Q, held: true }]);
    // Another tab of this browser leaves: this page still has the ticket, its place is gone.
    const ticket = a.cookies.get("tg_ticket")!;
    assertEquals((await a.req("POST", "/leave", { queue: Q, visitorId: a.visitorId })).status, 200);
    a.cookies.set("tg_ticket", ticket);
    const gone = await a.req("GET", `/resume/held?queue=${Q}`);
    assertEquals([gone.status, gone.json.error.code], [404, "not_in_queue"]);
  } finally {
    t.close();
  }
});

Deno.test("held answers 404 not_in_queue once an admission's session ran out", async () => {
  const t = await makeApp();
  try {
    const a = new Client(t.app);
    const joined = await a.join(); // an open queue: in at once, for the token's lifetime
    assertEquals(joined.json.status, "admitted");
    assertEquals((await a.req("GET", `/resume/held?queue=${Q}`)).status, 200);
    t.clock.advance((t.config.ACCESS_TOKEN_TTL_SECONDS + 1) * 1000);
    const gone = await a.req("GET", `/resume/held?queue=${Q}`);
    assertEquals([gone.status, gone.json.error.code], [404, "not_in_queue"]);
  } finally {
    t.close();
  }
});
