/**
 * The origin override: `GET/PUT/DELETE /api/admin/origin`, its audit entries, validation, the
 * per-instance cache, and what it changes for visitors (proxy on/off, destination after admission).
 */
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { Client, makeApp, type TestApp } from "./helpers.ts";
import { keys } from "../lib/store/keys.ts";
import { ORIGIN_CACHE_MS } from "../lib/origin/settings.ts";
import { startOrigin, tokenFor } from "./origin_helpers.ts";

/** Status and error code of `GET /probe` with a valid token while the proxy is off. */
async function probe(t: TestApp): Promise<string> {
  const r = await t.app.request("/probe", {
    headers: { authorization: `Bearer ${await tokenFor(t)}` },
  });
  return `${r.status} ${(await r.json()).error?.code}`;
}

async function auditActions(admin: Client): Promise<{ action: string; detail: unknown }[]> {
  const r = await admin.req("GET", "/api/admin/audit");
  return r.json.entries.filter((e: { action: string }) => e.action.startsWith("origin."));
}

Deno.test("admin origin: the view says what is in effect and where it comes from", async () => {
  let t = await makeApp();
  let { client } = await adminClient(t);
  let r = await client.req("GET", "/api/admin/origin");
  assertEquals(r.json, { enabled: false, url: null, source: "none", envUrl: null, override: null });
  t.close();

  t = await makeApp({ ORIGIN_URL: "https://user:pw@origin.example:8443/app" });
  ({ client } = await adminClient(t));
  r = await client.req("GET", "/api/admin/origin");
  assertEquals(r.json, {
    enabled: true,
    url: "https://origin.example:8443/app",
    source: "env",
    envUrl: "https://origin.example:8443/app",
    override: null,
  }, "credentials of ORIGIN_URL are never shown");
  assertEquals((await new Client(t.app).req("GET", "/api/admin/origin")).status, 401);
  t.close();
});

Deno.test("admin origin: off, on with a URL, URL change and clear take effect at once, each audited", async () => {
  const envOrigin = startOrigin();
  const other = startOrigin();
  const t = await makeApp({ ORIGIN_URL: envOrigin.url });
  const { client } = await adminClient(t);
  const visitor = async () => {
    const before = [envOrigin.seen.length, other.seen.length];
    const r = await t.app.request("/probe", {
      headers: { authorization: `Bearer ${await tokenFor(t)}` },
    });
    await r.body?.cancel();
    if (envOrigin.seen.length > before[0]) return "env origin";
    if (other.seen.length > before[1]) return "other origin";
    return String(r.status);
  };
  assertEquals(await visitor(), "env origin");

  let r = await client.req("PUT", "/api/admin/origin", { enabled: false });
  assertEquals([r.status, r.json.enabled, r.json.source, r.json.url], [200, false, "admin", null]);
  assertEquals(await visitor(), "404", "off even with ORIGIN_URL: unknown paths are ours again");

  r = await client.req("PUT", "/api/admin/origin", { enabled: true, url: other.url });
  assertEquals([r.json.enabled, r.json.source, r.json.url], [true, "admin", `${other.url}/`]);
  assertEquals(r.json.override.url, other.url);
  assertEquals(r.json.override.updatedAt, t.clock.now());
  assertEquals(await visitor(), "other origin");

  r = await client.req("PUT", "/api/admin/origin", { enabled: true, url: envOrigin.url + "/" });
  assertEquals(await visitor(), "env origin", "a URL change applies to the next request");

  r = await client.req("PUT", "/api/admin/origin", { enabled: true });
  assertEquals([r.json.source, r.json.url], ["env", `${envOrigin.url}/`], "on, with ORIGIN_URL");

  r = await client.req("PUT", "/api/admin/origin", { enabled: false });
  r = await client.req("DELETE", "/api/admin/origin");
  assertEquals([r.status, r.json.enabled, r.json.source, r.json.override], [
    200,
    true,
    "env",
    null,
  ]);
  assertEquals((await t.kv.get(keys.origin())).value, null);
  assertEquals(await visitor(), "env origin");

  const actions = (await auditActions(client)).map((e) => [e.action, e.detail]).reverse();
  assertEquals(actions, [
    ["origin.save", { enabled: false, url: null, source: "admin" }],
    ["origin.save", { enabled: true, url: `${other.url}/`, source: "admin" }],
    ["origin.save", { enabled: true, url: `${envOrigin.url}/`, source: "admin" }],
    ["origin.save", { enabled: true, url: `${envOrigin.url}/`, source: "env" }],
    ["origin.save", { enabled: false, url: null, source: "admin" }],
    ["origin.clear", { enabled: true, url: `${envOrigin.url}/`, source: "env" }],
  ]);
  await envOrigin.close();
  await other.close();
  t.close();
});

