/**
 * The origin proxy over real sockets: Tollgate's `createApp().fetch` on `Deno.serve`, a real
 * origin server on loopback, real `fetch` (or raw HTTP/1.1) as the visitor.
 */
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";
import {
  type Origin,
  rawExchange,
  serveApp,
  sha256,
  startOrigin,
  tokenFor,
  within,
} from "./origin_helpers.ts";

/** An app proxying to `origin`, served on loopback, with a valid token. */
async function setup(origin: Origin, config: Parameters<typeof makeApp>[0] = {}) {
  const t = await makeApp({ ORIGIN_URL: origin.url, ...config });
  const srv = serveApp(t);
  const token = await tokenFor(t);
  const stop = async () => {
    await srv.close();
    await origin.close();
    t.close();
  };
  return { t, srv, token, auth: { authorization: `Bearer ${token}` }, stop };
}

Deno.test("proxy: unadmitted GET/HEAD go to /wait with the path and query; other methods get 401; the origin sees nothing", async () => {
  const origin = startOrigin();
  const { t, srv, stop } = await setup(origin);
  for (const method of ["GET", "HEAD"]) {
    const r = await fetch(`${srv.url}/shop/item?id=7&x=a%20b`, { method, redirect: "manual" });
    await r.body?.cancel();
    assertEquals(r.status, 302, method);
    assertEquals(r.headers.get("location"), "/wait?return=%2Fshop%2Fitem%3Fid%3D7%26x%3Da%2520b");
    assertEquals(r.headers.get("cache-control"), "no-store");
  }
  for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
    const r = await fetch(`${srv.url}/api-like/cart`, { method, body: "x" });
    assertEquals(r.status, 401, method);
    const j = await r.json();
    assertEquals(j.error.code, "unauthorized");
    assertEquals(j.error.details.waitUrl, "/wait?return=%2Fapi-like%2Fcart");
  }
  // A bad, an expired and a foreign token are no better than none.
  const expired = await tokenFor(t, "default", 60);
  t.clock.advance(60_000);
  for (
    const headers of [
      { authorization: "Bearer not.a-token" } as Record<string, string>,
      { authorization: `Bearer ${expired}` },
      { cookie: `tg_access=${expired}` },
    ]
  ) {
    const r = await fetch(`${srv.url}/`, { headers, redirect: "manual" });
    await r.body?.cancel();
    assertEquals(r.status, 302, JSON.stringify(headers));
    assertEquals(r.headers.get("location"), "/wait?return=%2F");
  }
  const q = await fetch(`${srv.url}/p?accessToken=${expired}&keep=1`, { redirect: "manual" });
  await q.body?.cancel();
  assertEquals(q.headers.get("location"), "/wait?return=%2Fp%3Fkeep%3D1", "token not echoed");
  assertEquals(origin.seen.length, 0);
  await stop();
});

Deno.test("proxy: methods, paths and query strings reach the origin unchanged", async () => {
  const origin = startOrigin();
  const { srv, auth, stop } = await setup(origin);
  const path = "/a/b%2Fc/%C3%A9?x=1&x=2&y=&z=a+b&e=%26%3D";
  for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH"]) {
    const body = method === "GET" ? undefined : `body of ${method}`;
    const r = await fetch(srv.url + path, { method, headers: auth, body });
    assertEquals(r.status, 200, method);
    const seen = await r.json();
    assertEquals(seen.method, method);
    assertEquals(seen.path, path);
    assertEquals(seen.bytes, body?.length ?? 0);
  }
  const head = await fetch(srv.url + "/code/200", { method: "HEAD", headers: auth });
  assertEquals(head.status, 200);
  assertEquals(await head.text(), "");
  assertEquals(origin.seen.at(-1)?.method, "HEAD");
  await stop();
});

