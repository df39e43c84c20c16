/**
 * A proxy check naming a queue that does not exist (mistyped in nginx, Caddy or Traefik, or
 * deleted since) answers 404 `unknown_queue` (plain /verify: 401 with the reason) with a plain
 * message and logs it (once a minute per
 * name), on the Hono routes and on the served fast path alike. Before, it sent every visitor to a
 * waiting page of a queue that does not exist.
 */
import { assert, assertEquals } from "./assert.ts";
import { consoleLines as capturing, makeApp, served } from "./helpers.ts";

Deno.test("a check for an unknown or deleted queue is a configuration error: 404, said and logged", async () => {
  const t = await makeApp({ QUEUES: ["default", "sale"] });
  try {
    const token = await t.services.signer.signAccessToken("visitor-u1", "sale", t.clock.now(), 60);
    await t.engine.deleteQueue("sale", true);
    const headers = { "x-original-uri": "/shop", "x-forwarded-uri": "/shop", cookie: "" };
    const lines = await capturing(async () => {
      for (const via of [t.app, served(t.fetch)]) {
        for (const check of ["/verify", "/verify/auth-request", "/verify/forward-auth"]) {
          for (const [queue, cookie] of [["nope", ""], ["sale", `tg_access=${token}`]]) {
            const r = await via.request(`${check}?queue=${queue}`, {
              headers: { ...headers, cookie },
            });
            // Plain /verify answers only 204 or 401 (DECISIONS.md), with the reason.
            const plain = check === "/verify";
            assertEquals(r.status, plain ? 401 : 404, `${check} ${queue}`);
            assertEquals(r.headers.get("location"), null, "no waiting room to send anyone to");
            const body = await r.json();
            assertEquals(body.error.code, plain ? "unauthorized" : "unknown_queue");
            if (plain) assertEquals(body.error.details.reason, "unknown_queue");
            assert(body.error.message.includes(`queue "${queue}", which does not exist`));
          }
        }
      }
    });
    // One line per queue name a minute, naming the check, the queue and the queues there are.
    const logged = lines.map((l) => JSON.parse(l));
    assertEquals(logged.map((l) => [l.msg, l.queue]), [
      ["proxy check for an unknown queue", "nope"],
      ["proxy check for an unknown queue", "sale"],
    ]);
    assertEquals([logged[0].check, logged[0].queues], ["verify", ["default"]]);
    t.clock.advance(60_000);
    const again = await capturing(async () => {
      await t.app.request("/verify?queue=nope").then((r) => r.body?.cancel());
    });
    assertEquals(again.length, 1, "logged again a minute later");
    // Made-up names (anyone can call a check) log 8 names a minute at most, then nothing.
    const flood = await capturing(async () => {
      for (let i = 0; i < 30; i++) {
        const r = await t.app.request(`/verify/forward-auth?queue=made-up-${i}`);
        assertEquals(r.status, 404);
        await r.body?.cancel();
      }
    });
    assertEquals(flood.length, 7, "8 names this minute, one of them nope's");
    // The queues that exist are checked as before.
    const plain = await (await t.app.request("/verify?queue=default")).json();
    assertEquals(plain.error.details.reason, undefined, "no token: a plain 401");
    const ok = await t.app.request("/verify/forward-auth?queue=default");
    assertEquals(ok.status, 302);
  } finally {
    t.close();
  }
});
