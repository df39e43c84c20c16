/**
 * The site ends a session: by `Tollgate-Command: release` on the origin's answer (stripped before
 * the visitor sees it), by `POST /release` with the visitor's access token, in fixed and sliding
 * queues. The slot is free at once (the next tick admits into it), the token is refused on this
 * instance and on a second one; forged, expired and foreign-queue tokens free nothing.
 */
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { startOrigin } from "./origin_helpers.ts";
import { readSessionStats } from "../lib/session/stats.ts";
import { saveBypass } from "../lib/access/rules.ts";
import {
  admittedVisitor,
  countedApp,
  record,
  setSessions,
  slotsHeld,
  verify,
} from "./session_helpers.ts";

/** An origin whose `/checkout` ends the session, and `/plain` does not. */
function checkoutOrigin() {
  return startOrigin((_req, url) => {
    if (url.pathname === "/checkout") {
      return new Response("thanks", { headers: { "Tollgate-Command": "release" } });
    }
    return null;
  });
}

for (const mode of ["fixed", "sliding"] as const) {
  Deno.test(`origin header releases a ${mode} session: stripped, slot freed, token refused everywhere`, async () => {
    const origin = checkoutOrigin();
    const { t, base } = await countedApp({ ORIGIN_URL: origin.url, CAPACITY: 1 });
    if (mode === "sliding") await setSessions(t, {});
    const v = await admittedVisitor(t);
    const other = await makeApp({ ORIGIN_URL: origin.url, CAPACITY: 1 }, {
      kv: base,
      clock: t.clock,
    });
    // A second visitor waits for the only slot.
    const next = new Client(t.app);
    assertEquals((await next.join()).status, 202);
    const plain = await v.client.req("GET", "/plain");
    assertEquals(plain.status, 200, plain.text);
    assertEquals((await verify(other, v.token)).status, 204);
    const res = await v.client.req("GET", "/checkout");
    assertEquals(res.status, 200);
    assertEquals(res.text, "thanks");
    assertEquals(res.headers.get("tollgate-command"), null, "never reaches the visitor");
    assert(res.headers.getSetCookie().some((c) => /^tg_access=;.*Max-Age=0/.test(c)));
    assertEquals(await record(t, v.id), null, "freed at once");
    assertEquals((await verify(t, v.token)).status, 401, "refused here at once");
    t.clock.advance(1000);
    assertEquals((await verify(other, v.token)).status, 401, "refused there within a second");
    // Through the proxy with the old token: back to the waiting room.
    const again = await t.app.request("/plain", { headers: { cookie: `tg_access=${v.token}` } });
    assertEquals(again.status, 302);
    // The next tick admits the waiting visitor into the freed slot.
    await t.engine.tick("default");
    assertEquals((await next.status()).json.status, "admitted");
    assertEquals((await readSessionStats(t.kv, "default")).released, 1);
    await origin.close();
    t.close();
  });
}

Deno.test("origin header on a request admitted without a token (allowlist) is ignored and stripped", async () => {
  const origin = checkoutOrigin();
  const { t } = await countedApp({ ORIGIN_URL: origin.url });
  const v = await admittedVisitor(t);
  // The test client's own address is allowlisted from now on: admitted with no token.
  await saveBypass(t.kv, t.clock, "127.0.0.1");
  t.services.access.rules.invalidate();
  const res = await t.app.request("/checkout");
  assertEquals(res.status, 200);
  assertEquals(res.headers.get("tollgate-command"), null);
  assertEquals(res.headers.getSetCookie().length, 0, "nothing cleared");
  assertEquals(await slotsHeld(t), 1, "the other visitor's slot is untouched");
  assertEquals((await verify(t, v.token)).status, 204);
  await origin.close();
  t.close();
});

Deno.test("POST /release: frees the slot; twice is fine; bad tokens are 401 and free nothing", async () => {
  const { t } = await countedApp({}, undefined);
  await t.engine.ensureQueues(["other"]);
  const v = await admittedVisitor(t);
  const release = (token: string, query = "") =>
    t.app.request(`/release${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
  const signer = t.services.signer;
  const forged = v.token.slice(0, -2) + (v.token.endsWith("AA") ? "BB" : "AA");
  const expired = await signer.signAccessToken(v.id, "default", t.clock.now() - 901_000, 900);
  const foreign = await signer.signAccessToken(v.id, "other", t.clock.now(), 900);
  for (
    const [what, res] of [
      ["forged", await release(forged)],
      ["expired", await release(expired)],
      ["other queue's token", await release(foreign, "?queue=default")],
      ["this token for another queue", await release(v.token, "?queue=other")],
      ["none", await t.app.request("/release", { method: "POST" })],
    ] as const
  ) {
    assertEquals(res.status, 401, what);
    assertEquals((await res.json()).error.code, "unauthorized", what);
  }
  assertEquals(await slotsHeld(t), 1, "nothing freed");
  const ok = await release(v.token, "?queue=default");
  assertEquals(ok.status, 200);
  assertEquals(await ok.json(), {
    status: "released",
    queue: "default",
    visitorId: v.id,
    freed: true,
  });
  assertEquals(await slotsHeld(t), 0);
  assertEquals((await verify(t, v.token)).status, 401);
  const twice = await release(v.token);
  assertEquals(twice.status, 200);
  assertEquals((await twice.json()).freed, false);
  t.close();
});

Deno.test("POST /release with an old token of a visitor admitted again frees nothing of the new session", async () => {
  const { t } = await countedApp();
  await setSessions(t, { sessionIdleSeconds: 60 });
  const v = await admittedVisitor(t);
  t.clock.advance(1000);
  assertEquals((await verify(t, v.token)).status, 204);
  t.clock.advance(80_000);
  await t.engine.tick("default"); // idle: the slot is freed
  const again = await v.client.join();
  assertEquals(again.status, 200, "admitted again, same visitor id");
  const res = await t.app.request("/release", {
    method: "POST",
    headers: { authorization: `Bearer ${v.token}` },
  });
  assertEquals((await res.json()).freed, false);
  assertEquals(await slotsHeld(t), 1);
  assertEquals((await verify(t, again.json.accessToken)).status, 204);
  t.close();
});
