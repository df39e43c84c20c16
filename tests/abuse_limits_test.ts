/**
 * Fairness under abuse: the per-client limit on new places and the bounded writes of one visitor,
 * through the served handler.
 */
import { saveBypass } from "../lib/access/rules.ts";
import { keys } from "../lib/store/keys.ts";
import type { Visitor } from "../lib/queue/types.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { fromIp, joinRequest } from "./access_helpers.ts";
import { Client, makeApp, served } from "./helpers.ts";

const join = (t: Awaited<ReturnType<typeof makeApp>>, ip: string, queue = "default") =>
  t.fetch(joinRequest({ queue }), fromIp(ip));

Deno.test("client limit: one address gets its allowance, then 429 with Retry-After and nothing changed", async () => {
  const t = await makeApp({ JOINS_PER_CLIENT_PER_MINUTE: 5 });
  await t.engine.setPaused("default", true);
  for (let i = 0; i < 5; i++) assertEquals((await join(t, "198.51.100.7")).status, 202);
  const before = await t.engine.metrics("default");
  const refused = await join(t, "198.51.100.7");
  assertEquals(refused.status, 429);
  assertEquals(refused.headers.get("Retry-After"), "12", "one place back every 12 s at 5 a minute");
  assertEquals(refused.headers.getSetCookie(), [], "no cookie");
  const body = await refused.json();
  assertEquals([body.error.code, body.error.details.reason], ["rate_limited", "client_limit"]);
  assertEquals((await t.engine.metrics("default")).waiting, before.waiting, "no row, no count");
  // Another address is not affected; the same one gets a place again once a token refilled.
  assertEquals((await join(t, "198.51.100.8")).status, 202);
  t.clock.advance(12_000);
  assertEquals((await join(t, "198.51.100.7")).status, 202);
  assertEquals((await join(t, "198.51.100.7")).status, 429);
  t.close();
});

Deno.test("client limit: 200 visitors behind one address joining evenly over 5 minutes all get places (default)", async () => {
  const t = await makeApp({ JOINS_PER_CLIENT_PER_MINUTE: 60 });
  await t.engine.setPaused("default", true);
  let placed = 0;
  for (let i = 0; i < 200; i++) {
    if ((await join(t, "100.64.0.1")).status === 202) placed++;
    t.clock.advance(1500);
  }
  assertEquals(placed, 200);
  t.close();
});

Deno.test("client limit: resuming with a ticket never counts; IPv6 counts by /64; allowlisted addresses are exempt", async () => {
  const t = await makeApp({ JOINS_PER_CLIENT_PER_MINUTE: 2 });
  await t.engine.setPaused("default", true);
  const v = new Client(served(t.fetch, fromIp("203.0.113.50")));
  assertEquals((await v.join()).status, 202);
  for (let i = 0; i < 10; i++) assertEquals((await v.join()).status, 202, "resume " + i);
  assertEquals((await join(t, "203.0.113.50")).status, 202, "the second new place");
  assertEquals((await join(t, "203.0.113.50")).status, 429);
  // Two addresses of one /64 share a bucket; another /64 has its own.
  assertEquals((await join(t, "2001:db8:0:1::1")).status, 202);
  assertEquals((await join(t, "2001:db8:0:1::2")).status, 202);
  assertEquals((await join(t, "2001:db8:0:1:ffff::3")).status, 429);
  assertEquals((await join(t, "2001:db8:0:2::1")).status, 202);
  // The allowlist wins: an office address is admitted at once, however often.
  await saveBypass(t.kv, t.clock, "203.0.113.50\n");
  t.services.access.rules.invalidate();
  for (let i = 0; i < 5; i++) assertEquals((await join(t, "203.0.113.50")).status, 200);
  t.close();
});

