/**
 * The origin proxy over real sockets, continued: hop-by-hop headers, the forwarding headers,
 * bytes as they are, a down, slow or looping origin, our own paths, and the allowlist.
 */
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";
import {
  proxiedApp,
  rawExchange,
  serveApp,
  startOrigin,
  tokenFor,
  within,
} from "./origin_helpers.ts";

Deno.test("proxy: hop-by-hop headers stop at the proxy in both directions", async () => {
  // A raw origin, so it can send what Deno.serve would not let a handler send.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let requestHead = "";
  const served = (async () => {
    const conn = await listener.accept();
    const buf = new Uint8Array(65536);
    while (!requestHead.includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) break;
      requestHead += new TextDecoder().decode(buf.subarray(0, n));
    }
    const body = "raw origin";
    await conn.write(new TextEncoder().encode(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close, X-Hop-Res\r\n" +
        "X-Hop-Res: secret\r\nKeep-Alive: timeout=5\r\nProxy-Authenticate: Basic\r\n" +
        `Trailer: X-Checksum\r\nX-End-To-End: kept\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ));
    conn.close();
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  const t = await makeApp({ ORIGIN_URL: `http://127.0.0.1:${port}` });
  const srv = serveApp(t);
  const token = await tokenFor(t);
  const res = await rawExchange(
    srv.port,
    `GET /hop HTTP/1.1\r\nHost: visitor.example\r\nAuthorization: Bearer ${token}\r\n` +
      "Connection: close, X-Hop-Req\r\nX-Hop-Req: secret\r\nKeep-Alive: timeout=9\r\n" +
      "TE: trailers\r\nUpgrade: websocket\r\nProxy-Authorization: Basic eDp5\r\n" +
      "Proxy-Connection: keep-alive\r\nX-End-To-End: kept\r\n\r\n",
  );
  await served;
  listener.close();
  const sent = requestHead.toLowerCase();
  for (
    const h of [
      "x-hop-req",
      "keep-alive",
      "te:",
      "upgrade",
      "proxy-authorization",
      "proxy-connection",
    ]
  ) {
    assert(!sent.includes(`\r\n${h}`), `${h} must not reach the origin:\n${requestHead}`);
  }
  assert(sent.includes("\r\nx-end-to-end: kept"), requestHead);
  assert(sent.includes(`\r\nhost: 127.0.0.1:${port}`), "Host is the origin's");
  assertEquals(res.status, 200);
  assertEquals(res.body, "raw origin");
  for (const h of ["x-hop-res", "keep-alive", "proxy-authenticate", "trailer"]) {
    assert(!res.headers.some((l) => l.startsWith(`${h}:`)), `${h} must not reach the client`);
  }
  assert(res.headers.includes("x-end-to-end: kept"));
  await srv.close();
  t.close();
});

Deno.test("proxy: X-Forwarded-*, Forwarded and Via; the client's own claims are replaced unless CLIENT_IP_HEADER trusts a proxy in front", async () => {
  const spoof = {
    "x-forwarded-for": "6.6.6.6",
    "x-forwarded-proto": "https",
    "x-forwarded-host": "evil.example",
    forwarded: "for=6.6.6.6",
  };
  // Direct clients: our view of the connection only.
  let origin = startOrigin();
  let s = await proxiedApp(origin);
  let r = await fetch(`${s.srv.url}/f`, { headers: { ...s.auth, ...spoof } });
  let h = (await r.json()).headers;
  assertEquals(h["x-forwarded-for"], "127.0.0.1");
  assertEquals(h["x-forwarded-proto"], "http");
  assertEquals(h["x-forwarded-host"], `127.0.0.1:${s.srv.port}`);
  assertEquals(h.forwarded, `for=127.0.0.1;host="127.0.0.1:${s.srv.port}";proto=http`);
  assertEquals(h.via, "1.1 tollgate");
  assertEquals(h.host, `127.0.0.1:${origin.port}`);
  await s.stop();
  // Behind a trusted edge: its chain is kept and our hop (the edge's address) appended.
  origin = startOrigin();
  s = await proxiedApp(origin, { CLIENT_IP_HEADER: "cf-connecting-ip" });
  r = await fetch(`${s.srv.url}/f`, {
    headers: { ...s.auth, ...spoof, "cf-connecting-ip": "6.6.6.6", via: "1.1 edge" },
  });
  h = (await r.json()).headers;
  assertEquals(h["x-forwarded-for"], "6.6.6.6, 127.0.0.1");
  assertEquals(h["x-forwarded-proto"], "https");
  assertEquals(h["x-forwarded-host"], "evil.example");
  assertEquals(h.forwarded, `for=6.6.6.6, for=127.0.0.1;host="127.0.0.1:${s.srv.port}";proto=http`);
  assertEquals(h.via, "1.1 edge, 1.1 tollgate");
  assertEquals(h["cf-connecting-ip"], "6.6.6.6");
  await s.stop();
  // A peer outside TRUSTED_PROXIES is a direct client: its forwarded claims are replaced.
  origin = startOrigin();
  s = await proxiedApp(origin, {
    CLIENT_IP_HEADER: "cf-connecting-ip",
    TRUSTED_PROXIES: "192.0.2.1",
  });
  r = await fetch(`${s.srv.url}/f`, {
    headers: { ...s.auth, ...spoof, "cf-connecting-ip": "6.6.6.6" },
  });
  h = (await r.json()).headers;
  assertEquals([h["x-forwarded-for"], h["x-forwarded-proto"]], ["127.0.0.1", "http"]);
  assertEquals(h["x-forwarded-host"], `127.0.0.1:${s.srv.port}`);
  await s.stop();
});

Deno.test("proxy: the origin's bytes pass as they are (a gzip body keeps its Content-Encoding)", async () => {
  const plain = new TextEncoder().encode("compressed ".repeat(500));
  const gz = new Uint8Array(
    await new Response(new Blob([plain]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  const origin = startOrigin((req, url) =>
    url.pathname === "/gz"
      ? new Response(gz, {
        headers: {
          "content-encoding": "gzip",
          "x-ae": req.headers.get("accept-encoding") ?? "",
        },
      })
      : null
  );
  const { srv, auth, stop } = await proxiedApp(origin);
  const res = await rawExchange(
    srv.port,
    `GET /gz HTTP/1.1\r\nHost: x\r\n${
      Object.entries(auth).map(([k, v]) => `${k}: ${v}`)[0]
    }\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n`,
  );
  assert(res.headers.includes("content-encoding: gzip"));
  assert(res.headers.includes(`content-length: ${gz.length}`), res.headers.join("\n"));
  assert(res.headers.includes("x-ae: identity"), "the origin is asked for identity");
  await stop();
});

Deno.test("proxy: a down origin is a 502 page (JSON for JSON clients), not a crash", async () => {
  // A port with nothing listening: connection refused.
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const dead = (l.addr as Deno.NetAddr).port;
  l.close();
  const t = await makeApp({ ORIGIN_URL: `http://127.0.0.1:${dead}` });
  const srv = serveApp(t);
  const auth = { authorization: `Bearer ${await tokenFor(t)}` };
  const page = await fetch(`${srv.url}/x`, { headers: { ...auth, accept: "text/html,*/*" } });
  assertEquals(page.status, 502);
  assertEquals(page.headers.get("content-type"), "text/html; charset=utf-8");
  assertEquals(page.headers.get("cache-control"), "no-store");
  assert((await page.text()).includes("not reachable right now"));
  const json = await fetch(`${srv.url}/x`, {
    method: "POST",
    body: "{}",
    headers: { ...auth, accept: "application/json" },
  });
  assertEquals(json.status, 502);
  const j = await json.json();
  assertEquals([j.error.code, j.error.details.reason], ["bad_gateway", "unreachable"]);
  // The service itself is fine.
  assertEquals((await fetch(`${srv.url}/health`)).status, 200);
  await srv.close();
  t.close();
});

Deno.test("proxy: an origin that never answers is a 502 after the timeout; one pointing back at us is a loop, not a storm", async () => {
  const { originGate } = await import("../routes/origin.ts");
  // Accepts connections, never answers.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const c of listener) held.push(c);
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  const t = await makeApp({ ORIGIN_URL: `http://127.0.0.1:${port}` });
  const gate = originGate(t.services, { timeoutMs: 200 });
  const res = await within(
    5_000,
    gate(
      new Request("http://tollgate.test/slow", {
        headers: { authorization: `Bearer ${await tokenFor(t)}`, accept: "application/json" },
      }),
    ),
    "the gate answers after its timeout",
  );
  assertEquals(res?.status, 502);
  assertEquals((await res!.json()).error.details.reason, "timeout");
  listener.close();
  for (const c of held) c.close();
  await accepting.catch(() => {});
  t.close();

  // ORIGIN_URL = the service itself: the second pass sees our Via and stops.
  const loopPort = (() => {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const p = (l.addr as Deno.NetAddr).port;
    l.close();
    return p;
  })();
  const self = await makeApp({ ORIGIN_URL: `http://127.0.0.1:${loopPort}` });
  const server = Deno.serve({ hostname: "127.0.0.1", port: loopPort, onListen() {} }, self.fetch);
  const r = await fetch(`http://127.0.0.1:${loopPort}/x`, {
    headers: { authorization: `Bearer ${await tokenFor(self)}`, accept: "application/json" },
  });
  assertEquals(r.status, 502, "the inner pass refuses, the outer relays that");
  assertEquals((await r.json()).error.details.reason, "loop");
  await server.shutdown();
  self.close();
});

Deno.test("proxy: our own paths are never proxied; with the proxy off, unknown paths are our 404", async () => {
  const origin = startOrigin();
  const { srv, auth, stop } = await proxiedApp(origin);
  for (
    const p of [
      "/health",
      "/openapi.json",
      "/verify",
      "/wait?queue=default",
      "/demo",
      "/cost",
      "/api/cost-estimate",
      "/api/admin/bootstrap",
      "/metrics",
      "/static/build/missing-000000000000.js",
      "/admin",
    ]
  ) {
    const r = await fetch(srv.url + p, { headers: auth, redirect: "manual" });
    await r.body?.cancel();
    assert(r.headers.get("x-origin") === null, `${p} answered by the origin`);
  }
  assertEquals(origin.seen.length, 0, "nothing of ours reached the origin");
  const near = await fetch(`${srv.url}/waiting-list`, { headers: auth });
  assertEquals((await near.json()).path, "/waiting-list", "a look-alike path is the origin's");
  await stop();

  const t = await makeApp();
  const off = serveApp(t);
  const r = await fetch(`${off.url}/anything`, { headers: { authorization: auth.authorization } });
  assertEquals(r.status, 404);
  assertEquals((await r.json()).error.code, "not_found");
  await off.close();
  t.close();
});

Deno.test("proxy: app.request() goes through the same gate (tests and the served handler agree)", async () => {
  const origin = startOrigin();
  const t: TestApp = await makeApp({ ORIGIN_URL: origin.url });
  const token = await tokenFor(t);
  const r = await t.app.request("/via-hono?q=1", { headers: { cookie: `tg_access=${token}` } });
  assertEquals(r.status, 200);
  assertEquals((await r.json()).path, "/via-hono?q=1");
  const big = await t.app.request("/big", {
    method: "POST",
    headers: { cookie: `tg_access=${token}` },
    body: new Uint8Array(200_000),
  });
  assertEquals((await big.json()).bytes, 200_000, "no 64 KiB limit on proxied bodies");
  const away = await t.app.request("/via-hono");
  assertEquals(away.status, 302);
  await origin.close();
  t.close();
});

Deno.test("proxy: an allowlisted address reaches the origin without a token; others still wait", async () => {
  const origin = startOrigin();
  const { t, srv, stop } = await proxiedApp(origin, { CLIENT_IP_HEADER: "x-client-ip" });
  const rec = { allowlistText: "203.0.113.0/24", entries: 1, updatedAt: t.clock.now() };
  await t.kv.set(keys.bypass(), rec);
  t.services.access.rules.invalidate();
  const inside = await fetch(`${srv.url}/shop`, { headers: { "x-client-ip": "203.0.113.9" } });
  assertEquals([inside.status, (await inside.json()).path], [200, "/shop"]);
  const outside = await fetch(`${srv.url}/shop`, {
    headers: { "x-client-ip": "198.51.100.9" },
    redirect: "manual",
  });
  await outside.body?.cancel();
  assertEquals([outside.status, outside.headers.get("location")], [302, "/wait?return=%2Fshop"]);
  assertEquals(origin.seen.length, 1);
  await stop();
});

Deno.test("proxy gate: a served request is looked at once (not again by Hono's copy of the gate)", async () => {
  const t = await makeApp();
  await (await t.fetch(new Request("http://localhost/warm-the-cache"))).body?.cancel();
  let looks = 0;
  const fresh = t.services.origin.fresh.bind(t.services.origin);
  t.services.origin.fresh = () => (looks++, fresh());
  const r = await t.fetch(new Request("http://localhost/not-ours-at-all"));
  await r.body?.cancel();
  assertEquals([r.status, looks], [404, 1]);
  const viaHono = await t.app.request("/not-ours-either");
  await viaHono.body?.cancel();
  assertEquals([viaHono.status, looks], [404, 2], "app.request() still goes through the gate");
  t.close();
});

Deno.test("proxy under BASE_PATH: the site keeps its own /status, /join and /static; ours are under the prefix", async () => {
  const origin = startOrigin();
  const { t, srv, auth, stop } = await proxiedApp(origin, { BASE_PATH: "/_tollgate" });
  try {
    // Outside the prefix, paths that name one of ours are the site's (an admitted visitor's).
    for (const p of ["/status?queue=default", "/static/site.css", "/health", "/wait"]) {
      const r = await fetch(srv.url + p, { headers: auth, redirect: "manual" });
      assertEquals((await r.json()).path, p, `${p} reached the origin as itself`);
    }
    const posted = await fetch(`${srv.url}/join`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: '{"queue":"default"}',
    });
    assertEquals(
      [(await posted.json()).path, origin.seen.at(-1)?.method],
      ["/join", "POST"],
      "the site's own POST /join, not a place in line",
    );
    assertEquals((await t.engine.metrics("default")).waiting, 0, "nobody joined the line");
    // An unadmitted visitor on the site's /status is sent to the waiting room under the prefix.
    const gated = await fetch(`${srv.url}/status`, { redirect: "manual" });
    await gated.body?.cancel();
    assertEquals(gated.status, 302);
    assert(gated.headers.get("location")!.startsWith("/_tollgate/wait"), "the prefixed room");
    // Under the prefix they are Tollgate's, fast paths included (one visitor holds the line).
    await t.engine.setRate("default", 0.01);
    await t.engine.join("default", null);
    const seen = origin.seen.length;
    const joined = await fetch(`${srv.url}/_tollgate/join`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"queue":"default"}',
    });
    assertEquals(joined.status, 202, "a place in line");
    const ticket = joined.headers.getSetCookie().find((c) => c.startsWith("tg_ticket="))!;
    await joined.body?.cancel();
    const status = await fetch(`${srv.url}/_tollgate/status?queue=default`, {
      headers: { cookie: ticket.split(";")[0] },
    });
    assertEquals([status.status, (await status.json()).status], [200, "waiting"]);
    assertEquals(origin.seen.length, seen, "nothing under the prefix reached the origin");
  } finally {
    await stop();
  }
});

Deno.test("proxy under BASE_PATH: a site's slow POST on a path that names one of ours is not cut off by our body deadline", async () => {
  const origin = startOrigin(async (req, url) => {
    if (url.pathname !== "/api/slow") return null;
    await req.arrayBuffer();
    await new Promise((r) => setTimeout(r, 600));
    return new Response("site answer", { status: 201 });
  });
  const { t, srv, auth, stop } = await proxiedApp(origin, {
    BASE_PATH: "/_tollgate",
    BODY_TIMEOUT_MS: 200,
  });
  try {
    await t.services.origin.effective(); // the gate's view of the origin, as after any request
    const r = await fetch(`${srv.url}/api/slow`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: '{"x":1}',
    });
    assertEquals([r.status, await r.text()], [201, "site answer"]);
  } finally {
    await stop();
  }
});

Deno.test("proxy under BASE_PATH: a plain /verify is the site's; the prefixed one is the check", async () => {
  const origin = startOrigin();
  const { srv, auth, stop } = await proxiedApp(origin, { BASE_PATH: "/_tollgate" });
  try {
    const site = await fetch(`${srv.url}/verify?x=1`, { headers: auth });
    assertEquals((await site.json()).path, "/verify?x=1", "the site's own /verify");
    const check = await fetch(`${srv.url}/_tollgate/verify`, { headers: auth });
    await check.body?.cancel();
    assertEquals(check.status, 204, "Tollgate's check under the prefix");
  } finally {
    await stop();
  }
});
