import { liveEdgeFrom, pendingEdgeMissing } from "../lib/edge/state.ts";
import { readPending, unsealToken } from "../lib/edge/store.ts";
import { assert, assertEquals } from "./assert.ts";
import { addDns, edgeApp, kvText, ORIGIN_IP, runSetup, TOKEN, TOKEN2 } from "./edge_helpers.ts";

// The setup wizard's edge steps (setup/edge/*) against the fake Cloudflare.

Deno.test("edge setup: every step succeeds, in order, and leaves a complete pending record", async () => {
  const e = await edgeApp();
  try {
    const tok = await e.client.req("POST", "/api/admin/setup/edge/token-verify", { token: TOKEN });
    assertEquals(tok.status, 200);
    assertEquals([tok.json.tokenVerified, tok.json.token.status, tok.json.complete], [
      true,
      "active",
      false,
    ]);
    assertEquals(e.cf.writes(), [], "token-verify writes nothing to the zone");
    const p1 = await readPending(e.t.kv);
    assertEquals(await unsealToken(e.t.config.TOKEN_SECRET, p1!.sealedToken), TOKEN);
    assertEquals(p1!.tokenVerifiedAt, e.t.clock.now());

    const ver = await e.client.req("POST", "/api/admin/setup/edge/verify", {
      zone: "Example.COM",
      hostname: "queue.example.com.",
    });
    assertEquals(ver.status, 200, ver.text);
    assertEquals(
      [
        ver.json.zoneId,
        ver.json.zoneName,
        ver.json.accountId,
        ver.json.hostname,
        ver.json.zoneStatus,
      ],
      [e.zone.id, "example.com", e.zone.accountId, "queue.example.com", "active"],
    );
    assertEquals(ver.json.records, [
      { type: "A", name: "queue.example.com", content: ORIGIN_IP, proxied: false },
    ]);
    assertEquals(e.cf.writes(), [], "verify writes nothing to the zone");

    const fix = await e.client.req("POST", "/api/admin/setup/edge/fix"); // no body needed
    assertEquals(fix.status, 200, fix.text);
    assertEquals(fix.json.dns.changed.map((r: { proxied: boolean }) => r.proxied), [true]);
    assertEquals(fix.json.ipGeolocation, { value: "on", changed: true });
    assertEquals(e.cf.recordsOf("queue.example.com")[0].proxied, true);
    assertEquals(e.zone.settings.ip_geolocation, "on");

    const ssl = await e.client.req("PUT", "/api/admin/setup/edge/ssl", { mode: "strict" });
    assertEquals([ssl.status, ssl.json.sslMode, ssl.json.changed], [200, "strict", true]);
    assertEquals(e.zone.settings.ssl, "strict");

    const view = await e.client.req("GET", "/api/admin/setup/edge");
    assertEquals([view.json.complete, view.json.missing, view.json.fixed, view.json.ssl], [
      true,
      [],
      true,
      "strict",
    ]);
    const p = (await readPending(e.t.kv))!;
    assertEquals(pendingEdgeMissing(p), []);
    const live = liveEdgeFrom(p, e.t.clock.now());
    assertEquals([live.zoneId, live.accountId, live.hostname, live.ssl], [
      e.zone.id,
      e.zone.accountId,
      "queue.example.com",
      "strict",
    ]);
    const audit = await e.client.req("GET", "/api/admin/audit");
    const actions = JSON.stringify(audit.json);
    for (const a of ["edge.setup.token", "edge.setup.verify", "edge.setup.fix", "edge.setup.ssl"]) {
      assert(actions.includes(a), `audit lacks ${a}`);
    }
  } finally {
    await e.close();
  }
});

Deno.test("edge setup: repeating every step is safe and writes nothing more to Cloudflare", async () => {
  const e = await edgeApp();
  try {
    await runSetup(e.client);
    const writes = e.cf.writes().length;
    const before = await readPending(e.t.kv);
    const again = await e.client.req("POST", "/api/admin/setup/edge/token-verify", {
      token: TOKEN,
    });
    assertEquals([again.json.keptLaterSteps, again.json.complete], [true, true]);
    await runSetup(e.client);
    assertEquals(e.cf.writes().length, writes, "already proxied, on and strict: no PATCH");
    const after = (await readPending(e.t.kv))!;
    assertEquals(after.sealedToken, before!.sealedToken, "same token: not resealed");
    assertEquals(pendingEdgeMissing(after), []);
  } finally {
    await e.close();
  }
});

