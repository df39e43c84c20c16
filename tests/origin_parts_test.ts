/** The origin proxy's pure parts: the own-path list, credential splitting, the effective origin. */
import { assertEquals } from "./assert.ts";
import { isOwnPath, OWN_PATH_SEGMENTS } from "../lib/origin/own_paths.ts";
import { pathOf, readVisitorRequest, splitCookies, splitQuery } from "../lib/origin/request.ts";
import { effectiveOrigin, isOriginUrl } from "../lib/origin/settings.ts";
import { Signer } from "../lib/tokens.ts";

Deno.test("own paths: each listed path and everything below it; look-alikes are the origin's", () => {
  const ours = [
    "/join",
    "/status",
    "/leave",
    "/heartbeat",
    "/enter",
    "/verify",
    "/wait",
    "/wait/enter",
    "/demo",
    "/cost",
    "/api/cost-estimate",
    "/api/admin/origin",
    "/admin",
    "/admin/team",
    "/health",
    "/openapi.json",
    "/admit",
    "/mode",
    "/pause",
    "/metrics",
    "/static/build/wait-0123456789ab.js",
  ];
  for (const p of ours) assertEquals(isOwnPath(p), true, p);
  const theirs = [
    "/",
    "/waiting",
    "/statusboard",
    "/apis",
    "/administrator",
    "/openapi.jsonx",
    "/shop/wait",
    "/static-files/x",
  ];
  for (const p of theirs) assertEquals(isOwnPath(p), false, p);
  assertEquals(OWN_PATH_SEGMENTS.length, 22);
});

Deno.test("pathOf and splitQuery keep the path and every other parameter byte for byte", () => {
  assertEquals(pathOf("http://h:1/a/b?x=1#frag"), "/a/b?x=1");
  assertEquals(pathOf("http://h"), "/");
  assertEquals(splitQuery("a=1&b=%20"), { rest: "a=1&b=%20", token: null });
  assertEquals(splitQuery("a=1&accessToken=t.s&b=2"), { rest: "a=1&b=2", token: "t.s" });
  assertEquals(splitQuery("access%54oken=t.s&b"), { rest: "b", token: "t.s" }, "encoded name");
  // Encoded where the quick check looks: `/verify` and `requireAdmission()` decode names too.
  assertEquals(splitQuery("a%63cessToken=t.s&b"), { rest: "b", token: "t.s" }, "a%63cessToken");
  assertEquals(
    splitQuery("%61%63%63%65%73%73Token=t.s"),
    { rest: "", token: "t.s" },
    "all encoded",
  );
  assertEquals(splitQuery("accessToken=one&accessToken=two"), { rest: "", token: "one" });
  assertEquals(splitQuery("accessTokens=x"), { rest: "accessTokens=x", token: null });
});

Deno.test("splitCookies drops every tg_ cookie and keeps the rest in order", () => {
  assertEquals(splitCookies(null), { rest: null, access: [] });
  assertEquals(splitCookies("a=1; b=2"), { rest: "a=1; b=2", access: [] });
  assertEquals(splitCookies("tg_access=tok; a=1;tg_ticket=t;  b=x=y ; tg_admin=s"), {
    rest: "a=1; b=x=y",
    access: ["tok"],
  });
  assertEquals(splitCookies("tg_ticket=t"), { rest: null, access: [] });
  assertEquals(splitCookies("xtg_access=1; tg_x=2"), { rest: "xtg_access=1", access: [] });
  // Every tg_access value is kept (a sibling subdomain's stray cookie must not hide ours); quotes go.
  assertEquals(splitCookies('tg_access=bad; tg_access="good"').access, ["bad", "good"]);
});

Deno.test("readVisitorRequest: bearer, then query, then cookie; only our bearer is dropped", async () => {
  const signer = new Signer("origin-parts-secret-origin-parts-secret");
  const now = Date.UTC(2026, 0, 1);
  const tok = await signer.signAccessToken("v1", "q", now, 60);
  const old = await signer.signAccessToken("v0", "q", now - 120_000, 60);
  const at = (url: string, headers: Record<string, string> = {}) =>
    readVisitorRequest(signer, new Request(url, { headers }), now);
  let r = await at("http://x/p?accessToken=" + tok);
  assertEquals([r.claims?.sub, r.pathAndQuery, r.dropAuthorization], ["v1", "/p", false]);
  r = await at("http://x/p", { authorization: "Bearer theirs", cookie: `tg_access=${tok}` });
  assertEquals([r.claims?.sub, r.dropAuthorization, r.cookie], ["v1", false, null]);
  r = await at("http://x/p", { authorization: `bearer ${old}` });
  assertEquals([r.claims, r.dropAuthorization], [null, true], "expired but ours: dropped");
  r = await at("http://x/p?z=1", { authorization: `Bearer ${tok}` });
  assertEquals([r.claims?.queue, r.dropAuthorization, r.pathAndQuery], ["q", true, "/p?z=1"]);
});

Deno.test("effectiveOrigin: the override wins, off wins over ORIGIN_URL, on without URL means ORIGIN_URL", () => {
  const env = "https://env.example/base/";
  const ov = (enabled: boolean, url: string | null = null) => ({ enabled, url, updatedAt: 1 });
  assertEquals(effectiveOrigin(undefined, null), {
    enabled: false,
    url: null,
    source: "none",
    base: null,
  });
  assertEquals(effectiveOrigin(env, null), {
    enabled: true,
    url: env,
    source: "env",
    base: "https://env.example/base",
  });
  assertEquals(effectiveOrigin(env, ov(false)).enabled, false);
  assertEquals(effectiveOrigin(env, ov(false)).source, "admin");
  assertEquals(effectiveOrigin(env, ov(true)).source, "env");
  assertEquals(effectiveOrigin(undefined, ov(true)).source, "none");
  assertEquals(effectiveOrigin(env, ov(true, "http://a.example:81")).base, "http://a.example:81");
});

Deno.test("isOriginUrl: http(s) base URLs only", () => {
  for (const ok of ["http://a.example", "https://a.example:8443/app/", "http://127.0.0.1:3000"]) {
    assertEquals(isOriginUrl(ok), true, ok);
  }
  for (
    const bad of [
      "ftp://a",
      "a.example",
      "https://u:p@a.example",
      "https://a.example/?",
      "https://a.example/#x",
      "javascript:alert(1)",
    ]
  ) assertEquals(isOriginUrl(bad), false, bad);
});

Deno.test("verifyAccessToken: a remembered token still expires and keeps its queue; bad ones are never remembered", async () => {
  const signer = new Signer("origin-cache-secret-origin-cache-secret");
  const now = Date.UTC(2026, 0, 1);
  const tok = await signer.signAccessToken("v1", "q", now, 60);
  let hmacs = 0;
  const open = signer.open.bind(signer);
  signer.open = (t) => (hmacs++, open(t));
  assertEquals((await signer.verifyAccessToken(tok, now))?.sub, "v1");
  assertEquals((await signer.verifyAccessToken(tok, now + 59_000))?.sub, "v1");
  assertEquals(await signer.verifyAccessToken(tok, now + 59_000, "other"), null);
  assertEquals(hmacs, 1, "one HMAC for three checks");
  assertEquals(await signer.verifyAccessToken(tok, now + 60_000), null, "expired, though known");
  const bad = tok.slice(0, -3) + (tok.at(-3) === "A" ? "B" : "A") + tok.slice(-2);
  assertEquals(await signer.verifyAccessToken(bad, now), null);
  assertEquals(await signer.verifyAccessToken(bad, now), null);
  assertEquals(hmacs, 3, "a refused token is checked again each time, never remembered");
});
