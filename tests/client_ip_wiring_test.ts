import { createApp } from "../app.ts";
import { FakeClock, seededRandom } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import { TEST_ORIGIN } from "./admin_helpers.ts";
import { assertEquals } from "./assert.ts";

// The socket address reaches the routes through `createApp().fetch(req, info)` (what Deno.serve
// calls): without it every caller would share one rate-limit bucket.
Deno.test("client IP: the served fetch passes the socket address to the routes", async () => {
  const kv = await Deno.openKv(":memory:");
  const { fetch } = await createApp({
    kv,
    clock: new FakeClock(),
    config: testConfig(),
    fetch: globalThis.fetch,
    random: seededRandom(1),
    autoTick: false,
  });
  let n = 0;
  // A new name each time: the address limit, not one account's step-up, is what trips.
  const login = (ip: string) =>
    Promise.resolve(fetch(
      new Request("http://localhost/api/admin/login", {
        method: "POST",
        headers: { "content-type": "application/json", origin: TEST_ORIGIN },
        body: JSON.stringify({ username: `nobody${n++}`, password: "wrong password!" }),
      }),
      { remoteAddr: { transport: "tcp", hostname: ip, port: 40000 } } as Deno.ServeHandlerInfo,
    )).then(async (r) => (await r.body?.cancel(), r.status));
  const first: number[] = [];
  // The per-address sign-in limit: 20 failures, then 429.
  for (let i = 0; i < 21; i++) first.push(await login("10.0.0.1"));
  assertEquals(first, [...Array(20).fill(401), 429]);
  assertEquals(await login("10.0.0.2"), 401, "another address has its own bucket");
  kv.close();
});
