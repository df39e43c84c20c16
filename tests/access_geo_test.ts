import { saveBypass, saveGeoBlock } from "../lib/access/rules.ts";
import { keys } from "../lib/store/keys.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { fromIp, joinRequest, servedApp, setCookies, twinJoin } from "./access_helpers.ts";
import { makeApp } from "./helpers.ts";

const HOUR = 3_600_000;

Deno.test("geo-block API: TTL required when enabling, bad codes by line, nothing saved", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const off = {
    enabled: false,
    active: false,
    countries: [],
    countriesText: "",
    ttlHours: null,
    enabledAt: null,
    expiresAt: null,
    hits: {},
  };
  assertEquals((await client.req("GET", "/api/admin/geo-block")).json, off);
  const bad: [unknown, string][] = [
    [{ enabled: true, countriesText: "RU" }, "ttlHours"],
    [{ enabled: true, countriesText: "RU", ttlHours: 0.5 }, "ttlHours"],
    [{ enabled: true, countriesText: "RU", ttlHours: 721 }, "ttlHours"],
    [{ enabled: true, countriesText: "", ttlHours: 24 }, "countriesText"],
    [{ enabled: "yes", countriesText: "RU", ttlHours: 24 }, "enabled"],
    [{ countriesText: "RU", ttlHours: 24 }, "enabled"],
    [{ enabled: false, countrieText: "RU" }, ""], // misspelt: refused, not ignored
  ];
  for (const [body, field] of bad) {
    const r = await client.req("PUT", "/api/admin/geo-block", body);
    assertEquals([r.status, r.json.error.code], [400, "bad_request"], JSON.stringify(body));
    assertEquals(r.json.error.details.fields[0].path, field, JSON.stringify(body));
  }
  const lines = await client.req("PUT", "/api/admin/geo-block", {
    enabled: true,
    countriesText: "RU\nUK\n# fine\nXX\nkp",
    ttlHours: 24,
  });
  assertEquals(lines.status, 400);
  assertEquals(lines.json.error.details.lines.map((l: { line: number }) => l.line), [2, 4]);
  assertEquals((await t.kv.get(keys.geoBlock())).versionstamp, null, "nothing saved");

  const put = await client.req("PUT", "/api/admin/geo-block", {
    enabled: true,
    countriesText: "ru\nKP\nru",
    ttlHours: 1.5,
  });
  const now = t.clock.now();
  const on = {
    enabled: true,
    active: true,
    countries: ["KP", "RU"],
    countriesText: "KP\nRU",
    ttlHours: 1.5,
    enabledAt: now,
    expiresAt: now + 1.5 * HOUR,
    hits: {},
  };
  assertEquals([put.status, put.json], [200, on]);
  assertEquals((await client.req("GET", "/api/admin/geo-block")).json, on);
  // Disabling needs no TTL and keeps the list for next time.
  const disabled = await client.req("PUT", "/api/admin/geo-block", { enabled: false });
  assertEquals(disabled.json, {
    ...on,
    enabled: false,
    active: false,
    enabledAt: null,
    expiresAt: null,
  });
  const audit = await client.req("GET", "/api/admin/audit");
  const saves = audit.json.entries.filter((e: { action: string }) =>
    e.action === "access.geoBlock"
  );
  assertEquals(saves.map((e: { detail: { enabled: boolean } }) => e.detail.enabled), [false, true]);
  t.close();
});

/** Twin apps (fast path and Hono) blocking RU and KP for 2 h. */
async function blockingTwins(overrides: Parameters<typeof servedApp>[0] = {}) {
  const apps = [await servedApp(overrides), await servedApp(overrides)];
  for (const a of apps) {
    await saveGeoBlock(a.kv, a.clock, { enabled: true, countriesText: "RU\nKP", ttlHours: 2 });
    a.services.access.rules.invalidate();
  }
  const [fast, hono] = apps;
  const join = (headers: Record<string, string>, ip = "198.51.100.1") =>
    twinJoin(fast, hono, () => joinRequest({ queue: "default" }, headers), fromIp(ip));
  return { fast, hono, join, close: () => apps.forEach((a) => a.kv.close()) };
}

Deno.test("geo-block: join answers 403 geo_blocked on both join paths; unknown is never blocked", async () => {
  const t = await blockingTwins();
  for (const cc of ["RU", "ru", " kp "]) {
    const r = await t.join({ "cf-ipcountry": cc });
    assertEquals([r.status, (r.json.error as { code: string }).code], [403, "geo_blocked"], cc);
    assertEquals(r.res.headers.getSetCookie(), [], "no ticket, no join");
  }
  for (const cc of ["DE", "XX", "T1", ""]) {
    assert([200, 202].includes((await t.join({ "cf-ipcountry": cc })).status), `"${cc}" joins`);
  }
  assertEquals((await t.join({})).status, 202, "no header: unknown, joins");
  const m = await t.fast.engine.metrics("default");
  assertEquals(m.waiting + m.holding + m.entered, 5, "only the five allowed joins counted");
  t.close();
});