Deno.test("edge setup: a new token starts over; a new hostname or zone drops what was done for the old one", async () => {
  const e = await edgeApp();
  try {
    await runSetup(e.client);
    const dom = await e.client.req("POST", "/api/admin/setup/edge/attach-domain", {
      domain: "www.example.com",
    });
    assertEquals(dom.status, 200, dom.text);
    addDns(e.cf, "CNAME", "edge.example.com", "origin.example.net", true);
    const host = await e.client.req("POST", "/api/admin/setup/edge/verify", {
      zone: "example.com",
      hostname: "edge.example.com",
    });
    assertEquals([host.json.fixed, host.json.ssl, host.json.domains], [false, "strict", []]);
    assertEquals(host.json.missing, ["edge fix"]);

    const other = e.cf.addZone("example.org");
    const zone = await e.client.req("POST", "/api/admin/setup/edge/verify", {
      zone: "example.org",
      hostname: "q.example.org",
    });
    assertEquals([zone.json.zoneId, zone.json.ssl, zone.json.missing], [
      other.id,
      null,
      ["edge fix", "edge ssl"],
    ]);

    e.cf.addToken(TOKEN2);
    const fresh = await e.client.req("POST", "/api/admin/setup/edge/token-verify", {
      token: TOKEN2,
    });
    assertEquals([fresh.status, fresh.json.keptLaterSteps, fresh.json.zoneName], [
      200,
      false,
      null,
    ]);
    assertEquals(fresh.json.missing, ["edge zone", "edge fix", "edge ssl"]);
    const p = (await readPending(e.t.kv))!;
    assertEquals(await unsealToken(e.t.config.TOKEN_SECRET, p.sealedToken), TOKEN2);
  } finally {
    await e.close();
  }
});

Deno.test("edge setup: a step before its turn answers 409 naming the step to do, and changes nothing", async () => {
  const e = await edgeApp();
  try {
    const cases: [string, string, unknown, string][] = [
      [
        "POST",
        "/api/admin/setup/edge/verify",
        { zone: "example.com", hostname: "q.example.com" },
        "token",
      ],
      ["POST", "/api/admin/setup/edge/fix", {}, "token"],
      ["PUT", "/api/admin/setup/edge/ssl", { skip: true }, "token"],
      ["POST", "/api/admin/setup/edge/attach-domain", { domain: "www.example.com" }, "token"],
    ];
    for (const [m, p, b, word] of cases) {
      const r = await e.client.req(m, p, b);
      assertEquals([r.status, r.json.error.code, r.json.error.details.reason], [
        409,
        "conflict",
        "step_missing",
      ], p);
      assert(r.json.error.message.includes(word), r.json.error.message);
    }
    await e.client.req("POST", "/api/admin/setup/edge/token-verify", { token: TOKEN });
    for (const p of ["/api/admin/setup/edge/fix", "/api/admin/setup/edge/attach-domain"]) {
      const r = await e.client.req("POST", p, { domain: "www.example.com" });
      assertEquals([r.status, r.json.error.details.reason], [409, "step_missing"], p);
      assert(r.json.error.message.includes("verify the zone"), r.json.error.message);
    }
    assertEquals(e.cf.writes(), []);
    assertEquals((await readPending(e.t.kv))!.zoneId, undefined);
  } finally {
    await e.close();
  }
});

