/**
 * What every forward-auth example must do, checked through a real proxy (nginx or Caddy) in
 * front of a real Tollgate and a small site: the same steps for each proxy, so the examples
 * cannot drift apart.
 */
import { Signer } from "../../lib/tokens.ts";
import { assert, assertEquals } from "../assert.ts";
import { claimsOf } from "../server_procs.ts";
import {
  type Ports,
  portsFor,
  type Proxy,
  type Site,
  startSite,
  startTollgate,
  type Tollgate,
} from "./procs.ts";

/** Starts one proxy from its example for the given ports. */
export type StartProxy = (ports: Ports) => Promise<Proxy>;

/** A visitor: keeps the cookies the proxy hands it, sends requests without following redirects. */
export class Visitor {
  cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  /** One request through the proxy; `path` may be absolute (a Location). */
  async req(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    }
    const url = path.startsWith("http") ? path : this.base + path;
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair.indexOf("=");
      const value = pair.slice(eq + 1);
      if (value === "" || /max-age=0/i.test(c)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
    return { res, text: await res.text() };
  }
}

/** Operator call through the proxy (Tollgate's own paths pass unchecked). */
export async function operatorCall(
  base: string,
  tg: Tollgate,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/_tollgate${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${tg.config.TOKEN_SECRET}`,
      "content-type": "application/json",
    },
    body: JSON.stringify(body),
  });
  assertEquals(res.status, 200, `${path}: ${res.status}`);
  return await res.json();
}

/** Takes `v` through the waiting room of `queue`, from `wait` (a Location) to its access cookie. */
export async function admitThrough(
  base: string,
  tg: Tollgate,
  v: Visitor,
  wait: string,
  queue = "default",
): Promise<string> {
  await operatorCall(base, tg, "/pause", { queue, paused: true });
  let r = await v.req(wait);
  assertEquals(r.res.status, 200, `the waiting room page: ${r.text.slice(0, 200)}`);
  assert(v.cookies.has("tg_ticket"), "the waiting room set a ticket");
  r = await v.req(`/_tollgate/status?queue=${queue}`);
  assertEquals(JSON.parse(r.text).status, "waiting");
  // A paused line admits nobody, even on the operator's word.
  assertEquals((await operatorCall(base, tg, "/admit", { queue, count: 1 })).admitted, 0);
  await operatorCall(base, tg, "/pause", { queue, paused: false });
  assertEquals((await operatorCall(base, tg, "/admit", { queue, count: 1 })).admitted, 1);
  r = await v.req(wait);
  assertEquals(r.res.status, 303, "admitted: the waiting room sends the visitor on");
  assert(v.cookies.has("tg_access"), "and hands it the access cookie");
  return r.res.headers.get("location")!;
}

/** The steps every example passes; `more` adds a proxy's own (with everything still running). */
export async function forwardAuthScenario(
  t: Deno.TestContext,
  start: StartProxy,
  more?: (ctx: { t: Deno.TestContext; proxy: Proxy; site: Site; tg: Tollgate }) => Promise<void>,
) {
  const site = startSite();
  const tg = await startTollgate(["default"]);
  let proxy: Proxy | undefined;
  try {
    proxy = await start(portsFor(tg.port, site.port));
    const base = proxy.base;
    const v = new Visitor(base);
    const waitUrl = `${base}/_tollgate/wait?return=%2Fshop%2Fitem%3Fx%3D1`;

    await t.step("an unadmitted GET goes to the waiting room with its return path", async () => {
      for (const method of ["GET", "HEAD"]) {
        const r = await v.req("/shop/item?x=1", { method });
        assertEquals(r.res.status, 302, `${method}: ${r.text.slice(0, 200)}`);
        assertEquals(r.res.headers.get("location"), waitUrl);
      }
      // A client cannot choose the return path of its own redirect.
      const forged = await v.req("/shop/item?x=1", {
        headers: { "x-forwarded-uri": "/evil", "x-original-uri": "/evil" },
      });
      assertEquals(forged.res.headers.get("location"), waitUrl);
      assertEquals(site.hits.length, 0, "the site saw nothing");
    });

    await t.step("an unadmitted POST gets 401 JSON naming the waiting room", async () => {
      const r = await v.req("/api/cart", { method: "POST", body: '{"sku":1}' });
      assertEquals(r.res.status, 401);
      assert(r.res.headers.get("content-type")!.includes("application/json"));
      const e = JSON.parse(r.text).error;
      assertEquals(e.code, "unauthorized");
      assertEquals(e.details.waitUrl, "/_tollgate/wait?return=%2Fapi%2Fcart");
      assertEquals(site.hits.length, 0, "the site saw nothing");
    });

    let token = "";
    await t.step("a paused line, then admission, then the item", async () => {
      const to = await admitThrough(base, tg, v, waitUrl);
      assertEquals(to, "/shop/item?x=1");
      assertEquals(site.hits.length, 0, "the site saw nothing while the visitor waited");
      token = v.cookies.get("tg_access")!;
      const r = await v.req(to, {
        headers: { "x-tollgate-visitor": "forged-visitor", "x-tollgate-queue": "vip" },
      });
      assertEquals(r.res.status, 200, r.text.slice(0, 200));
      assert(r.text.includes("site page /shop/item"));
      const hit = site.hits.at(-1)!;
      assertEquals(hit.path, "/shop/item?x=1");
      // The proxy's own copies, from Tollgate's answer, never the client's.
      assertEquals(hit.headers.get("x-tollgate-visitor"), claimsOf(token).sub);
      assertEquals(hit.headers.get("x-tollgate-queue"), "default");
    });

    await t.step("later requests pass, the site's own /status and /static included", async () => {
      const before = site.hits.length;
      for (const path of ["/shop/item?x=2", "/status", "/static/site.css", "/"]) {
        const r = await v.req(path);
        assertEquals(r.res.status, 200, `${path}: ${r.text.slice(0, 200)}`);
      }
      assert(JSON.parse((await v.req("/status")).text).site, "/status is the site's");
      const post = await v.req("/api/cart", { method: "POST", body: '{"sku":2}' });
      assertEquals(post.res.status, 200);
      assertEquals(site.hits.at(-1)!.body, '{"sku":2}');
      assertEquals(site.hits.length, before + 6);
    });

    await t.step("forged, altered and expired tokens go back to the waiting room", async () => {
      const c = claimsOf(token) as { sub: string; queue: string; iat: number; exp: number };
      const now = Math.floor(Date.now() / 1000);
      const forged = await new Signer("another-secret-another-secret-another-1").sign(c);
      const [body, mac] = token.split(".");
      const altered = body.slice(0, -2) + (body.at(-2) === "A" ? "B" : "A") + body.at(-1) + "." +
        mac;
      const expired = await new Signer(tg.config.TOKEN_SECRET).sign({
        ...c,
        iat: now - 1000,
        exp: now - 5,
      });
      const before = site.hits.length;
      for (const [name, bad] of [["forged", forged], ["altered", altered], ["expired", expired]]) {
        const r = await fetch(`${base}/shop/item?x=1`, {
          headers: { cookie: `tg_access=${bad}` },
          redirect: "manual",
        });
        await r.body?.cancel();
        assertEquals(r.status, 302, name);
        assertEquals(r.headers.get("location"), waitUrl, name);
      }
      // The query token is ignored (VERIFY_TOKEN_IN_QUERY=0): only the cookie or a header admits.
      const q = await fetch(`${base}/shop/item?accessToken=${token}`, { redirect: "manual" });
      await q.body?.cancel();
      assertEquals(q.status, 302, "?accessToken= does not admit");
      assertEquals(site.hits.length, before, "the site saw none of them");
      const bearer = await fetch(`${base}/shop/item`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await bearer.body?.cancel();
      assertEquals(bearer.status, 200, "a bearer token admits");
    });

    if (more) await more({ t, proxy, site, tg });

    await t.step("Tollgate down: nobody passes, and a page says so", async () => {
      await tg.close();
      const before = site.hits.length;
      for (const method of ["GET", "POST"]) {
        const r = await v.req("/shop/item?x=1", { method, body: method === "POST" ? "{}" : null });
        assertEquals(r.res.status, 503, `${method}: ${r.text.slice(0, 200)}`);
        assert(r.res.headers.get("content-type")!.startsWith("text/html"));
        assert(r.text.includes("Please wait a moment"), r.text.slice(0, 200));
        assertEquals(r.res.headers.get("retry-after"), "30");
      }
      assertEquals(site.hits.length, before, "the site saw nothing");
    });
  } catch (e) {
    if (proxy) console.error(proxy.log().slice(-3000));
    throw e;
  } finally {
    await proxy?.stop();
    await tg.close().catch(() => {});
    await site.close();
  }
}

/**
 * A proxy config with its documented fail-open switch: while Tollgate is up the line holds; once
 * it is down visitors reach the site, and the site gets no visitor headers (a client's least of
 * all). `start` starts the switched proxy in front of Tollgate and the site.
 */
export async function failOpenScenario(start: StartProxy): Promise<void> {
  const site = startSite();
  const tg = await startTollgate(["default"]);
  const proxy = await start(portsFor(tg.port, site.port));
  try {
    const closed = await fetch(`${proxy.base}/shop`, { redirect: "manual" });
    await closed.body?.cancel();
    assertEquals(closed.status, 302, "while Tollgate is up, the line holds");
    await tg.close();
    const r = await fetch(`${proxy.base}/shop`, {
      headers: { "x-tollgate-visitor": "forged", "x-tollgate-queue": "vip" },
    });
    assertEquals(r.status, 200);
    assert((await r.text()).includes("site page /shop"));
    const hit = site.hits.at(-1)!;
    assertEquals(hit.headers.get("x-tollgate-visitor"), null);
    assertEquals(hit.headers.get("x-tollgate-queue"), null);
  } catch (e) {
    console.error(proxy.log().slice(-3000));
    throw e;
  } finally {
    await proxy.stop();
    await tg.close().catch(() => {});
    await site.close();
  }
}
