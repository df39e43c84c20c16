/**
 * What the forward-auth examples rely on beyond plain checks: each proxy check reads only the
 * headers its proxy sets, `?queue=` names its waiting room, `VERIFY_TOKEN_IN_QUERY=0`, and
 * `BASE_PATH` (Tollgate's paths under a prefix, through the served `fetch`, links included).
 */
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";
import { stripBasePath } from "../lib/base_path.ts";
import { withProxyChecks } from "../routes/proxy_check.ts";

const get = (t: TestApp, path: string, headers: Record<string, string> = {}) =>
  t.fetch(new Request(`http://tollgate.test${path}`, { headers }));

Deno.test("proxy checks read only the headers their proxy sets: a client's other copy is ignored", async () => {
  const t = await makeApp();
  // nginx passes the client's headers on to the check: only X-Original-URI (set by nginx) counts.
  let r = await get(t, "/verify/auth-request", { "x-forwarded-uri": "/evil" });
  assertEquals(r.headers.get("location"), "/wait?return=%2F");
  r = await get(t, "/verify/auth-request", {
    "x-forwarded-uri": "/evil",
    "x-forwarded-method": "POST",
    "x-original-uri": "/shop",
  });
  assertEquals(r.headers.get("location"), "/wait?return=%2Fshop");
  // Caddy and Traefik set X-Forwarded-Uri/-Method themselves: X-Original-* is not theirs.
  r = await get(t, "/verify/forward-auth", { "x-original-uri": "/evil" });
  assertEquals([r.status, r.headers.get("location")], [302, "/wait?return=%2F"]);
  r = await get(t, "/verify/forward-auth", {
    "x-original-method": "POST",
    "x-forwarded-uri": "/a",
  });
  assertEquals(r.status, 302, "the method is X-Forwarded-Method's too");
  t.close();
});

Deno.test("proxy checks with ?queue= send the visitor to that queue's waiting room", async () => {
  const t = await makeApp({ QUEUES: ["default", "tickets"] });
  let r = await get(t, "/verify/auth-request?queue=tickets", { "x-original-uri": "/tickets/4" });
  assertEquals(r.headers.get("location"), "/wait?queue=tickets&return=%2Ftickets%2F4");
  r = await get(t, "/verify/forward-auth?queue=tickets", {
    "x-forwarded-uri": "//evil",
    "x-forwarded-method": "PUT",
  });
  assertEquals((await r.json()).error.details.waitUrl, "/wait?queue=tickets");
  const token = await t.services.signer.signAccessToken("v-tickets1", "tickets", t.clock.now(), 60);
  r = await get(t, "/verify/auth-request?queue=tickets", { cookie: `tg_access=${token}` });
  assertEquals([r.status, r.headers.get("x-tollgate-queue")], [204, "tickets"]);
  r = await get(t, "/verify/auth-request?queue=default", { cookie: `tg_access=${token}` });
  assertEquals(r.status, 401, "another queue's token");
  t.close();
});

Deno.test("VERIFY_TOKEN_IN_QUERY=0: every check admits by cookie or Authorization only", async () => {
  const t = await makeApp({ VERIFY_TOKEN_IN_QUERY: false });
  const token = await t.services.signer.signAccessToken("visitor-nq", "default", t.clock.now(), 60);
  assertEquals((await get(t, `/verify?accessToken=${token}`)).status, 401);
  assertEquals((await get(t, "/verify", { cookie: `tg_access=${token}` })).status, 204);
  assertEquals((await get(t, "/verify", { authorization: `Bearer ${token}` })).status, 204);
  let r = await get(t, "/verify/auth-request", { "x-original-uri": `/a?b=1&accessToken=${token}` });
  assertEquals(r.status, 401);
  // Refused, and still not echoed into the return path.
  assertEquals(r.headers.get("location"), "/wait?return=%2Fa%3Fb%3D1");
  r = await get(t, "/verify/forward-auth", { "x-forwarded-uri": `/a?accessToken=${token}` });
  assertEquals(r.status, 302);
  r = await get(t, "/verify/forward-auth", {
    "x-forwarded-uri": `/a?accessToken=${token}`,
    cookie: `tg_access=${token}`,
  });
  assertEquals(r.status, 204);
  t.close();
});

Deno.test("stripBasePath: only the prefix followed by one of Tollgate's paths is taken off", async () => {
  const base = "/_tollgate";
  const at = (url: string, init?: RequestInit) => stripBasePath(base, new Request(url, init)).url;
  assertEquals(at("http://h/_tollgate/wait?return=%2Fx"), "http://h/wait?return=%2Fx");
  assertEquals(at("http://h/_tollgate/api/admin/state"), "http://h/api/admin/state");
  assertEquals(at("http://h/_tollgate/static/build/a.js"), "http://h/static/build/a.js");
  // Not ours under the prefix, not the prefix at all, or a longer name: untouched.
  for (const u of ["http://h/_tollgate/shop", "http://h/_tollgate", "http://h/_tollgatex/wait"]) {
    assertEquals(at(u), u);
  }
  const posted = stripBasePath(
    base,
    new Request("http://h/_tollgate/join", { method: "POST", body: '{"queue":"q"}' }),
  );
  assertEquals([posted.method, await posted.text()], ["POST", '{"queue":"q"}']);
});

