import { listAudit } from "../lib/admin/audit.ts";
import { resetService } from "../lib/admin/reset.ts";
import { keys } from "../lib/store/keys.ts";
import { AdminClient, adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

// The wizard's own steps (queue, branding) kept server-side: POST /api/admin/setup/step and the
// `steps` of GET /api/admin/setup, so a reload resumes the same step.

Deno.test("setup steps: recorded, audited, shown in the progress; a reset clears them", async () => {
  const t = await makeApp({ QUEUES: ["default"] });
  try {
    const { client } = await adminClient(t);
    const start = (await client.req("GET", "/api/admin/setup")).json;
    assertEquals(start.steps, { queue: false, branding: false, queueName: null });

    const q = await client.req("POST", "/api/admin/setup/step", { step: "queue", queue: "shop" });
    assertEquals(q.status, 200, q.text);
    assertEquals(q.json.steps, { queue: true, branding: false, queueName: "shop" });
    assertEquals(q.json.complete, false, "the edge and challenge parts are untouched");

    t.clock.advance(1000);
    const b = await client.req("POST", "/api/admin/setup/step", { step: "branding" });
    assertEquals(b.json.steps, { queue: true, branding: true, queueName: "shop" });
    const rec = (await t.kv.get<Record<string, unknown>>(keys.setupSteps())).value!;
    assertEquals([rec.queueName, typeof rec.queue, typeof rec.branding], [
      "shop",
      "number",
      "number",
    ]);
    assertEquals((await client.req("GET", "/api/admin/setup")).json.steps.branding, true);

    const audit = (await listAudit(t.kv, 20)).filter((e) => e.action === "setup.step");
    assertEquals(audit.map((e) => [e.actor, e.detail.step]).sort(), [
      ["admin", "branding"],
      ["admin", "queue"],
    ]);

    await resetService(t.kv);
    assertEquals((await t.kv.get(keys.setupSteps())).value, null);
  } finally {
    t.close();
  }
});

Deno.test("setup steps: validated, and only with a session from this origin", async () => {
  const t = await makeApp({ QUEUES: ["default"] });
  try {
    const { client } = await adminClient(t);
    const bad = await client.req("POST", "/api/admin/setup/step", { step: "edge" });
    assertEquals([bad.status, bad.json.error.code], [400, "bad_request"]);
    const badQueue = await client.req("POST", "/api/admin/setup/step", {
      step: "queue",
      queue: "Not A Queue",
    });
    assertEquals(badQueue.status, 400);
    const extra = await client.req("POST", "/api/admin/setup/step", { step: "queue", x: 1 });
    assertEquals(extra.status, 400);

    const anon = new AdminClient(t.app);
    const noSession = await anon.req("POST", "/api/admin/setup/step", { step: "queue" });
    assertEquals(noSession.status, 401);
    const foreign = await client.req("POST", "/api/admin/setup/step", { step: "queue" }, {
      origin: "https://evil.example",
    });
    assertEquals(foreign.status, 403);
    assertEquals((await t.kv.get(keys.setupSteps())).value, null, "nothing was recorded");
    assert((await client.req("GET", "/api/admin/setup")).json.steps.queue === false);
  } finally {
    t.close();
  }
});
