/**
 * A visitor that leaves before the tick numbers its join is gone at once, though its record stays
 * (unnumbered) until the sequencer takes its leave note in: a status, heartbeat or confirmation
 * answers 404 `not_in_queue` (they answered "waiting" until the tick, then 404), and a join with
 * its old ticket joins again at the back under the same id (it answered 202, then the place
 * vanished at the tick).
 */
import { assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

Deno.test("a join that left before it was numbered is gone at once to every call of its ticket", async () => {
  const t = await makeApp();
  await t.engine.setPaused("default", true);
  const a = new Client(t.app);
  await new Client(t.app).join();
  const j = await a.join("default", "early-leaver-1");
  assertEquals([j.status, j.json.positionExact], [202, false]);
  const ticket = a.cookies.get("tg_ticket")!;
  const left = await a.req("POST", "/leave", { queue: "default", visitorId: "early-leaver-1" });
  assertEquals(left.status, 200);
  a.cookies.set("tg_ticket", ticket);
  const body = { queue: "default", visitorId: "early-leaver-1" };
  for (
    const r of [
      await a.status(),
      await a.req("POST", "/heartbeat", body),
      await a.req("POST", "/enter", body),
    ]
  ) assertEquals([r.status, r.json.error?.code], [404, "not_in_queue"], r.text);
  assertEquals(await t.engine.visitor("default", "early-leaver-1"), null);
  t.close();
});

Deno.test("a join that left before it was numbered joins again at the back with its old ticket", async () => {
  const t = await makeApp();
  await t.engine.setPaused("default", true);
  const a = new Client(t.app);
  const j = await a.join("default", "early-leaver-2");
  assertEquals(j.status, 202);
  const ticket = a.cookies.get("tg_ticket")!;
  await a.req("POST", "/leave", { queue: "default", visitorId: "early-leaver-2" });
  await new Client(t.app).join();
  a.cookies.set("tg_ticket", ticket);
  const again = await a.join();
  assertEquals([again.status, again.json.visitorId], [202, "early-leaver-2"], again.text);
  await t.engine.sequence("default");
  const s = await a.status();
  // Exact once numbered: `positionExact` is only sent, false, while a position is provisional.
  assertEquals([s.status, s.json.position, s.json.positionExact], [200, 2, undefined], s.text);
  t.close();
});

Deno.test("a client's id that left before it was numbered joins again without its ticket", async () => {
  const t = await makeApp();
  await t.engine.setPaused("default", true);
  await new Client(t.app).join();
  const a = new Client(t.app);
  assertEquals((await a.join("default", "early-leaver-3")).status, 202);
  await a.req("POST", "/leave", { queue: "default", visitorId: "early-leaver-3" });
  // Another browser (no ticket) asks for the same id in the same second: it was refused as
  // "already in queue" until the tick took the leave in.
  const b = new Client(t.app);
  const again = await b.join("default", "early-leaver-3");
  assertEquals([again.status, again.json.visitorId], [202, "early-leaver-3"], again.text);
  await t.engine.sequence("default");
  const s = await b.status();
  assertEquals([s.status, s.json.position], [200, 2], s.text);
  // A live place's id is still refused without its ticket.
  const c = await new Client(t.app).join("default", "early-leaver-3");
  assertEquals([c.status, c.json.error?.code], [401, "unauthorized"], c.text);
  t.close();
});