Deno.test("BASE_PATH: Tollgate answers under the prefix, and its pages and redirects link there", async () => {
  const t = await makeApp({ BASE_PATH: "/_tollgate", QUEUES: ["default"] });
  let r = await get(t, "/_tollgate/verify/auth-request", { "x-original-uri": "/shop?x=1" });
  assertEquals(r.headers.get("location"), "/_tollgate/wait?return=%2Fshop%3Fx%3D1");
  r = await get(t, "/_tollgate/verify/forward-auth", {
    "x-forwarded-uri": "/shop",
    "x-forwarded-proto": "https",
    "x-forwarded-host": "shop.example.com",
  });
  assertEquals(r.headers.get("location"), "https://shop.example.com/_tollgate/wait?return=%2Fshop");
  assertEquals((await get(t, "/_tollgate/health")).status, 200);
  r = await get(t, "/_tollgate/nothing-here");
  assertEquals(r.status, 404);
  assert((await r.text()).includes("/_tollgate/nothing-here"), "not turned into /nothing-here");

  // The waiting room: its page, its island's calls, its links (one visitor holds the line).
  await t.engine.setRate("default", 0.01);
  await t.engine.join("default", null);
  r = await get(t, "/_tollgate/wait?return=%2Fshop");
  const page = await r.text();
  assertEquals(r.status, 200, page.slice(0, 300));
  assert(page.includes('href="/_tollgate/wait/how-it-works"'), "footer link");
  assert(!/(src|href)="\/static\//.test(page), "no asset outside the prefix");
  if (page.includes("tg-props")) assert(page.includes('"base":"/_tollgate"'), "island base");
  const ticket = r.headers.getSetCookie().find((c) => c.startsWith("tg_ticket="))!.split(";")[0];
  r = await get(t, "/_tollgate/status?queue=default", { cookie: ticket });
  assertEquals(r.status, 200, "the status fast path under the prefix");
  r = await t.fetch(
    new Request("http://tollgate.test/_tollgate/join", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ queue: "default" }),
    }),
  );
  assert(r.status === 200 || r.status === 202, `join under the prefix: ${r.status}`);
  await r.body?.cancel();

  // The demo's redirect and the default destination stay under the prefix too.
  r = await get(t, "/_tollgate/demo");
  assertEquals(r.headers.get("location"), "/_tollgate/wait?return=/_tollgate/demo");
  t.close();
});

Deno.test("the served fetch answers the checks first, exactly as the documented routes do", async () => {
  const t = await makeApp({ QUEUES: ["default", "tickets"] });
  const token = await t.services.signer.signAccessToken("v-fast-01", "default", t.clock.now(), 60);
  const cases: [string, Record<string, string>][] = [
    ["/verify", { cookie: `tg_access=${token}` }],
    [`/verify?accessToken=${token}`, {}],
    ["/verify?queue=tickets", { cookie: `tg_access=${token}` }],
    ["/verify/auth-request", { "x-original-uri": "/a?b=1" }],
    ["/verify/auth-request?queue=tickets", { "x-original-uri": "/t", cookie: "tg_access=x.y" }],
    ["/verify/forward-auth", { "x-forwarded-uri": "/c", "x-forwarded-method": "DELETE" }],
    ["/verify/forward-auth", { "x-forwarded-uri": "/c", authorization: `Bearer ${token}` }],
    ["/verify/forward-auth?queue=tickets&other=1", { "x-forwarded-uri": "/c" }],
    [`/verify/forward-auth?queue=${"q".repeat(65)}`, {}], // too long: Hono's 400 either way
  ];
  for (const [path, headers] of cases) {
    const served = await get(t, path, headers);
    const plain = await t.app.request(path, { headers });
    const seen = async (r: Response) => [
      r.status,
      r.headers.get("location"),
      r.headers.get("x-tollgate-visitor"),
      r.headers.get("x-tollgate-queue"),
      r.headers.get("cache-control"),
      await r.text(),
    ];
    assertEquals(await seen(served), await seen(plain), path);
    assert(served.headers.get("x-request-id"), `${path}: the request id`);
  }
  t.close();
});

Deno.test("withProxyChecks: a check (with or without the prefix) never reaches the inner fetch", async () => {
  const t = await makeApp({ BASE_PATH: "/_tollgate" });
  const passed: string[] = [];
  const served = withProxyChecks(t.services, (req: Request) => {
    passed.push(new URL(req.url).pathname);
    return new Response("inner");
  });
  for (
    const p of ["/verify", "/_tollgate/verify/auth-request", "/verify/forward-auth?queue=default"]
  ) {
    const r = await served(new Request(`http://h${p}`));
    assert(r.status === 401 || r.status === 302, `${p}: ${r.status}`);
  }
  for (const p of ["/other/verify", "/_tollgatex/verify", "/verify/other", "/_tollgate/wait"]) {
    assertEquals(await (await served(new Request(`http://h${p}`))).text(), "inner", p);
  }
  assertEquals(passed, ["/other/verify", "/_tollgatex/verify", "/verify/other", "/_tollgate/wait"]);
  t.close();
});
