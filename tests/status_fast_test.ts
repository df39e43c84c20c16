import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { createApp } from "../app.ts";
import { FakeClock, seededRandom } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";

Deno.test("the server's fetch answers /status on its fast path exactly like the Hono route", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const { app, fetch } = await createApp({
    kv,
    clock,
    config: testConfig({ ADMIT_PER_SECOND: 1 }),
    fetch: globalThis.fetch,
    random: seededRandom(9),
    autoTick: false,
  });
  const a = new Client(app), b = new Client(app);
  await a.join();
  await b.join();
  const cookie = `tg_ticket=${b.cookies.get("tg_ticket")}`;
  const viaFetch = await fetch(
    new Request("http://x/status?queue=default", { headers: { cookie } }),
  );
  const viaHono = await app.request("/status?queue=default", { headers: { cookie } });
  assertEquals(viaFetch.status, 200);
  assertEquals(await viaFetch.json(), await viaHono.json());
  for (const h of ["content-type", "x-content-type-options", "cache-control", "x-frame-options"]) {
    assertEquals(viaFetch.headers.get(h), viaHono.headers.get(h), h);
  }
  // Errors fall through to Hono's envelope.
  const bad = await fetch(new Request("http://x/status?queue=Bad!", { headers: { cookie } }));
  assertEquals(bad.status, 400);
  assertEquals((await bad.json()).error.code, "bad_request");
  const none = await fetch(new Request("http://x/status?queue=default"));
  assertEquals(none.status, 401);
  // A due check-in sets a fresh ticket cookie with the visitor cookie attributes.
  clock.advance(60_000);
  const due = await fetch(
    new Request("https://x/status?queue=default", { headers: { cookie } }),
  );
  const sc = due.headers.get("set-cookie") ?? "";
  // Hono's setCookie order, so both paths send the same bytes.
  assert(/^tg_ticket=[^;]+; Max-Age=86400; Path=\/; HttpOnly; Secure; SameSite=Lax$/.test(sc), sc);
  kv.close();
});

Deno.test("a plain Client over app.request still sees the same status through the fast path", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  const a = new Client(t.app), b = new Client(t.app);
  await a.join();
  const w = await b.join();
  const s = await b.status();
  assertEquals([s.status, s.json.position, s.json.nextCheckAt], [200, 1, w.json.nextCheckAt]);
  t.close();
});
