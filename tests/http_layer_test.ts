/**
 * One HTTP layer: the served handler's fast paths and the Hono routes read cookies, map errors
 * and write cookies the same way. Each case goes through the served `fetch` (fast paths) and
 * Hono's `app.request` (Hono only, said so), and both must agree.
 */
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, served } from "./helpers.ts";
import { RateLimitedError } from "../lib/errors.ts";
import { errorResponse } from "../http/response.ts";
import { cookieValues } from "../http/cookies.ts";

async function twoQueues() {
  const t = await makeApp({ QUEUES: ["default", "other"], ADMIT_PER_SECOND: 1 });
  await t.engine.setPaused("default", true);
  await t.engine.setPaused("other", true);
  const a = new Client(t.app), b = new Client(t.app);
  await a.join("default");
  await b.join("other");
  return { t, ticketA: a.cookies.get("tg_ticket")!, ticketB: b.cookies.get("tg_ticket")! };
}

Deno.test("cookies: a quoted tg_ticket is read the same on the fast path and through Hono", async () => {
  const { t, ticketA } = await twoQueues();
  const headers = { cookie: `tg_ticket="${ticketA}"` };
  const viaServed = await t.app.request("/status?queue=default", { headers });
  // Hono only: the route the fast path hands odd queries to.
  const viaHono = await t.hono.request("/status?queue=default", { headers });
  assertEquals([viaServed.status, viaHono.status], [200, 200]);
  assertEquals((await viaServed.json()).position, (await viaHono.json()).position);
  t.close();
});

Deno.test("cookies: among two tg_ticket values the one for the requested queue counts, in any order", async () => {
  const { t, ticketA, ticketB } = await twoQueues();
  for (
    const cookie of [
      `tg_ticket=${ticketB}; tg_ticket=${ticketA}`,
      `tg_ticket=${ticketA}; tg_ticket=${ticketB}`,
    ]
  ) {
    for (const q of ["default", "other"]) {
      // Twice each: the first poll verifies (awaited), the second is answered from memory.
      for (let i = 0; i < 2; i++) {
        const res = await t.app.request(`/status?queue=${q}`, { headers: { cookie } });
        const body = await res.json();
        assertEquals([res.status, body.queue], [200, q], `${q} with ${cookie.slice(0, 30)}`);
      }
    }
    // The join path resumes the right place instead of taking a new one.
    const again = await t.app.request("/join", {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ queue: "other" }),
    });
    assertEquals((await again.json()).position, 1);
  }
  assertEquals((await t.engine.metrics("other")).waiting, 1, "no second place was taken");
  t.close();
});

Deno.test("cookies: a stray tg_access before the valid one does not lock the visitor out", async () => {
  const t = await makeApp();
  const c = new Client(t.app);
  const j = await c.join();
  assertEquals(j.json.status, "admitted");
  const token = c.cookies.get("tg_access")!;
  for (const cookie of [`tg_access=bad; tg_access=${token}`, `tg_access=${token}; tg_access=bad`]) {
    const res = await t.app.request("/verify", { headers: { cookie } });
    assertEquals(res.status, 204, cookie.slice(0, 20));
  }
  t.close();
});

Deno.test("errors: one mapper, Retry-After on every path that says when to come back", async () => {
  const res = errorResponse(new RateLimitedError(7), new Request("http://x/status?queue=q"));
  assertEquals([res.status, res.headers.get("Retry-After")], [429, "7"]);
  assertEquals((await res.json()).error.code, "rate_limited");
  assertEquals(res.headers.get("X-Content-Type-Options"), "nosniff");
  const boom = errorResponse(new Error("secret detail"), new Request("http://x/"));
  const body = await boom.json();
  assertEquals([boom.status, body.error.code], [500, "internal"]);
  assert(!JSON.stringify(body).includes("secret"), "no detail on the wire");
});

Deno.test("cookie reader: every value kept, quotes removed, encoded values decoded", () => {
  assertEquals(cookieValues('a=1; tg_ticket="x.y"; tg_ticket=z%2Ew; b', "tg_ticket"), [
    "x.y",
    "z.w",
  ]);
  assertEquals(cookieValues("xtg_ticket=1; tg_ticketx=2", "tg_ticket"), []);
  assertEquals(cookieValues(null, "tg_ticket"), []);
});

Deno.test("the test client goes through the served handler (request ids only it assigns)", async () => {
  const t = await makeApp();
  const viaServed = await t.app.request("/health");
  const viaHono = await t.hono.request("/health");
  assert(viaServed.headers.get("X-Request-Id"), "served answers carry a request id");
  assertEquals(viaHono.headers.get("X-Request-Id"), null);
  const again = await served(t.fetch).request("/health");
  assertEquals(again.status, 200);
  t.close();
});

Deno.test("metrics: status polls count under route status, answered from memory or by Hono", async () => {
  const { instanceMetrics } = await import("../lib/metrics/instance.ts");
  const { t, ticketA } = await twoQueues();
  const count = (code: string) => instanceMetrics.requests.value(["status", code]);
  const [ok0, bad0] = [count("200"), count("400")];
  const headers = { cookie: `tg_ticket=${ticketA}` };
  // The first poll verifies the ticket (awaited), the next two are answered from memory.
  for (let i = 0; i < 3; i++) {
    assertEquals((await t.app.request("/status?queue=default", { headers })).status, 200);
  }
  // A query the fast path does not validate goes to Hono: still the status route.
  const bad = await t.app.request("/status?queue=NOT%20A%20NAME", { headers });
  assertEquals(bad.status, 400);
  await bad.body?.cancel();
  assertEquals([count("200") - ok0, count("400") - bad0], [3, 1]);
  t.close();
});
