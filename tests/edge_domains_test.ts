import { readPending } from "../lib/edge/store.ts";
import { assert, assertEquals } from "./assert.ts";
import { addDns, edgeApp, linkedApp, runSetup } from "./edge_helpers.ts";

// Custom domains: a proxied CNAME domain -> hostname, during setup and once live.

Deno.test("edge setup: attach-domain makes a proxied CNAME, repeats safely, never overwrites a record", async () => {
  const e = await edgeApp();
  try {
    await runSetup(e.client);
    const attach = (domain: string) =>
      e.client.req("POST", "/api/admin/setup/edge/attach-domain", { domain });
    const a = await attach("www.example.com");
    assertEquals([a.status, a.json.attached.created], [200, true], a.text);
    assertEquals(e.cf.recordsOf("www.example.com").map((r) => [r.type, r.content, r.proxied]), [[
      "CNAME",
      "queue.example.com",
      true,
    ]]);
    const writes = e.cf.writes().length;
    const b = await attach("WWW.example.com");
    assertEquals([b.status, b.json.attached.created, b.json.attached.changed], [200, false, false]);
    assertEquals(e.cf.writes().length, writes);
    assertEquals(b.json.domains, ["www.example.com"]);

    addDns(e.cf, "CNAME", "shop.example.com", "queue.example.com");
    const c = await attach("shop.example.com");
    assertEquals([c.json.attached.created, c.json.attached.changed], [false, true]);
    assertEquals(e.cf.recordsOf("shop.example.com")[0].proxied, true);

    addDns(e.cf, "A", "blog.example.com", "192.0.2.10");
    const taken = await attach("blog.example.com");
    assertEquals([taken.status, taken.json.error.details.reason], [409, "domain_in_use"]);
    assert(taken.json.error.message.includes("192.0.2.10"), taken.json.error.message);
    assertEquals(e.cf.recordsOf("blog.example.com").map((r) => r.type), ["A"]);

    for (const bad of ["www.example.org", "queue.example.com"]) {
      const r = await attach(bad);
      assertEquals([r.status, r.json.error.code], [400, "bad_request"], bad);
    }
    assertEquals((await readPending(e.t.kv))!.domains, ["www.example.com", "shop.example.com"]);
  } finally {
    await e.close();
  }
});

Deno.test("edge domains: list, attach and detach (body or ?domain=), all repeatable", async () => {
  const e = await linkedApp();
  try {
    const put = await e.client.req("PUT", "/api/admin/edge/domains", { domain: "www.example.com" });
    assertEquals([put.status, put.json.attached.created, put.json.domains], [200, true, [
      "www.example.com",
    ]]);
    const again = await e.client.req("PUT", "/api/admin/edge/domains", {
      domain: "www.example.com",
    });
    assertEquals([again.json.attached.created, again.json.domains], [false, ["www.example.com"]]);
    addDns(e.cf, "A", "old.example.com", "192.0.2.9");
    const taken = await e.client.req("PUT", "/api/admin/edge/domains", {
      domain: "old.example.com",
    });
    assertEquals([taken.status, taken.json.error.details.reason], [409, "domain_in_use"]);

    const list = await e.client.req("GET", "/api/admin/edge/domains");
    assertEquals(list.json, {
      hostname: "queue.example.com",
      zoneName: "example.com",
      domains: [{
        domain: "www.example.com",
        state: "ok",
        ok: true,
        message: "www.example.com is a proxied CNAME to queue.example.com",
      }],
    });

    const del = await e.client.req("DELETE", "/api/admin/edge/domains?domain=www.example.com");
    assertEquals([del.status, del.json.detached, del.json.deleted, del.json.domains], [
      200,
      true,
      true,
      [],
    ]);
    assertEquals(e.cf.recordsOf("www.example.com"), []);
    const twice = await e.client.req("DELETE", "/api/admin/edge/domains", {
      domain: "www.example.com",
    });
    assertEquals([twice.status, twice.json.detached, twice.json.deleted], [200, false, false]);
    // Detaching a name whose record points elsewhere deletes nothing.
    const other = await e.client.req("DELETE", "/api/admin/edge/domains", {
      domain: "old.example.com",
    });
    assertEquals([other.json.deleted, other.json.leftAlone.length], [false, 1]);
    assertEquals(e.cf.recordsOf("old.example.com").length, 1);
    const none = await e.client.req("DELETE", "/api/admin/edge/domains");
    assertEquals([none.status, none.json.error.code], [400, "bad_request"]);
    const outside = await e.client.req("DELETE", "/api/admin/edge/domains?domain=www.example.org");
    assertEquals(outside.status, 400);
  } finally {
    await e.close();
  }
});
