/**
 * "I need more time" (WCAG 2.2.1): a click-to-enter hold extends by its length, at most ten
 * times, in one commit; the tick does not free the extended slot at the old end; waiting, entered
 * and moved-away visitors are refused; the visitor then enters.
 */
import { keys } from "../lib/store/keys.ts";
import { assertEquals } from "./assert.ts";
import { Client, commitCounter, makeApp } from "./helpers.ts";

const Q = "default";

Deno.test("a hold extends by its length, at most ten times, and the slot stays until the new end", async () => {
  const t = await makeApp();
  try {
    await t.setBranding({ clickToEnter: true, admitHoldSeconds: 30 });
    await t.engine.setPaused(Q, true);
    const a = new Client(t.app);
    await a.join();
    const body = { queue: Q, visitorId: a.visitorId };
    const early = await a.req("POST", "/enter/extend", body);
    assertEquals([early.status, early.json.error.code], [409, "not_admitted"]);

    await t.engine.setPaused(Q, false);
    await t.engine.admit(Q, 1);
    const nca = (a.ticketClaims as unknown as { nca: number }).nca;
    t.clock.advance(Math.max(0, nca - t.clock.now()) + 1);
    const turn = await a.status();
    assertEquals([turn.json.status, turn.json.entered], ["admitted", false], turn.text);
    const end = turn.json.enterBy as number;

    // One commit per extension: count the commits the store sees.
    const commits = commitCounter(t.kv);
    const first = await a.req("POST", "/enter/extend", body);
    commits.stop();
    assertEquals(commits.count, 1, "one write");
    assertEquals([first.status, first.json.enterBy, first.json.holdExtensionsLeft], [
      200,
      end + 30_000,
      9,
    ]);
    for (let i = 0; i < 9; i++) {
      assertEquals((await a.req("POST", "/enter/extend", body)).status, 200);
    }
    const over = await a.req("POST", "/enter/extend", body);
    assertEquals([over.status, over.json.error.code], [409, "conflict"]);
    // Past the old end the tick frees nothing: the slot is held until the new one.
    t.clock.advance(end - t.clock.now() + 60_000);
    await t.engine.tick(Q);
    const rec = (await t.kv.get(keys.visitor(Q, a.visitorId))).value as { until: number };
    assertEquals(rec.until, end + 300_000);
    const entered = await a.req("POST", "/enter", body);
    assertEquals([entered.status, typeof entered.json.accessToken], [200, "string"], entered.text);
    assertEquals((await a.req("POST", "/enter/extend", body)).status, 409);
  } finally {
    t.close();
  }
});

Deno.test("no hold to extend without click-to-enter, and a moved-away browser cannot extend", async () => {
  const t = await makeApp();
  try {
    await t.engine.setPaused(Q, true);
    const a = new Client(t.app), b = new Client(t.app);
    await a.join();
    const plain = await a.req("POST", "/enter/extend", { queue: Q, visitorId: a.visitorId });
    assertEquals([plain.status, plain.json.error.code], [409, "conflict"]);
    await t.setBranding({ clickToEnter: true });
    const code = (await a.req("POST", "/resume/code", { queue: Q })).json.code;
    await b.req("POST", "/resume", { queue: Q, code });
    const moved = await a.req("POST", "/enter/extend", { queue: Q, visitorId: a.visitorId });
    assertEquals([moved.status, moved.json.error.code], [409, "place_moved"]);
  } finally {
    t.close();
  }
});