Deno.test("proxy: status codes pass; a 301's Location is not followed or rewritten", async () => {
  const origin = startOrigin();
  const { srv, auth, stop } = await setup(origin);
  for (const status of [201, 204, 301, 404, 500]) {
    const r = await fetch(`${srv.url}/code/${status}`, { headers: auth, redirect: "manual" });
    assertEquals(r.status, status);
    assertEquals(r.headers.get("x-origin-status"), String(status));
    assertEquals(await r.text(), status === 204 ? "" : `origin says ${status}`);
    if (status === 301) {
      assertEquals(r.headers.get("location"), "https://elsewhere.example/moved?to=1");
    }
  }
  assertEquals(origin.seen.length, 5, "one origin request each, no redirect followed");
  await stop();
});

Deno.test("proxy: a 5 MB chunked upload streams through (the origin reads before the client ends) and arrives intact", async () => {
  let firstBytes!: () => void;
  const originReading = new Promise<void>((r) => (firstBytes = r));
  const origin = startOrigin(async (req, url) => {
    if (url.pathname !== "/upload") return null;
    let n = 0;
    const parts: Uint8Array[] = [];
    for await (const chunk of req.body!) {
      if (n === 0) firstBytes();
      n += chunk.length;
      parts.push(chunk);
    }
    const all = new Uint8Array(n);
    let at = 0;
    for (const p of parts) (all.set(p, at), (at += p.length));
    return Response.json({
      n,
      sha: await sha256(all),
      te: req.headers.get("transfer-encoding"),
      cl: req.headers.get("content-length"),
    });
  });
  const { srv, auth, stop } = await setup(origin);
  const total = 5 * 1024 * 1024;
  const data = new Uint8Array(total);
  for (let i = 0; i < total; i++) data[i] = (i * 31 + 7) & 0xff;
  const first = 256 * 1024;
  const body = new ReadableStream<Uint8Array>({
    async start(c) {
      c.enqueue(data.slice(0, first));
      // The rest only once the origin has bytes: a buffering proxy would never get there.
      await within(10_000, originReading, "origin got the first chunk");
      for (let at = first; at < total; at += 512 * 1024) c.enqueue(data.slice(at, at + 512 * 1024));
      c.close();
    },
  });
  const r = await fetch(`${srv.url}/upload`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/octet-stream" },
    body,
    duplex: "half",
  } as RequestInit);
  assertEquals(r.status, 200, "not 413: the body limit is not ours to apply here");
  const got = await r.json();
  assertEquals(got.n, total);
  assertEquals(got.sha, await sha256(data));
  assertEquals(got.te, "chunked");

  // A body with a length keeps it.
  const fixed = await fetch(`${srv.url}/upload`, { method: "PUT", headers: auth, body: data });
  const f = await fixed.json();
  assertEquals([f.n, f.cl, f.sha], [total, String(total), got.sha]);
  await stop();
});