Deno.test("edge setup: bad input is 400 bad_request and reaches neither Cloudflare nor the store", async () => {
  const e = await edgeApp();
  try {
    await e.client.req("POST", "/api/admin/setup/edge/token-verify", { token: TOKEN });
    const calls = e.cf.log.length;
    const before = await kvText(e.t.kv);
    const cases: [string, string, unknown, string][] = [
      ["POST", "/api/admin/setup/edge/token-verify", { token: "has a space" }, "token"],
      ["POST", "/api/admin/setup/edge/token-verify", {}, "token"],
      ["POST", "/api/admin/setup/edge/token-verify", { token: "short" }, "token"],
      [
        "POST",
        "/api/admin/setup/edge/token-verify",
        { token: `cfk_${"a".repeat(40)}0badf00d` },
        "token",
      ],
      [
        "POST",
        "/api/admin/setup/edge/token-verify",
        { token: `cfat_${"a".repeat(40)}0badf00d` },
        "token",
      ],
      [
        "POST",
        "/api/admin/setup/edge/verify",
        { zone: "not a zone", hostname: "q.example.com" },
        "zone",
      ],
      [
        "POST",
        "/api/admin/setup/edge/verify",
        { zone: "example.com", hostname: "q.other.com" },
        "hostname",
      ],
      ["POST", "/api/admin/setup/edge/fix", { target: "http://x" }, "target"],
      ["PUT", "/api/admin/setup/edge/ssl", { mode: "flexible" }, ""],
      ["POST", "/api/admin/setup/edge/attach-domain", { domain: "-bad-.com" }, "domain"],
    ];
    for (const [m, p, b, field] of cases) {
      const r = await e.client.req(m, p, b);
      assertEquals(
        [r.status, r.json.error.code],
        [400, "bad_request"],
        `${p} ${JSON.stringify(b)}`,
      );
      if (field) {
        assert(
          r.json.error.details.fields.some((f: { path: string }) => f.path.startsWith(field)),
          JSON.stringify(r.json.error),
        );
      }
    }
    assertEquals(e.cf.log.length, calls, "no call reached Cloudflare");
    assertEquals(await kvText(e.t.kv), before);
  } finally {
    await e.close();
  }
});

Deno.test("edge setup: fix without a DNS record says so in words; with a target it creates a proxied one", async () => {
  const e = await edgeApp();
  try {
    e.cf.records.length = 0;
    await e.client.req("POST", "/api/admin/setup/edge/token-verify", { token: TOKEN });
    await e.client.req("POST", "/api/admin/setup/edge/verify", {
      zone: "example.com",
      hostname: "queue.example.com",
    });
    const r = await e.client.req("POST", "/api/admin/setup/edge/fix", {});
    assertEquals([r.status, r.json.error.code, r.json.error.details.reason], [
      409,
      "conflict",
      "no_dns_record",
    ]);
    assert(r.json.error.message.includes("no A, AAAA or CNAME record for queue.example.com"));
    assert(r.json.error.message.includes('"target"'), "says how to have it created");
    assertEquals(e.cf.writes(), []);
    assertEquals((await readPending(e.t.kv))!.fixedAt, undefined);

    const made = await e.client.req("POST", "/api/admin/setup/edge/fix", {
      target: "198.51.100.4",
    });
    assertEquals(made.status, 200, made.text);
    assertEquals(made.json.dns.created, {
      type: "A",
      name: "queue.example.com",
      content: "198.51.100.4",
      proxied: true,
    });
    assertEquals(e.cf.recordsOf("queue.example.com").map((x) => [x.type, x.proxied]), [[
      "A",
      true,
    ]]);
    assertEquals(made.json.fixed, true);
    // Once a record exists, a target is not used again (nothing is replaced).
    const again = await e.client.req("POST", "/api/admin/setup/edge/fix", {
      target: "2001:db8::1",
    });
    assertEquals([again.status, again.json.dns.created], [200, null]);
    assertEquals(e.cf.recordsOf("queue.example.com").length, 1);
  } finally {
    await e.close();
  }
});

Deno.test("edge setup: ssl can be skipped (no call to Cloudflare)", async () => {
  const e = await edgeApp();
  try {
    await e.client.req("POST", "/api/admin/setup/edge/token-verify", { token: TOKEN });
    const calls = e.cf.log.length;
    const r = await e.client.req("PUT", "/api/admin/setup/edge/ssl", { skip: true });
    assertEquals([r.status, r.json.ssl, r.json.sslMode], [200, "skipped", null]);
    assertEquals(e.cf.log.length, calls);
    assertEquals(e.zone.settings.ssl, "full");
  } finally {
    await e.close();
  }
});
