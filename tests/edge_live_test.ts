import { readLink, unsealToken } from "../lib/edge/store.ts";
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import {
  edgeApp,
  kvText,
  kvWithoutAudit,
  linkedApp,
  LIVE_CONTROLS,
  TOKEN,
  TOKEN2,
} from "./edge_helpers.ts";

// The edge controls once the link is live (/api/admin/edge*).

Deno.test("edge controls without a linked zone: GET says so, the rest answer 409 edge_not_linked", async () => {
  const e = await edgeApp();
  try {
    const g = await e.client.req("GET", "/api/admin/edge");
    assertEquals([g.status, g.json], [200, { linked: false }]);
    for (const [m, p, b] of LIVE_CONTROLS) {
      const r = await e.client.req(m, p, b);
      assertEquals([r.status, r.json.error.code, r.json.error.details.reason], [
        409,
        "conflict",
        "edge_not_linked",
      ], `${m} ${p}`);
    }
    assertEquals(e.cf.log.length, 0);
  } finally {
    await e.close();
  }
});

Deno.test("edge controls: GET shows the link, never the token", async () => {
  const e = await linkedApp();
  try {
    const g = await e.client.req("GET", "/api/admin/edge");
    assertEquals(g.json, {
      linked: true,
      zoneId: e.zone.id,
      zoneName: "example.com",
      accountId: e.zone.accountId,
      hostname: "queue.example.com",
      ssl: "strict",
      domains: [],
      linkedAt: e.t.clock.now(),
      hasToken: true,
      tokenReadable: true,
    });
    assert(!g.text.includes(TOKEN));
  } finally {
    await e.close();
  }
});

Deno.test("PUT /api/admin/edge checks with Cloudflare before saving; a refusal saves nothing", async () => {
  const e = await linkedApp();
  try {
    await e.client.req("PUT", "/api/admin/edge/domains", { domain: "www.example.com" });
    const before = await kvWithoutAudit(e.t.kv);
    const bad = await e.client.req("PUT", "/api/admin/edge", {
      token: "Unknown000000000000000000000000000000000",
    });
    assertEquals([bad.status, bad.json.error.details.kind], [400, "bad_token"]);
    const gone = await e.client.req("PUT", "/api/admin/edge", {
      zone: "nothere.com",
      hostname: "q.nothere.com",
    });
    assertEquals([gone.status, gone.json.error.details.kind], [400, "not_found"]);
    const outside = await e.client.req("PUT", "/api/admin/edge", { hostname: "q.example.org" });
    assertEquals([outside.status, outside.json.error.code], [400, "bad_request"]);
    const empty = await e.client.req("PUT", "/api/admin/edge", {});
    assertEquals(empty.status, 400);
    assertEquals(await kvWithoutAudit(e.t.kv), before, "nothing saved");

    e.cf.addToken(TOKEN2);
    const tok = await e.client.req("PUT", "/api/admin/edge", { token: TOKEN2 });
    assertEquals([tok.status, tok.json.tokenReplaced, tok.json.domains], [200, true, [
      "www.example.com",
    ]]);
    const l = (await readLink(e.t.kv))!;
    assertEquals(await unsealToken(e.t.config.TOKEN_SECRET, l.sealedToken), TOKEN2);
    const audit = await e.client.req("GET", "/api/admin/audit");
    assert(audit.text.includes("edge.save") && audit.text.includes('"tokenReplaced":true'));
    for (const text of [tok.text, audit.text, await kvText(e.t.kv)]) assert(!text.includes(TOKEN2));

    const org = e.cf.addZone("example.org");
    const moved = await e.client.req("PUT", "/api/admin/edge", {
      zone: "example.org",
      hostname: "q.example.org",
    });
    assertEquals(moved.status, 200, moved.text);
    assertEquals(
      [
        moved.json.zoneId,
        moved.json.accountId,
        moved.json.ssl,
        moved.json.domains,
        moved.json.untrackedDomains,
      ],
      [org.id, org.accountId, "skipped", [], ["www.example.com"]],
    );
    assertEquals(moved.json.tokenReplaced, false);
  } finally {
    await e.close();
  }
});

Deno.test("PUT /api/admin/edge links a zone when none is linked, given zone, hostname and token", async () => {
  const e = await edgeApp();
  try {
    const part = await e.client.req("PUT", "/api/admin/edge", {
      zone: "example.com",
      token: TOKEN,
    });
    assertEquals([part.status, part.json.error.details.reason], [409, "edge_not_linked"]);
    const r = await e.client.req("PUT", "/api/admin/edge", {
      zone: "example.com",
      hostname: "queue.example.com",
      token: TOKEN,
    });
    assertEquals([r.status, r.json.linked, r.json.zoneId], [200, true, e.zone.id], r.text);
    assertEquals((await readLink(e.t.kv))!.linkedAt, e.t.clock.now());
  } finally {
    await e.close();
  }
});

