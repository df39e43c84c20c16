/**
 * Path rules: validation (bad patterns, routes to nowhere, rules an earlier one shadows: 400 and
 * nothing stored), matching (first match wins; every spelling of a path must match a bypass),
 * the admin API with its audit entry, and each kind of rule through the origin proxy and the
 * forward-auth checks of the served handler.
 */
import { assert, assertEquals, assertThrows } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { Client, makeApp } from "./helpers.ts";
import { startOrigin, tokenFor } from "./origin_helpers.ts";
import { compileRules, matchRules, type PathRule } from "../lib/paths/rules.ts";
import { BadRequestError } from "../lib/errors.ts";

const rule = (
  match: PathRule["match"],
  pattern: string,
  action: PathRule["action"] = "bypass",
  queue?: string,
): PathRule => queue ? { match, pattern, action, queue } : { match, pattern, action };

function fieldsOf(rules: PathRule[], queues = ["default", "tickets"]): string[] {
  try {
    compileRules(rules, "default", queues);
    return [];
  } catch (e) {
    assert(e instanceof BadRequestError);
    return (e.details.fields as { path: string }[]).map((f) => f.path);
  }
}

Deno.test("bad rules are named one by one", () => {
  assertEquals(fieldsOf([rule("path", "no-slash")]), ["rules.0.pattern"]);
  assertEquals(fieldsOf([rule("path", "/a/../b")]), ["rules.0.pattern"]);
  assertEquals(fieldsOf([rule("path", "/a b")]), ["rules.0.pattern"]);
  assertEquals(fieldsOf([rule("asset", "css,.j s")]), ["rules.0.pattern"]);
  assertEquals(fieldsOf([rule("query", "a b")]), ["rules.0.pattern"]);
  assertEquals(fieldsOf([rule("query", "accessToken")]), ["rules.0.pattern"]);
  assertEquals(fieldsOf([rule("address", "10.0.0.0/33")]), ["rules.0.pattern"]);
  assertEquals(fieldsOf([rule("path", "/t/**", "route")]), ["rules.0.queue"]);
  assertEquals(fieldsOf([rule("path", "/t/**", "route", "nope")]), ["rules.0.queue"]);
  assertEquals(fieldsOf([rule("path", "/t/**", "route", "default")]), ["rules.0.queue"]);
  assertEquals(fieldsOf([{ ...rule("path", "/t/**"), queue: "tickets" }]), ["rules.0.queue"]);
  assertEquals(fieldsOf([rule("path", "/ok"), rule("path", "bad")]), ["rules.1.pattern"]);
});

Deno.test("overlapping rules: one an earlier rule always shadows is refused", () => {
  assertEquals(fieldsOf([rule("path", "/a"), rule("path", "/a", "queue")]), ["rules.1.pattern"]);
  assertEquals(fieldsOf([rule("path", "/api/**"), rule("path", "/api/hooks")]), [
    "rules.1.pattern",
  ]);
  assertEquals(fieldsOf([rule("path", "/api/**"), rule("path", "/api/*/x")]), ["rules.1.pattern"]);
  assertEquals(fieldsOf([rule("asset", "css,js,png"), rule("asset", "js")]), ["rules.1.pattern"]);
  assertEquals(fieldsOf([rule("query", "preview"), rule("query", "preview=1")]), [
    "rules.1.pattern",
  ]);
  assertEquals(fieldsOf([rule("address", "10.0.0.0/8"), rule("address", "10.1.2.3")]), [
    "rules.1.pattern",
  ]);
  // A narrower rule first is what the ordered list is for: allowed.
  assertEquals(
    fieldsOf([rule("path", "/api/hooks"), rule("path", "/api/**", "route", "tickets")]),
    [],
  );
  assertEquals(fieldsOf([rule("path", "/a/*"), rule("path", "/a/**", "queue")]), []);
});

