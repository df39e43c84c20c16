import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { createApp } from "../app.ts";
import { FakeClock, seededRandom } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import type { Config } from "../lib/config.ts";

/**
 * A service without ticks, served by its `fetch` (fast paths) and by Hono (`app`), with a second
 * waiter `b` in line behind `a` (admitted at once) and `b`'s ticket cookie.
 */
async function lineOfTwo(config: Partial<Config>, seed: number) {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const { app, fetch, services } = await createApp({
    kv,
    clock,
    config: testConfig(config),
    fetch: globalThis.fetch,
    random: seededRandom(seed),
    autoTick: false,
  });
  const a = new Client(app), b = new Client(app);
  await a.join();
  await b.join();
  // Numbered into the line (what each tick does first): b's status is exact from memory now.
  await services.engine.sequence("default");
  // Its next status carries the ticket with its arrival number (then answered from memory).
  await b.status();
  return { kv, clock, app, fetch, cookie: `tg_ticket=${b.cookies.get("tg_ticket")}` };
}

Deno.test("the server's fetch answers /status on its fast path exactly like the Hono route", async () => {
  const { kv, clock, app, fetch, cookie } = await lineOfTwo({ ADMIT_PER_SECOND: 1 }, 9);
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

Deno.test("a repeat poll whose slot is not due is answered from memory, the same as the awaited path", async () => {
  // Check-ins every 10 s: the slot stays not due while the clock moves a second.
  const { kv, clock, app, fetch, cookie } = await lineOfTwo({
    ADMIT_PER_SECOND: 1,
    QUEUES: ["default", "other"],
    WAITING_ROOM_POLL_INTERVAL_MS: 10_000,
  }, 11);
  const poll = (query = "queue=default") =>
    fetch(new Request(`http://x/status?${query}`, { headers: { cookie } }));
  // The first poll verifies the ticket (awaited); the next one is answered at once.
  const first = poll();
  assert(first instanceof Promise, "an unknown ticket is verified first");
  const firstBody = await (await first).json();
  const again = poll();
  assert(!(again instanceof Promise), "a known ticket, a fresh view: no promise");
  const res = again as Response;
  assertEquals(res.status, 200);
  assertEquals(await res.json(), firstBody);
  const viaHono = await app.request("/status?queue=default", { headers: { cookie } });
  for (const h of ["content-type", "x-content-type-options", "cache-control", "x-frame-options"]) {
    assertEquals(res.headers.get(h), viaHono.headers.get(h), h);
  }
  assert(/^[0-9a-f-]{36}$/.test(res.headers.get("x-request-id") ?? ""), "the request id is set");
  // Everything else takes the awaited path and keeps its answers.
  const foreign = poll("queue=other");
  assert(foreign instanceof Promise, "another queue's ticket");
  assertEquals((await (await foreign).json()).error.code, "unauthorized");
  const mismatch = poll("queue=default&visitorId=someone-else-123");
  assert(mismatch instanceof Promise, "a visitorId that is not the ticket's");
  assertEquals((await mismatch).status, 401);
  clock.advance(1_000);
  const stale = poll();
  assert(stale instanceof Promise, "a view older than a second is reloaded first");
  assertEquals((await stale).status, 200);
  assert(!(poll() instanceof Promise), "then it is fresh again");
  clock.advance(60_000);
  const due = await poll();
  assert(due.headers.get("set-cookie")?.startsWith("tg_ticket="), "a due check-in renews");
  kv.close();
});
