import { assertEquals } from "./assert.ts";
import { Client, makeApp, operator } from "./helpers.ts";

Deno.test("a visitor waits, is admitted by the tick, and gets a token", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  const a = new Client(t.app), b = new Client(t.app), c = new Client(t.app);
  assertEquals((await a.join()).status, 200);
  const jb = await b.join();
  assertEquals(jb.status, 202);
  assertEquals(jb.json.position, 1);
  const jc = await c.join();
  assertEquals(jc.json.position, 2);
  assertEquals((await c.status()).json.position, 2);
  t.clock.advance(1000);
  await t.engine.tick("default");
  t.clock.advance(jb.json.nextCheckAt - t.clock.now());
  const sb = await b.status();
  assertEquals(sb.json.status, "admitted");
  assertEquals(typeof sb.json.accessToken, "string");
  assertEquals((await c.status()).json.position, 1);
  const m = await t.app.request("/metrics?queue=default", { headers: operator(t.config) });
  const mj = await m.json();
  assertEquals([mj.waiting, mj.entered, mj.holding], [1, 2, 0]);
  t.close();
});
