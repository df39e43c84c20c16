/**
 * `STORE_FAILURE`: with the store unreachable (a real in-memory KV behind a switch that makes
 * every call throw, or hang), `open` lets visitors without a token through the origin proxy and
 * `/verify` for at most `STORE_FAILURE_OPEN_SECONDS`, counted in the metrics; `closed` sends them
 * to the waiting room, which answers 503, as before. When the store answers again the room goes
 * on by itself, every waiter still in its place.
 */
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, type TestApp } from "./helpers.ts";
import { startOrigin, tokenFor } from "./origin_helpers.ts";
import { failingKv } from "./fakes/failing_kv.ts";
import { instanceMetrics } from "../lib/metrics/instance.ts";
import type { Config } from "../lib/config.ts";

async function setUp(config: Partial<Config>) {
  const origin = startOrigin();
  const store = failingKv(await Deno.openKv(":memory:"));
  const t = await makeApp({ ORIGIN_URL: origin.url, ...config }, { kv: store.kv });
  // Faster probes: a hanging store is declared down after 50 ms.
  (t.services.storeFailure as { timeoutMs: number }).timeoutMs = 50;
  await t.engine.setPaused("default", true);
  const waiters: Client[] = [];
  for (let i = 0; i < 3; i++) {
    const c = new Client(t.app);
    assertEquals((await c.join()).status, 202);
    waiters.push(c);
  }
  const stop = async () => {
    store.recover();
    t.close();
    await origin.close();
  };
  return { t, store, origin, waiters, stop };
}

const page = (t: TestApp, headers: Record<string, string> = {}) =>
  t.app.request("/shop/item?id=7", { headers: { accept: "text/html", ...headers } });
const verify = (t: TestApp, headers: Record<string, string> = {}) =>
  t.app.request("/verify/auth-request", { headers: { "x-original-uri": "/shop", ...headers } });

/** Every waiter still waits, at positions 1, 2, 3 in join order. */
async function assertLineKept(waiters: Client[]) {
  for (const [i, w] of waiters.entries()) {
    const st = await w.status();
    assertEquals(st.status, 200, st.text);
    assertEquals([st.json.status, st.json.position], ["waiting", i + 1]);
  }
}

for (const how of ["throw", "hang"] as const) {
  Deno.test(`STORE_FAILURE=open, store that ${how}s: visitors pass for the bound, then the room recovers`, async () => {
    const { t, store, waiters, stop } = await setUp({
      STORE_FAILURE: "open",
      STORE_FAILURE_OPEN_SECONDS: 60,
    });
    try {
      const token = await tokenFor(t, "default", 3600);
      assertEquals((await page(t)).status, 302, "store up: to the waiting room");
      const opened = instanceMetrics.storeFailOpen.series.get(["proxy"])?.n ?? 0;
      const verified = instanceMetrics.storeFailOpen.series.get(["verify"])?.n ?? 0;

      store.fail(how);
      t.clock.advance(1500); // every cache is stale: each read now meets the store
      const through = await page(t);
      assertEquals(through.status, 200, "failed open: the origin answered");
      assertEquals((await through.json()).path, "/shop/item?id=7");
      const check = await verify(t);
      assertEquals(check.status, 204);
      assertEquals(check.headers.get("x-tollgate-pass"), "store_unreachable");
      // A check naming its queue does not wait on the store for the queue list either.
      const named = await t.app.request("/verify/auth-request?queue=default", {
        headers: { "x-original-uri": "/shop" },
      });
      assertEquals([named.status, named.headers.get("x-tollgate-pass")], [
        204,
        "store_unreachable",
      ]);
      assertEquals((await page(t, { authorization: `Bearer ${token}` })).status, 200);
      if (how === "throw") {
        // A visitor sent to the waiting room just before is sent back to its page. (A store that
        // hangs keeps the waiting room waiting, as before: nothing there fails to say so.)
        const back = await t.app.request("/wait?return=%2Fshop%2Fitem%3Fid%3D7");
        assertEquals([back.status, back.headers.get("location")], [303, "/shop/item?id=7"]);
      }
      assertEquals(instanceMetrics.storeFailOpen.series.get(["proxy"])?.n, opened + 1);
      assertEquals(instanceMetrics.storeFailOpen.series.get(["verify"])?.n, verified + 2);
      assert(t.services.storeFailure.downSince !== null);

      // Past the bound the room closes: back to the waiting room (which answers 503 meanwhile).
      t.clock.advance(61_000);
      assertEquals((await page(t)).status, 302);
      assertEquals((await verify(t)).status, 401);
      assertEquals(
        (await page(t, { authorization: `Bearer ${token}` })).status,
        200,
        "tokens pass",
      );

      store.recover();
      t.clock.advance(1500);
      assertEquals((await page(t)).status, 302, "store back: to the waiting room again");
      assertEquals(t.services.storeFailure.downSince, null);
      await assertLineKept(waiters);
      const late = new Client(t.app);
      assertEquals((await late.join()).status, 202);
      assertEquals((await late.status()).json.position, 4, "new joins go behind them");
    } finally {
      await stop();
    }
  });
}

Deno.test("STORE_FAILURE=closed (the default): nobody passes without a token, the line survives", async () => {
  const { t, store, waiters, stop } = await setUp({});
  try {
    assertEquals(t.config.STORE_FAILURE, "closed");
    const token = await tokenFor(t, "default", 3600);
    assertEquals((await page(t)).status, 302, "store up: to the waiting room");
    const opened = instanceMetrics.storeFailOpen.series.get(["proxy"])?.n ?? 0;
    store.fail("throw");
    t.clock.advance(1500);
    const res = await page(t);
    assertEquals(res.status, 302);
    assert(res.headers.get("location")!.startsWith("/wait?"));
    const wait = await t.app.request(res.headers.get("location")!);
    assertEquals(
      wait.status,
      503,
      "the waiting room cannot answer without its store (no way back)",
    );
    await wait.body?.cancel();
    assertEquals((await verify(t)).status, 401);
    assertEquals((await page(t, { authorization: `Bearer ${token}` })).status, 200, "tokens pass");
    const joined = await new Client(t.app).join();
    assertEquals(joined.status >= 500, true, "a join fails while the store is down");
    assertEquals(instanceMetrics.storeFailOpen.series.get(["proxy"])?.n ?? 0, opened);

    store.recover();
    t.clock.advance(1500);
    await assertLineKept(waiters);
  } finally {
    await stop();
  }
});
