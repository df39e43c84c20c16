/**
 * Sliding sessions and release through the real proxies of docs/examples/ (Debian's nginx and
 * Caddy): the fresh `tg_access` cookie a check answers with reaches the visitor (and nothing a
 * client sends can make the proxy set one), the site's `POST /release` ends the session, and the
 * next request goes back to the waiting room. The token lives 12 s here, so its re-issue comes
 * after 6 s of real time. Traefik (no Debian package) is checked by its config and the check's answer.
 */
import { writeSessionSettings } from "../../lib/session/settings.ts";
import { assert, assertEquals } from "../assert.ts";
import { claimsOf } from "../server_procs.ts";
import {
  CADDY,
  missing,
  NGINX,
  type Ports,
  portsFor,
  type Proxy,
  startCaddy,
  startNginx,
  startSite,
  startTollgate,
} from "./procs.ts";
import { admitThrough, Visitor } from "./scenario.ts";
import { parse } from "yaml";
import { makeApp } from "../helpers.ts";
import { accessCookie, admittedVisitor, setSessions } from "../session_helpers.ts";

async function slidingScenario(start: (ports: Ports) => Promise<Proxy>) {
  const site = startSite();
  const tg = await startTollgate(["default"], { ACCESS_TOKEN_TTL_SECONDS: "12" });
  await writeSessionSettings(tg.kv, "default", {
    sessionMode: "sliding",
    sessionIdleSeconds: 60,
    sessionMaxSeconds: null,
  });
  tg.services.sessions.invalidate("default");
  const proxy = await start(portsFor(tg.port, site.port));
  try {
    const base = proxy.base;
    const v = new Visitor(base);
    const wait = (await v.req("/shop")).res.headers.get("location")!;
    await admitThrough(base, tg, v, wait);
    const first = v.cookies.get("tg_access")!;
    let r = await v.req("/shop/a", { headers: { "x-tollgate-cookie": "tg_access=forged" } });
    assertEquals(r.res.status, 200);
    assertEquals(r.res.headers.getSetCookie(), [], "no cookie: the token is fresh");
    // Past half the token's life: the check re-issues it and the proxy hands the cookie on.
    await new Promise((ok) => setTimeout(ok, 6500));
    r = await v.req("/shop/b");
    assertEquals(r.res.status, 200, r.text.slice(0, 200));
    const set = r.res.headers.getSetCookie().filter((c) => c.startsWith("tg_access="));
    assertEquals(set.length, 1, `one fresh cookie: ${r.res.headers.getSetCookie()}`);
    assert(/HttpOnly/.test(set[0]) && /Path=\//.test(set[0]), set[0]);
    const fresh = v.cookies.get("tg_access")!;
    assert(fresh !== first, "the visitor holds the re-issued token");
    const iat = (t: string) => (claimsOf(t) as { iat: number }).iat;
    assert(iat(fresh) > iat(first));
    assertEquals((await v.req("/shop/c")).res.status, 200, "the new token passes");
    // The site's server ends the session (after checkout), straight to Tollgate.
    const rel = await fetch(`${tg.base}/_tollgate/release`, {
      method: "POST",
      headers: { authorization: `Bearer ${fresh}` },
    });
    assertEquals(rel.status, 200);
    assertEquals((await rel.json()).freed, true);
    const before = site.hits.length;
    r = await v.req("/shop/d");
    assertEquals(r.res.status, 302, "released: back to the waiting room");
    assertEquals(site.hits.length, before);
  } catch (e) {
    console.error(proxy.log().slice(-3000));
    throw e;
  } finally {
    await proxy.stop();
    await tg.close().catch(() => {});
    await site.close();
  }
}

for (
  const [name, bin, start] of [["nginx.conf", NGINX, startNginx], [
    "Caddyfile",
    CADDY,
    startCaddy,
  ]] as const
) {
  const skip = missing(bin);
  Deno.test({
    name: `${name}: a sliding session's fresh cookie reaches the visitor; a release sends it back`,
    ignore: skip !== null,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => slidingScenario((ports) => start(ports)),
  });
}

Deno.test("traefik.yml: forwardAuth adds the check's fresh tg_access cookie to the site's answer", async () => {
  const text = await Deno.readTextFile(
    new URL("../../docs/examples/traefik.yml", import.meta.url),
  );
  const auth = parse(text) as {
    http: {
      middlewares: Record<string, { forwardAuth?: { addAuthCookiesToResponse?: string[] } }>;
    };
  };
  const fa = auth.http.middlewares["tollgate-admission"].forwardAuth!;
  assertEquals(fa.addAuthCookiesToResponse, ["tg_access"]);
  // The check's answer Traefik reads: 204 with the fresh cookie once the token was re-issued.
  const t = await makeApp({ BASE_PATH: "/_tollgate", VERIFY_TOKEN_IN_QUERY: false });
  await setSessions(t, { sessionIdleSeconds: 60 });
  const v = await admittedVisitor(t);
  const check = () =>
    t.app.request("/_tollgate/verify/forward-auth", {
      headers: { cookie: `tg_access=${v.token}`, "x-forwarded-uri": "/shop" },
    });
  assertEquals(accessCookie(await check()), undefined);
  // An active visitor: a request every 20 s, past half the token's 900 s.
  let fresh: string | undefined;
  for (let s = 0; s < 24 && !fresh; s++) {
    t.clock.advance(20_000);
    const res = await check();
    assertEquals(res.status, 204);
    fresh = accessCookie(res);
  }
  assert(fresh, "a fresh tg_access cookie");
  t.close();
});