Deno.test("first match wins; a bypass must match every spelling of the path", () => {
  const set = compileRules([
    rule("path", "/static/**"),
    rule("asset", "css,JS"),
    rule("query", "preview=1"),
    rule("address", "203.0.113.0/24"),
    rule("path", "/tickets/**", "route", "tickets"),
  ], "default");
  const m = (path: string, query = "", ip = "198.51.100.1") =>
    matchRules(set, { path, query, ip })?.index ?? null;
  assertEquals(m("/static/a/b.png"), 0);
  assertEquals(m("/static/..%2Fcheckout"), null, "routed as /checkout by some origins");
  assertEquals(m("/x/app.CSS"), 1);
  assertEquals(m("/x/app.js"), 1);
  assertEquals(m("/x/.css"), null);
  assertEquals(m("/shop", "a=2&preview=1"), 2);
  assertEquals(m("/shop", "preview=2"), null);
  assertEquals(m("/shop", "", "203.0.113.77"), 3);
  // The first match wins: an asset under /tickets/ is the asset rule's, the rest is routed.
  assertEquals(m("/tickets/app.css"), 1);
  assertEquals(matchRules(set, { path: "/tickets/faq", query: "", ip: "1.1.1.1" }), {
    action: "route",
    queue: "tickets",
    index: 4,
  });
  assertEquals(m("/shop"), null);
  assertThrows(() => compileRules(Array(101).fill(rule("path", "/x")), "default"));
});

Deno.test("the admin API stores the rules in order, audits them, refuses bad ones unchanged", async () => {
  const t = await makeApp({ QUEUES: ["default", "tickets"] });
  try {
    const { client: admin } = await adminClient(t);
    const rules = [rule("asset", "css,js"), rule("path", "/tickets/**", "route", "tickets")];
    const put = await admin.req("PUT", "/api/admin/path-rules", { queue: "default", rules });
    assertEquals(put.status, 200, put.text);
    assertEquals(put.json.rules, rules);
    const bad = await admin.req("PUT", "/api/admin/path-rules", {
      rules: [rule("path", "/a/**"), rule("path", "/a/b")],
    });
    assertEquals(bad.status, 400);
    assert(bad.json.error.message.includes("rules.1.pattern"), bad.json.error.message);
    const unknownKind = await admin.req("PUT", "/api/admin/path-rules", {
      rules: [{ match: "header", pattern: "x", action: "bypass" }],
    });
    assertEquals(unknownKind.status, 400);
    assertEquals((await admin.req("GET", "/api/admin/path-rules")).json.rules, rules);
    const audit = await admin.req("GET", "/api/admin/audit");
    const mine = audit.json.entries.filter((e: { action: string }) =>
      e.action === "queue.path-rules"
    );
    assertEquals(mine.length, 1);
    assertEquals(mine[0].detail.rules, [
      "asset:css,js -> bypass",
      "path:/tickets/** -> route tickets",
    ]);
  } finally {
    t.close();
  }
});