Deno.test("geo-block: GEO_COUNTRY_HEADER names the header; the allowlist wins over the block", async () => {
  const t = await blockingTwins({ GEO_COUNTRY_HEADER: "x-country" });
  assertEquals((await t.join({ "x-country": "RU" })).status, 403);
  assertEquals(
    (await t.join({ "cf-ipcountry": "RU" })).status,
    200,
    "the default header is ignored",
  );
  for (const a of [t.fast, t.hono]) {
    await saveBypass(a.kv, a.clock, "203.0.113.7");
    a.services.access.rules.invalidate();
  }
  const listed = await t.join({ "x-country": "RU" }, "203.0.113.7");
  assertEquals([listed.status, listed.json.entered], [200, true]);
  t.close();
});

Deno.test("geo-block: /wait shows a plain 403 page and joins nobody", async () => {
  const t = await blockingTwins();
  const page = await t.fast.fetch(
    new Request("http://localhost/wait", { headers: { "cf-ipcountry": "RU" } }),
    fromIp("198.51.100.1"),
  );
  assertEquals(page.status, 403);
  assert(page.headers.get("content-type")!.startsWith("text/html"));
  const html = await page.text();
  assert(html.includes("not available in your country"), html);
  assertEquals(setCookies(page), {}, "no ticket");
  const m = await t.fast.engine.metrics("default");
  assertEquals([m.waiting, m.holding, m.entered], [0, 0, 0]);
  const ok = await t.fast.fetch(
    new Request("http://localhost/wait", { headers: { "cf-ipcountry": "DE" } }),
    fromIp("198.51.100.2"),
  );
  assertEquals(ok.status, 303, "anyone else is let in (the room is empty)");
  t.close();
});

Deno.test("geo-block: expires at enabledAt + ttlHours on the injected clock", async () => {
  const t = await blockingTwins();
  const start = t.fast.clock.now();
  const advance = (ms: number) => [t.fast, t.hono].forEach((a) => a.clock.advance(ms));
  advance(2 * HOUR - 1);
  assertEquals((await t.join({ "cf-ipcountry": "RU" })).status, 403, "1 ms before the end");
  advance(1);
  assert([200, 202].includes((await t.join({ "cf-ipcountry": "RU" })).status), "at the end");
  const { client } = await adminClient({ ...t.fast, config: t.fast.services.config } as never);
  const view = (await client.req("GET", "/api/admin/geo-block")).json;
  assertEquals([view.enabled, view.active, view.expiresAt], [true, false, start + 2 * HOUR]);
  t.close();
});

Deno.test("geo-block: hits per country in the admin metrics; a new block counts afresh", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const save = (ttlHours = 24) =>
    client.req("PUT", "/api/admin/geo-block", { enabled: true, countriesText: "RU\nKP", ttlHours });
  await save();
  const join = async (cc: string) =>
    (await t.app.request("/join", {
      method: "POST",
      headers: { "content-type": "application/json", "cf-ipcountry": cc },
      body: JSON.stringify({ queue: "default" }),
    })).status;
  assertEquals(await Promise.all(["RU", "ru", "KP", "RU", "DE"].map(join)), [
    403,
    403,
    403,
    403,
    200,
  ]);
  const metrics = await client.req("GET", "/api/admin/metrics");
  assertEquals(metrics.json.geoBlock.hits, { KP: 1, RU: 3 });
  assertEquals([metrics.json.geoBlock.active, metrics.json.geoBlock.countries], [true, [
    "KP",
    "RU",
  ]]);
  assertEquals(metrics.json.geoBlock.expiresAt, t.clock.now() + 24 * HOUR);
  t.clock.advance(1000);
  await save(48);
  assertEquals((await client.req("GET", "/api/admin/metrics")).json.geoBlock.hits, {});
  assertEquals(await join("KP"), 403);
  assertEquals((await client.req("GET", "/api/admin/geo-block")).json.hits, { KP: 1 });
  t.close();
});

Deno.test("geo-block: deleting its one key (edge IP geolocation off) lifts the block", async () => {
  const t = await blockingTwins();
  assertEquals((await t.join({ "cf-ipcountry": "RU" })).status, 403);
  for (const a of [t.fast, t.hono]) {
    await a.kv.delete(keys.geoBlock());
    a.clock.advance(1000); // other instances see it within a second
  }
  assert([200, 202].includes((await t.join({ "cf-ipcountry": "RU" })).status));
  t.close();
});
