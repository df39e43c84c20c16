/**
 * Per-queue branding: a queue overrides service-wide fields one by one, `null` makes a field
 * inherit again, a field it does not override follows later service-wide changes, and
 * `/wait?queue=...` renders the queue's own branding.
 */
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

Deno.test("queue branding: overrides field by field, inherit with null, rendered by /wait", async () => {
  const t = await makeApp({ QUEUES: ["default", "vip"] });
  try {
    const { client: admin } = await adminClient(t);
    let r = await admin.req("PUT", "/api/admin/branding", { title: "Our shop", message: "Hi" });
    assertEquals([r.status, r.json.title], [200, "Our shop"]);

    r = await admin.req("PUT", "/api/admin/branding", {
      queue: "vip",
      title: "VIP presale",
      primaryColor: "#aa3300",
    });
    assertEquals(r.status, 200, r.text);
    assertEquals(r.json.overrides, { title: "VIP presale", primaryColor: "#aa3300" });
    assertEquals([r.json.effective.title, r.json.effective.message], ["VIP presale", "Hi"]);
    assertEquals(r.json.service.title, "Our shop", "the service-wide record is untouched");

    // A service-wide change shows in the inherited fields only.
    await admin.req("PUT", "/api/admin/branding", { title: "Shop 2", message: "Hello" });
    r = await admin.req("GET", "/api/admin/branding?queue=vip");
    assertEquals([r.json.effective.title, r.json.effective.message], ["VIP presale", "Hello"]);
    const state = await admin.req("GET", "/api/admin/state");
    assertEquals(state.json.branding.title, "Shop 2", "state.branding stays service-wide");

    const vip = await admin.req("GET", "/wait?queue=vip&preview=1");
    assert(vip.text.includes("VIP presale"), "the queue's own title");
    assert(vip.text.includes("#aa3300"), "the queue's own colour");
    const def = await admin.req("GET", "/wait?queue=default&preview=1");
    assert(def.text.includes("Shop 2") && !def.text.includes("VIP presale"));

    // null: inherit again.
    r = await admin.req("PUT", "/api/admin/branding", { queue: "vip", title: null });
    assertEquals(r.json.overrides, { primaryColor: "#aa3300" });
    assertEquals(r.json.effective.title, "Shop 2");

    // Bad input changes nothing: null without a queue, an unknown queue, a bad colour.
    r = await admin.req("PUT", "/api/admin/branding", { title: null });
    assertEquals([r.status, r.json.error.details.fields[0].path], [400, "title"]);
    r = await admin.req("PUT", "/api/admin/branding", { queue: "nope", title: "x" });
    assertEquals([r.status, r.json.error.code], [404, "unknown_queue"]);
    r = await admin.req("PUT", "/api/admin/branding", { queue: "vip", primaryColor: "red" });
    assertEquals(r.status, 400);
    r = await admin.req("GET", "/api/admin/branding?queue=vip");
    assertEquals(r.json.overrides, { primaryColor: "#aa3300" });
    assertEquals((await admin.req("GET", "/api/admin/branding")).json.title, "Shop 2");
  } finally {
    t.close();
  }
});

Deno.test("queue branding: click-to-enter set for one queue holds only that queue's visitors", async () => {
  const t = await makeApp({ QUEUES: ["default", "vip"] });
  try {
    const { client: admin } = await adminClient(t);
    await admin.req("PUT", "/api/admin/branding", { queue: "vip", clickToEnter: true });
    const a = await new Client(t.app).join("vip");
    const b = await new Client(t.app).join("default");
    assertEquals([a.json.status, a.json.accessToken], ["admitted", undefined], a.text);
    assertEquals(b.json.status, "admitted");
    assert(typeof b.json.accessToken === "string", "default has no click-to-enter");
  } finally {
    t.close();
  }
});