Deno.test("client limit: the admin API sets it per queue and shows last hour's refusals; /wait answers a page that retries", async () => {
  const t = await makeApp({ JOINS_PER_CLIENT_PER_MINUTE: 60 });
  const { client } = await adminClient(t);
  const put = await client.req("PUT", "/api/admin/join-limits", { joinsPerClientPerMinute: 1 });
  assertEquals([put.status, put.json.joinsPerClientPerMinute, put.json.default], [200, 1, false]);
  for (const bad of [{ joinsPerClientPerMinute: -1 }, { joinsPerClientPerMinute: 1.5 }, {}]) {
    const r = await client.req("PUT", "/api/admin/join-limits", bad);
    assertEquals([r.status, r.json.error.code], [400, "bad_request"], JSON.stringify(bad));
  }
  await t.engine.setPaused("default", true);
  assertEquals((await join(t, "192.0.2.9")).status, 202);
  assertEquals((await join(t, "192.0.2.9")).status, 429);
  assertEquals((await join(t, "192.0.2.9")).status, 429);
  const page = await served(t.fetch, fromIp("192.0.2.9")).request("/wait");
  assertEquals(page.status, 429);
  assert(page.headers.get("Retry-After"), "the page says when");
  const html = await page.text();
  assert(html.includes("Too many new places from your network"), "a plain page that says so");
  assert(/http-equiv="refresh"/i.test(html), "and retries by itself");
  const got = await client.req("GET", "/api/admin/join-limits");
  assertEquals(got.json.refusedLastHour, { client_limit: 3 });
  // An hour later the count is gone (and its buckets deleted).
  t.clock.advance(61 * 60_000);
  assertEquals((await client.req("GET", "/api/admin/join-limits")).json.refusedLastHour, {});
  const back = await client.req("PUT", "/api/admin/join-limits", { joinsPerClientPerMinute: null });
  assertEquals([back.json.joinsPerClientPerMinute, back.json.default], [60, true]);
  t.close();
});

Deno.test("bounded writes: a heartbeat flood from one ticket writes at most once per check-in period", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  await t.engine.setPaused("default", true);
  const v = new Client(t.app);
  await v.join();
  await t.engine.sequence("default"); // numbered, as each tick does first (0.8.0)
  const key = keys.visitor("default", v.visitorId);
  const stamps = new Set<string>();
  const flood = async (n: number) => {
    await Promise.all(
      Array.from(
        { length: n },
        () => v.req("POST", "/heartbeat", { queue: "default", visitorId: v.visitorId }),
      ),
    );
    stamps.add((await t.kv.get<Visitor>(key)).versionstamp!);
  };
  await flood(200);
  const period = t.engine.ctx.periodMs(1);
  // One minute of floods, 500 ms apart: at most one write per period, plus the first.
  for (let ms = 0; ms < 60_000; ms += 500) {
    t.clock.advance(500);
    await flood(20);
  }
  const bound = Math.ceil(60_000 / period) + 1;
  assert(stamps.size <= bound, `${stamps.size} writes in a minute, bound ${bound}`);
  // And the visitor is still alive: liveness was renewed, not starved.
  const rec = (await t.kv.get<Visitor>(key)).value!;
  assert(rec.deadline > t.clock.now() + period, "still live a period ahead");
  t.close();
});

Deno.test("client limit: one address at full speed for an hour takes at most ten minutes' allowance", async () => {
  const t = await makeApp({ JOINS_PER_CLIENT_PER_MINUTE: 6 });
  await t.engine.setPaused("default", true);
  let placed = 0, refusedHourly = 0;
  // Every 10 s for an hour: the minute bucket alone would allow 6 + 6 * 60 = 366 places.
  for (let s = 0; s < 3600; s += 10) {
    for (let i = 0; i < 3; i++) {
      const r = await join(t, "198.51.100.66");
      if (r.status === 202) placed++;
      else if (Number(r.headers.get("Retry-After")) > 10) refusedHourly++;
      await r.body?.cancel();
    }
    t.clock.advance(10_000);
  }
  // At most the hourly allowance plus what refilled of it during the hour.
  assert(placed <= 60 + 60, `placed ${placed}`);
  assert(placed >= 60, `the hourly allowance is usable (${placed})`);
  assert(refusedHourly > 0, "past the hourly allowance, Retry-After says to wait longer");
  await t.services.access.hits.idle();
  t.close();
});