Deno.test("each kind of rule through the origin proxy and the forward-auth checks", async () => {
  const origin = startOrigin();
  const t = await makeApp({ ORIGIN_URL: origin.url, QUEUES: ["default", "tickets"] });
  try {
    await t.services.paths.save("default", [
      rule("path", "/healthz"),
      rule("asset", "css,js"),
      rule("query", "webhook=stripe"),
      rule("address", "127.0.0.1"),
      rule("path", "/tickets/**", "route", "tickets"),
    ], ["default", "tickets"]);
    const get = (path: string, headers: Record<string, string> = {}, ip?: string) =>
      t.fetch(
        new Request(`http://localhost${path}`, { headers }),
        ip ? infoFor(ip) : infoFor("198.51.100.1"),
      );
    const pass = async (path: string, ip?: string) => {
      const res = await get(path, {}, ip);
      assertEquals(res.status, 200, `${path} passes`);
      assertEquals((await res.json()).path, path);
    };
    await pass("/healthz");
    await pass("/assets/app.css");
    await pass("/hooks?webhook=stripe");
    await pass("/shop", "127.0.0.1");
    const queued = await get("/shop");
    assertEquals([queued.status, queued.headers.get("location")], [302, "/wait?return=%2Fshop"]);
    const routed = await get("/tickets/a?seat=1");
    assertEquals(
      routed.headers.get("location"),
      "/wait?queue=tickets&return=%2Ftickets%2Fa%3Fseat%3D1",
    );
    // A routed path needs its own queue's token; the default queue's does not open it.
    const dflt = await tokenFor(t, "default", 600);
    const tick = await tokenFor(t, "tickets", 600);
    assertEquals((await get("/tickets/a", { authorization: `Bearer ${dflt}` })).status, 302);
    const ok = await get("/tickets/a", { authorization: `Bearer ${tick}` });
    assertEquals(ok.status, 200);
    await ok.body?.cancel();

    // Once a part of the site is routed to another queue, that queue's token opens only that
    // part: the rest waits in the default queue's line (a tickets token opened /shop).
    const shop = await get("/shop", { authorization: `Bearer ${tick}` });
    assertEquals([shop.status, shop.headers.get("location")], [302, "/wait?return=%2Fshop"]);
    const mine = await get("/shop", { authorization: `Bearer ${dflt}` });
    assertEquals(mine.status, 200);
    await mine.body?.cancel();
    const shopCheck = await t.fetch(
      new Request("http://localhost/verify/auth-request", {
        headers: { "x-original-uri": "/shop", authorization: `Bearer ${tick}` },
      }),
      infoFor("198.51.100.1"),
    );
    assertEquals(shopCheck.status, 401, "the checks say the same");

    // The checks decide the same from the original URI.
    const check = (uri: string, ip = "198.51.100.1") =>
      t.fetch(
        new Request("http://localhost/verify/auth-request", { headers: { "x-original-uri": uri } }),
        infoFor(ip),
      );
    for (const uri of ["/healthz", "/x/app.js", "/h?webhook=stripe"]) {
      const res = await check(uri);
      assertEquals([res.status, res.headers.get("x-tollgate-pass")], [204, "bypass"], uri);
    }
    assertEquals((await check("/shop", "127.0.0.1")).status, 204);
    const denied = await check("/shop");
    assertEquals(denied.status, 401);
    assertEquals(denied.headers.get("location"), "/wait?return=%2Fshop");
    const toTickets = await check("/tickets/x");
    assertEquals(toTickets.headers.get("location"), "/wait?queue=tickets&return=%2Ftickets%2Fx");
    // And the waiting room the route names is that queue's.
    const v = new Client(t.app);
    await v.req("GET", "/wait?queue=tickets&return=%2Ftickets%2Fx");
    assertEquals(v.ticketClaims.queue, "tickets");
  } finally {
    t.close();
    await origin.close();
  }
});

Deno.test("/robots.txt reaches the site without a place unless a rule queues it", async () => {
  const origin = startOrigin();
  const t = await makeApp({ ORIGIN_URL: origin.url });
  try {
    const get = (path: string) =>
      t.fetch(new Request(`http://localhost${path}`), infoFor("198.51.100.1"));
    const check = (uri: string) =>
      t.fetch(
        new Request("http://localhost/verify/auth-request", { headers: { "x-original-uri": uri } }),
        infoFor("198.51.100.1"),
      );
    await t.engine.setPaused("default", true);
    // A crawler's fetch was sent to the waiting room (its page read as the site's robots rules).
    const robots = await get("/robots.txt");
    assertEquals([robots.status, (await robots.json()).path], [200, "/robots.txt"]);
    const checked = await check("/robots.txt");
    assertEquals([checked.status, checked.headers.get("x-tollgate-pass")], [204, "bypass"]);
    // Only that file: the rest of the site, and a robots file in a folder, wait.
    for (const path of ["/shop", "/x/robots.txt"]) {
      const res = await get(path);
      assertEquals(res.status, 302, path);
      await res.body?.cancel();
    }
    // An operator's rule queues it like any page.
    await t.services.paths.save("default", [rule("path", "/robots.txt", "queue")], ["default"]);
    const queued = await get("/robots.txt");
    assertEquals([queued.status, queued.headers.get("location")], [
      302,
      "/wait?return=%2Frobots.txt",
    ]);
    assertEquals((await check("/robots.txt")).status, 401);
    assertEquals((await t.engine.metrics("default")).waiting, 0, "no place taken by any of it");
  } finally {
    t.close();
    await origin.close();
  }
});

function infoFor(ip: string): Deno.ServeHandlerInfo {
  return {
    remoteAddr: { transport: "tcp", hostname: ip, port: 40000 },
    completed: Promise.resolve(),
  } as unknown as Deno.ServeHandlerInfo;
}
