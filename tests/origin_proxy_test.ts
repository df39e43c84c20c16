/**
 * The origin proxy over real sockets: Tollgate's `createApp().fetch` on `Deno.serve`, a real
 * origin server on loopback, real `fetch` (or raw HTTP/1.1) as the visitor.
 */
import { assertEquals } from "./assert.ts";
import { proxiedApp, sha256, startOrigin, tokenFor, within } from "./origin_helpers.ts";

Deno.test("proxy: unadmitted GET/HEAD go to /wait with the path and query; other methods get 401; the origin sees nothing", async () => {
  const origin = startOrigin();
  const { t, srv, stop } = await proxiedApp(origin);
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
  const { srv, auth, stop } = await proxiedApp(origin);
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
  const { srv, auth, stop } = await proxiedApp(origin);
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
  const { srv, auth, stop } = await proxiedApp(origin);
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
  const { srv, auth, stop } = await proxiedApp(origin);
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
  const { t, srv, token, stop } = await proxiedApp(origin);
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
  const { srv, auth, stop } = await proxiedApp(origin);
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