Deno.test("edge check: one item per part, ok or the problem in words; it writes nothing", async () => {
  const e = await linkedApp();
  try {
    await e.client.req("PUT", "/api/admin/edge/domains", { domain: "www.example.com" });
    const good = await e.client.req("POST", "/api/admin/edge/check", {});
    assertEquals(good.status, 200, good.text);
    assertEquals(good.json.ok, true);
    assertEquals(good.json.items.map((i: { item: string }) => i.item), [
      "token",
      "zone",
      "dns",
      "ssl",
      "ip_geolocation",
      "domain:www.example.com",
    ]);

    e.zone.status = "pending";
    e.cf.recordsOf("queue.example.com")[0].proxied = false;
    e.zone.settings.ssl = "flexible";
    e.zone.settings.ip_geolocation = "off";
    e.cf.records.splice(e.cf.records.indexOf(e.cf.recordsOf("www.example.com")[0]), 1);
    const writes = e.cf.writes().length;
    const bad = await e.client.req("POST", "/api/admin/edge/check", {});
    assertEquals(bad.json.ok, false);
    const byItem = Object.fromEntries(
      bad.json.items.map((i: { item: string; ok: boolean; message: string }) => [i.item, i]),
    );
    assertEquals(byItem.token.ok, true);
    for (
      const [item, words] of [
        ["zone", "nameservers"],
        ["dns", "not proxied"],
        ["ssl", '"flexible"'],
        ["ip_geolocation", "country block"],
        ["domain:www.example.com", "no DNS record"],
      ]
    ) {
      assertEquals(byItem[item].ok, false, item);
      assert(byItem[item].message.includes(words), byItem[item].message);
    }
    assertEquals(e.cf.writes().length, writes);
  } finally {
    await e.close();
  }
});

Deno.test("edge fix-proxy: proxies the hostname and turns IP geolocation on; a repeat writes nothing", async () => {
  const e = await linkedApp();
  try {
    e.cf.recordsOf("queue.example.com")[0].proxied = false;
    e.zone.settings.ip_geolocation = "off";
    const r = await e.client.req("POST", "/api/admin/edge/fix-proxy");
    assertEquals(r.status, 200, r.text);
    assertEquals([r.json.dns.changed.length, r.json.ipGeolocation.changed], [1, true]);
    assertEquals([e.cf.recordsOf("queue.example.com")[0].proxied, e.zone.settings.ip_geolocation], [
      true,
      "on",
    ]);
    const writes = e.cf.writes().length;
    const again = await e.client.req("POST", "/api/admin/edge/fix-proxy", {});
    assertEquals([again.status, again.json.dns.changed, again.json.ipGeolocation.changed], [
      200,
      [],
      false,
    ]);
    assertEquals(e.cf.writes().length, writes);
  } finally {
    await e.close();
  }
});

Deno.test("edge IP geolocation: off clears the country block once Cloudflare accepted; a refusal keeps it", async () => {
  const e = await linkedApp();
  try {
    const put = await e.client.req("PUT", "/api/admin/geo-block", {
      enabled: true,
      countriesText: "RU",
      ttlHours: 2,
    });
    assertEquals(put.status, 200, put.text);
    const block = (await e.t.kv.get(keys.geoBlock())).value;
    const join = () =>
      e.t.app.request("/join", {
        method: "POST",
        headers: { "content-type": "application/json", "cf-ipcountry": "RU" },
        body: JSON.stringify({ queue: "default" }),
      });
    assertEquals((await join()).status, 403, "blocked (and the rules are now cached)");
    e.cf.fail({ status: 429, code: 971, message: "Please wait", retryAfter: 12 });
    const limited = await e.client.req("PUT", "/api/admin/edge/ip-geolocation", { enabled: false });
    assertEquals([limited.status, limited.headers.get("retry-after")], [429, "12"]);
    assertEquals((await e.t.kv.get(keys.geoBlock())).value, block, "kept: Cloudflare refused");
    assertEquals(e.zone.settings.ip_geolocation, "on");

    const on = await e.client.req("PUT", "/api/admin/edge/ip-geolocation", { enabled: true });
    assertEquals(on.json, { enabled: true, changed: false, countryBlockCleared: false });
    assertEquals((await e.t.kv.get(keys.geoBlock())).value, block, "turning it on keeps the block");

    const off = await e.client.req("PUT", "/api/admin/edge/ip-geolocation", { enabled: false });
    assertEquals(off.json, { enabled: false, changed: true, countryBlockCleared: true });
    assertEquals(e.zone.settings.ip_geolocation, "off");
    assertEquals((await e.t.kv.get(keys.geoBlock())).value, null);
    // At once on this instance: the cached rules must not keep blocking (same clock instant).
    assert([200, 202].includes((await join()).status), "no longer blocked");
    const bad = await e.client.req("PUT", "/api/admin/edge/ip-geolocation", { enabled: "no" });
    assertEquals(bad.status, 400);
  } finally {
    await e.close();
  }
});

Deno.test("edge ssl: sets Full (strict) and records it on the link", async () => {
  const e = await edgeApp();
  try {
    await e.client.req("PUT", "/api/admin/edge", {
      zone: "example.com",
      hostname: "queue.example.com",
      token: TOKEN,
    });
    assertEquals((await readLink(e.t.kv))!.ssl, "skipped");
    const r = await e.client.req("PUT", "/api/admin/edge/ssl");
    assertEquals([r.status, r.json.sslMode, r.json.changed, r.json.edge.ssl], [
      200,
      "strict",
      true,
      "strict",
    ]);
    assertEquals([e.zone.settings.ssl, (await readLink(e.t.kv))!.ssl], ["strict", "strict"]);
    const again = await e.client.req("PUT", "/api/admin/edge/ssl", { mode: "strict" });
    assertEquals([again.status, again.json.changed], [200, false]);
  } finally {
    await e.close();
  }
});
