/**
 * Renewal through the two other paths a request is seen on: the origin proxy and the
 * `requireAdmission()` middleware (with `release()` beside it). Each writes at most once per
 * renewal interval under a flood, refreshes the `tg_access` cookie on the answer once the token
 * was re-issued, and refuses a session that ended.
 */
import { Hono } from "hono";
import { release, requireAdmission } from "../http/require_admission.ts";
import type { AccessClaims } from "../lib/tokens.ts";
import { assert, assertEquals } from "./assert.ts";
import { startOrigin } from "./origin_helpers.ts";
import {
  accessCookie,
  admittedVisitor,
  countedApp,
  record,
  setSessions,
  slotsHeld,
} from "./session_helpers.ts";

/** `n` concurrent requests; each answer's status must be `status`. Returns the answers. */
async function flood(send: () => Promise<Response>, n: number, status = 200) {
  const all = await Promise.all(Array.from({ length: n }, send));
  for (const r of all) {
    assertEquals(r.status, status);
    await r.body?.cancel();
  }
  return all;
}

Deno.test("origin proxy, sliding: one write per interval under a flood; the cookie refreshed past half-life", async () => {
  const origin = startOrigin();
  const { t, writes } = await countedApp({ ORIGIN_URL: origin.url });
  await setSessions(t, { sessionIdleSeconds: 300 });
  const v = await admittedVisitor(t);
  let token = v.token;
  const send = () => t.app.request("/shop", { headers: { cookie: `tg_access=${token}` } });
  const before = writes.n;
  let refreshed = 0;
  for (let i = 0; i < 100; i++) {
    t.clock.advance(10_000); // 1000 s in all: past the token's first half-life
    for (const r of await flood(send, 10)) {
      const fresh = accessCookie(r);
      if (fresh) {
        token = fresh;
        refreshed++;
      }
    }
  }
  // 1000 s at 60 s an interval: the first write, then one per interval (16 or 17).
  assert(writes.n - before <= 18, `${writes.n - before} writes for 1000 requests`);
  assert(writes.n - before >= 16, `${writes.n - before} writes: renewed every interval`);
  assert(refreshed >= 1, "the re-issued token reached the visitor");
  assertEquals(await slotsHeld(t), 1);
  await origin.close();
  t.close();
});

/** A protected app in the same process as Tollgate, as the demo page is. */
function shop(t: Awaited<ReturnType<typeof countedApp>>["t"]) {
  const gate = {
    secret: t.services.signer,
    now: () => t.clock.now(),
    sessions: t.services.sessions,
  };
  const app = new Hono<{ Variables: { admission: AccessClaims } }>();
  app.use("/shop/*", requireAdmission(gate));
  app.get("/shop/page", (c) => c.text(`hello ${c.get("admission").sub}`));
  app.post("/shop/done", async (c) => c.json(await release(c, gate)));
  return app;
}

Deno.test("requireAdmission(), sliding: one write per interval; release() frees the slot and refuses the token", async () => {
  const { t, writes } = await countedApp();
  await setSessions(t, { sessionIdleSeconds: 300 });
  const v = await admittedVisitor(t);
  const app = shop(t);
  let token = v.token;
  const send = () =>
    Promise.resolve(app.request("/shop/page", { headers: { cookie: `tg_access=${token}` } }));
  const before = writes.n;
  let refreshed = 0;
  for (let i = 0; i < 60; i++) {
    t.clock.advance(10_000);
    for (const r of await flood(send, 10)) {
      const fresh = accessCookie(r);
      if (fresh) [token, refreshed] = [fresh, refreshed + 1];
    }
  }
  const n = writes.n - before;
  assert(n >= 10 && n <= 12, `${n} writes for 600 requests over 600 s`);
  assert(refreshed >= 1, "the middleware refreshed the cookie");
  const done = await app.request("/shop/done", {
    method: "POST",
    headers: { cookie: `tg_access=${token}` },
  });
  assertEquals(done.status, 200);
  assertEquals((await done.json()).freed, true);
  assert(done.headers.getSetCookie().some((c) => /^tg_access=;.*Max-Age=0/.test(c)));
  assertEquals(await slotsHeld(t), 0);
  assertEquals(await record(t, v.id), null);
  assertEquals(
    (await app.request("/shop/page", { headers: { cookie: `tg_access=${token}` } }))
      .status,
    401,
  );
  t.close();
});

Deno.test("requireAdmission() without sessions: the signature alone, as before (no store)", async () => {
  const { t, writes } = await countedApp();
  await setSessions(t, { sessionIdleSeconds: 60 });
  const v = await admittedVisitor(t);
  const app = new Hono();
  app.use("/p", requireAdmission({ secret: t.services.signer, now: () => t.clock.now() }));
  app.get("/p", (c) => c.text("ok"));
  const before = writes.n;
  t.clock.advance(30_000);
  assertEquals(
    (await app.request("/p", { headers: { cookie: `tg_access=${v.token}` } })).status,
    200,
  );
  assertEquals(writes.n, before);
  t.close();
});
