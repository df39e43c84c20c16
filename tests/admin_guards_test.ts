/** The join-guards admin API: read, change, refuse bad values (nothing changes), counts. */
import { readJoinGuards } from "../lib/guard/settings.ts";
import { assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { makeApp, operator } from "./helpers.ts";

Deno.test("join guards: defaults, a change, bad values refused with the field named", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    let r = await admin.req("GET", "/api/admin/join-guards");
    assertEquals(r.status, 200);
    assertEquals(
      [r.json.queue, r.json.challenge, r.json.provider, r.json.active, r.json.enqueueSecretSet],
      ["default", "off", "builtin", false, false],
    );
    assertEquals(r.json.lastHour.challengesIssued, 0);
    r = await admin.req("PUT", "/api/admin/join-guards", { challenge: "on", difficulty: 20000 });
    assertEquals([r.status, r.json.challenge, r.json.difficulty, r.json.active], [
      200,
      "on",
      20000,
      true,
    ]);
    // The join path sees the change at once, and its challenges are counted.
    const j = await t.fetch(
      new Request("http://x/join", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ queue: "default" }),
      }),
    );
    const body = await j.json();
    assertEquals([j.status, body.error.code], [403, "challenge_required"]);
    assertEquals(j.headers.get("set-cookie"), null);
    r = await admin.req("GET", "/api/admin/join-guards");
    assertEquals(r.json.lastHour.challengesIssued, 1);
    // /metrics carries the same counts.
    const m = await t.fetch(
      new Request("http://x/metrics?queue=default", { headers: operator(t.config) }),
    );
    assertEquals((await m.json()).joinGuards.challengesIssued, 1);
    const before = await readJoinGuards(t.kv, "default");
    for (
      const [body, field] of [
        [{ challenge: "sometimes" }, "challenge"],
        [{ provider: "captcha" }, "provider"],
        [{ difficulty: 10 }, "difficulty"],
        [{ autoWaiting: 0 }, "autoWaiting"],
        [{ requireEnqueueToken: true }, "requireEnqueueToken"],
        [{ extra: 1 }, ""],
      ] as const
    ) {
      r = await admin.req("PUT", "/api/admin/join-guards", body);
      assertEquals([r.status, r.json.error.code], [400, "bad_request"], JSON.stringify(body));
      if (field) {
        assertEquals(
          r.json.error.details.fields.some((f: { path: string }) => f.path === field),
          true,
          JSON.stringify(r.json),
        );
      }
    }
    assertEquals(await readJoinGuards(t.kv, "default"), before);
    r = await admin.req("GET", "/api/admin/join-guards?queue=nope");
    assertEquals([r.status, r.json.error.code], [404, "unknown_queue"]);
  } finally {
    await t.services.guards.stats.idle();
    t.close();
  }
});
