/**
 * The origin proxy sees one spelling of each path: the service's own paths are matched on the
 * normalised path (so another spelling never reaches the origin), and the origin gets the
 * normalised path; and X-Real-IP is the proxy's to say, not the client's.
 */
import { assert, assertEquals } from "./assert.ts";
import { normalizePath, routingPath } from "../lib/origin/normalize_path.ts";
import { isOwnPath } from "../lib/origin/own_paths.ts";
import { proxiedApp, rawExchange, startOrigin } from "./origin_helpers.ts";

Deno.test("normalizePath: unreserved escapes decoded, repeated slashes and dot segments gone", () => {
  for (
    const [raw, want] of [
      ["/shop/item", "/shop/item"],
      ["/%61pi/admin/bootstrap", "/api/admin/bootstrap"],
      ["/x/../api/admin/bootstrap", "/api/admin/bootstrap"],
      ["//api//admin", "/api/admin"],
      ["/%2e%2E/api", "/api"],
      ["/a/./b/.", "/a/b/"],
      ["/a/b/..", "/a/"],
      ["/../../x", "/x"],
      ["/a%2fb%20c", "/a%2Fb%20c"],
      ["/caf%C3%A9", "/caf%C3%A9"],
      ["/", "/"],
    ]
  ) assertEquals(normalizePath(raw), want, raw);
  assertEquals(routingPath("/api%2Fadmin"), "/api/admin");
  assertEquals(routingPath("/x\\..\\api"), "/api");
  for (
    const p of ["/%61pi/admin/bootstrap", "/x/../api/admin", "//admin", "/%77ait", "/api%2fadmin"]
  ) {
    assert(isOwnPath(p), p);
  }
  for (const p of ["/waiting-list", "/x/../shop", "/%73hop"]) assert(!isOwnPath(p), p);
});

Deno.test("isOwnPath: case, escapes decoded until stable, ;parameters and trailing dots are ours", () => {
  for (
    const p of [
      "/API/admin/state",
      "/Wait",
      "/%2561pi/admin/state",
      "/%252561pi/admin/state",
      "/%2541PI%252Fadmin",
      "/api;jsessionid=1/admin/state",
      "/api./admin",
      "/api%20/admin",
      "/METRICS",
    ]
  ) assert(isOwnPath(p), p);
  // Still changing after several rounds of decoding: ambiguous, so ours (never the origin's).
  assert(isOwnPath("/%2525252525252573hop"), "ambiguous");
  for (const p of ["/Shop", "/%2573hop", "/waiting-list", "/apis;x", "/Administrator"]) {
    assert(!isOwnPath(p), p);
  }
  assertEquals(routingPath("/%2541PI;x=1/admin."), "/api/admin");
});

Deno.test("proxy: another spelling of our own paths never reaches the origin; the origin gets the normalised path", async () => {
  const origin = startOrigin();
  const { srv, token, stop } = await proxiedApp(origin);
  const send = (path: string) =>
    rawExchange(
      srv.port,
      `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
  for (
    const p of [
      "/%61pi/admin/bootstrap",
      "/x/../api/admin/bootstrap",
      "/x/%2e%2e/api/admin/bootstrap",
      "//api/admin/bootstrap",
      "/./metrics",
      "/%41PI/../admin",
      "/API/admin/state",
      "/%2561pi/admin/state",
      "/Admin",
    ]
  ) {
    const r = await send(p);
    assert(!r.headers.includes("x-origin: echo"), `${p} reached the origin (${r.status})`);
  }
  assertEquals(origin.seen.map((s) => s.path), [], "nothing of ours reached the origin");
  const r = await send("/shop//%69tem/./a/../b?q=%2e%2e&x=1");
  assertEquals(r.status, 200);
  assertEquals(JSON.parse(r.body).path, "/shop/item/b?q=%2e%2e&x=1", "path normalised, query kept");
  await stop();
});

Deno.test("proxy: X-Real-IP from a direct client is replaced by the socket address", async () => {
  const origin = startOrigin();
  const { srv, auth, stop } = await proxiedApp(origin);
  const r = await fetch(`${srv.url}/f`, { headers: { ...auth, "x-real-ip": "6.6.6.6" } });
  assertEquals((await r.json()).headers["x-real-ip"], "127.0.0.1");
  await stop();
});

Deno.test("proxy: a client's X-Tollgate-* headers never reach the origin; the proxy's own name the visitor", async () => {
  const origin = startOrigin();
  const { srv, auth, stop } = await proxiedApp(origin);
  const r = await fetch(`${srv.url}/f`, {
    headers: {
      ...auth,
      "x-tollgate-queue": "vip",
      "x-tollgate-visitor": "forged-visitor",
      "X-Tollgate-Admin": "yes",
      "connection": "x-tollgate-queue",
    },
  });
  const seen = (await r.json()).headers;
  assertEquals(seen["x-tollgate-queue"], "default");
  assertEquals(seen["x-tollgate-visitor"], "visitor-0001");
  assertEquals(seen["x-tollgate-admin"], undefined);
  await stop();
});