Deno.test("proxy: a streamed response reaches the client chunk by chunk (the first before the last is sent)", async () => {
  let clientGotFirst!: () => void;
  const gotFirst = new Promise<void>((r) => (clientGotFirst = r));
  let lastSent = false;
  const origin = startOrigin((_req, url) => {
    if (url.pathname !== "/stream") return null;
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(c) {
        c.enqueue(enc.encode("first;"));
        await within(10_000, gotFirst, "client read the first chunk");
        lastSent = true;
        c.enqueue(enc.encode("last"));
        c.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const { srv, auth, stop } = await setup(origin);
  const r = await fetch(`${srv.url}/stream`, { headers: auth });
  assertEquals(r.headers.get("content-type"), "text/event-stream");
  const reader = r.body!.getReader();
  const dec = new TextDecoder();
  const first = await within(10_000, reader.read(), "first chunk");
  assertEquals(dec.decode(first.value), "first;");
  assertEquals(lastSent, false, "the first chunk came before the origin sent the last");
  clientGotFirst();
  let rest = "";
  for (;;) {
    const { done, value } = await within(10_000, reader.read(), "rest");
    if (done) break;
    rest += dec.decode(value);
  }
  assertEquals(rest, "last");
  await stop();
});

Deno.test("proxy: our credentials stay here (tg_* cookies, our bearer, ?accessToken=); the origin's pass", async () => {
  const origin = startOrigin();
  const { t, srv, token, stop } = await setup(origin);
  // Cookie: tg_access admits; tg_ticket and tg_admin are dropped; the rest pass in order.
  let r = await fetch(`${srv.url}/c`, {
    headers: {
      cookie: `a=1; tg_ticket=tt; tg_access=${token}; b=2; tg_admin=adm; c=x=y`,
      authorization: "Bearer origin-api-key",
      "x-custom": "kept",
    },
  });
  let seen = await r.json();
  assertEquals(seen.headers.cookie, "a=1; b=2; c=x=y");
  assertEquals(seen.headers.authorization, "Bearer origin-api-key", "not ours: passes");
  assertEquals(seen.headers["x-custom"], "kept");
  // Our bearer admits and is removed; no cookie header is left when only ours were sent.
  r = await fetch(`${srv.url}/b`, {
    headers: { authorization: `Bearer ${token}`, cookie: "tg_ticket=1" },
  });
  seen = await r.json();
  assertEquals(seen.headers.authorization, undefined);
  assertEquals(seen.headers.cookie, undefined);
  // An expired token of ours in Authorization is still ours: removed (the cookie admits).
  const old = await tokenFor(t, "default", 10);
  t.clock.advance(20_000);
  const fresh = await tokenFor(t);
  r = await fetch(`${srv.url}/e`, {
    headers: { authorization: `Bearer ${old}`, cookie: `tg_access=${fresh}` },
  });
  seen = await r.json();
  assertEquals(seen.headers.authorization, undefined);
  // The query token admits and is cut out; the rest of the query is untouched.
  r = await fetch(`${srv.url}/q?a=1&accessToken=${fresh}&b=%20&accessToken=x`);
  seen = await r.json();
  assertEquals(seen.path, "/q?a=1&b=%20");
  r = await fetch(`${srv.url}/q2?accessToken=${fresh}`);
  assertEquals((await r.json()).path, "/q2");
  // Any queue's token admits: one origin stands behind every queue.
  r = await fetch(`${srv.url}/any`, {
    headers: { authorization: `Bearer ${await tokenFor(t, "sale")}` },
  });
  assertEquals(r.status, 200);
  await r.body?.cancel();
  await stop();
});

Deno.test("proxy: the origin's headers and cookies pass untouched; ours are not added", async () => {
  const origin = startOrigin((_req, url) => {
    if (url.pathname !== "/page") return null;
    const res = new Response("<p>origin page</p>", {
      headers: {
        "content-type": "text/html",
        "cache-control": "public, max-age=60",
        "x-frame-options": "DENY",
        "content-security-policy": "default-src https:",
        "x-custom-origin": "yes",
      },
    });
    res.headers.append("set-cookie", "session=abc; Path=/; HttpOnly");
    res.headers.append("set-cookie", "theme=dark; Path=/");
    return res;
  });
  const { srv, auth, stop } = await setup(origin);
  const r = await fetch(`${srv.url}/page`, { headers: auth });
  assertEquals(await r.text(), "<p>origin page</p>");
  assertEquals(r.headers.get("cache-control"), "public, max-age=60", "no forced no-store");
  assertEquals(r.headers.get("x-frame-options"), "DENY");
  assertEquals(r.headers.get("content-security-policy"), "default-src https:");
  assertEquals(r.headers.get("x-custom-origin"), "yes");
  assertEquals(r.headers.getSetCookie(), ["session=abc; Path=/; HttpOnly", "theme=dark; Path=/"]);
  assertEquals(r.headers.get("referrer-policy"), null, "none of our security headers");
  assertEquals(r.headers.get("x-content-type-options"), null);
  await stop();
});

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
  let s = await setup(origin);
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
  s = await setup(origin, { CLIENT_IP_HEADER: "cf-connecting-ip" });
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
  const { srv, auth, stop } = await setup(origin);
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
  const { srv, auth, stop } = await setup(origin);
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
  const { t, srv, stop } = await setup(origin, { CLIENT_IP_HEADER: "x-client-ip" });
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
