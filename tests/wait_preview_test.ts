/**
 * `/wait?preview=1`: the admin's branding preview shows the page with sample figures and joins
 * nobody; without an admin session the parameter is ignored (a normal join).
 */
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, operator } from "./helpers.ts";

async function waiting(t: Awaited<ReturnType<typeof makeApp>>): Promise<number> {
  const r = await t.app.request("/metrics", { headers: operator(t.config) });
  const m = await r.json();
  return m.queues.find((q: { queue: string }) => q.queue === "default").waiting;
}

Deno.test("an admin's preview renders sample figures without joining", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  try {
    await t.engine.setPaused("default", true);
    const { client } = await adminClient(t);
    await client.req("PUT", "/api/admin/branding", { title: "Preview Sale" });
    const before = await waiting(t);
    const r = await client.req("GET", "/wait?embed=1&preview=1&queue=default");
    assertEquals(r.status, 200);
    assert(r.text.includes("Preview Sale"), "the saved branding");
    assert(r.text.includes(`<p class="place">#128</p>`), "the sample position");
    assert(!r.text.includes("tg-props"), "no island: the preview follows no timeslots");
    assertEquals(r.headers.getSetCookie().filter((c) => c.startsWith("tg_")), []);
    assertEquals(await waiting(t), before, "nobody joined");
    const missing = await client.req("GET", "/wait?preview=1&queue=nosuch");
    assertEquals(missing.status, 404);
  } finally {
    t.close();
  }
});

Deno.test("without an admin session ?preview=1 is an ordinary visit", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  try {
    await t.engine.setPaused("default", true);
    const before = await waiting(t);
    const v = new Client(t.app);
    const r = await v.req("GET", "/wait?preview=1");
    assertEquals(r.status, 200);
    assert(v.cookies.has("tg_ticket"), "a real visitor ticket");
    assertEquals(await waiting(t), before + 1);
  } finally {
    t.close();
  }
});