Deno.test("admin origin: an override turns the proxy on without ORIGIN_URL; the origin's path prefix is kept", async () => {
  const origin = startOrigin();
  const t = await makeApp();
  const { client } = await adminClient(t);
  assertEquals(await probe(t), "404 not_found");
  const r = await client.req("PUT", "/api/admin/origin", {
    enabled: true,
    url: `${origin.url}/app`,
  });
  assertEquals(r.status, 200);
  const res = await t.app.request("/probe?x=1", {
    headers: { authorization: `Bearer ${await tokenFor(t)}` },
  });
  assertEquals((await res.json()).path, "/app/probe?x=1");
  await origin.close();
  t.close();
});

Deno.test("admin origin: invalid input is 400 bad_request and changes nothing", async () => {
  const t = await makeApp({ PORT: 8123 });
  const { client } = await adminClient(t);
  await client.req("PUT", "/api/admin/origin", { enabled: true, url: "https://shop.example" });
  const before = await t.kv.get(keys.origin());
  const bad: unknown[] = [
    {},
    { enabled: "yes" },
    { url: "https://shop.example" },
    { enabled: true, url: "ftp://shop.example" },
    { enabled: true, url: "shop.example" },
    { enabled: true, url: "https://user:pw@shop.example" },
    { enabled: true, url: "https://shop.example/?a=1" },
    { enabled: true, url: "https://shop.example/#top" },
    { enabled: true, url: "https://" + "a".repeat(2048) + ".example" },
    { enabled: true, url: "https://shop.example", extra: 1 },
    // This service itself: the request's host, and our own listener on this host.
    { enabled: true, url: "http://localhost" },
    { enabled: true, url: "https://localhost/shop" },
    { enabled: true, url: "http://127.0.0.1:8123" },
    { clear: true },
  ];
  for (const body of bad) {
    const r = await client.req("PUT", "/api/admin/origin", body);
    assertEquals([r.status, r.json.error.code], [400, "bad_request"], JSON.stringify(body));
    assert(r.json.error.details.fields.length > 0);
  }
  assertEquals((await t.kv.get(keys.origin())).versionstamp, before.versionstamp, "nothing saved");
  // On without a URL needs ORIGIN_URL.
  const r = await client.req("PUT", "/api/admin/origin", { enabled: true, url: null });
  assertEquals([r.status, r.json.error.details.fields[0].path], [400, "url"]);
  assertEquals((await t.kv.get(keys.origin())).versionstamp, before.versionstamp);
  assertEquals((await auditActions(client)).length, 1, "only the first, valid write");
  t.close();
});

Deno.test("admin origin: another instance sees a write within the cache second; the writer at once", async () => {
  const origin = startOrigin();
  const kv = await Deno.openKv(":memory:");
  const a = await makeApp({ ORIGIN_URL: origin.url }, { kv });
  const b = await makeApp({ ORIGIN_URL: origin.url }, { kv, clock: a.clock });
  const { client } = await adminClient(a);
  assertEquals((await b.services.origin.effective()).enabled, true, "b has read and cached it");
  await client.req("PUT", "/api/admin/origin", { enabled: false });
  assertEquals((await a.services.origin.effective()).enabled, false, "the writer: at once");
  assertEquals((await b.services.origin.effective()).enabled, true, "b: still its cached copy");
  a.clock.advance(ORIGIN_CACHE_MS);
  assertEquals((await b.services.origin.effective()).enabled, false, "b: after the second");
  await origin.close();
  kv.close();
});

Deno.test("admin origin: the destination after admission follows the override (/ when on, /demo when off)", async () => {
  const t = await makeApp({ ORIGIN_URL: "https://origin.example" });
  const { client } = await adminClient(t);
  const land = async () => {
    const v = new Client(t.app);
    const r = await v.req("GET", "/wait");
    return [r.status, r.headers.get("location")];
  };
  assertEquals(await land(), [303, "/"]);
  await client.req("PUT", "/api/admin/origin", { enabled: false });
  assertEquals(await land(), [303, "/demo"]);
  const pass = await client.req("POST", "/api/admin/pass", {});
  assertEquals(pass.json.redirectTo, "/demo");
  await client.req("DELETE", "/api/admin/origin");
  assertEquals(await land(), [303, "/"]);
  t.close();
});
