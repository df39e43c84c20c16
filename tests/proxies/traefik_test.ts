/**
 * docs/examples/traefik.yml, read as Traefik reads it (no Debian package runs it here): its
 * forwardAuth address is a check Tollgate answers under the prefix, the headers it copies are the
 * ones Tollgate sends, a client's X-Forwarded-* are not trusted, and the error page wraps the check.
 */
import { parse } from "yaml";
import { assert, assertEquals } from "../assert.ts";
import { makeApp } from "../helpers.ts";
import { EXAMPLE_ENV } from "./procs.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("traefik.yml: the forwardAuth middleware asks a check Tollgate answers as Traefik expects", async () => {
  const text = await Deno.readTextFile(
    new URL("../../docs/examples/traefik.yml", import.meta.url),
  );
  const doc: Any = parse(text);
  const http = doc.http;
  const auth = http.middlewares["tollgate-admission"].forwardAuth;
  // Traefik sets X-Forwarded-* itself only while it does not trust the client's.
  assert(auth.trustForwardHeader !== true, "trustForwardHeader stays false");
  const address = new URL(auth.address);
  assertEquals(address.origin, http.services.tollgate.loadBalancer.servers[0].url);
  assertEquals(address.pathname, `${EXAMPLE_ENV.BASE_PATH}/verify/forward-auth`);
  assertEquals(auth.authResponseHeaders, ["X-Tollgate-Visitor", "X-Tollgate-Queue"]);
  // The site's router: the error page outermost, then the check; Tollgate's own router first.
  assertEquals(http.routers.site.middlewares, ["tollgate-down", "tollgate-admission"]);
  assert(http.routers.tollgate.priority > http.routers.site.priority);
  assert(http.routers.tollgate.rule.includes(`PathPrefix(\`${EXAMPLE_ENV.BASE_PATH}/\`)`));
  assertEquals(http.middlewares["tollgate-down"].errors.status, ["500"]);

  // What Tollgate answers there, with the headers Traefik sends.
  const t = await makeApp({ BASE_PATH: EXAMPLE_ENV.BASE_PATH, VERIFY_TOKEN_IN_QUERY: false });
  const ask = (headers: Record<string, string>) =>
    t.fetch(new Request(`${auth.address}`, { headers }));
  const traefik = {
    "x-forwarded-method": "GET",
    "x-forwarded-proto": "https",
    "x-forwarded-host": "shop.example.com",
    "x-forwarded-uri": "/shop?x=1",
  };
  let r = await ask(traefik);
  assertEquals(r.status, 302);
  // Absolute on the visitor's host: Traefik would resolve a relative one against the address.
  assertEquals(
    r.headers.get("location"),
    "https://shop.example.com/_tollgate/wait?return=%2Fshop%3Fx%3D1",
  );
  r = await ask({ ...traefik, "x-forwarded-method": "POST" });
  assertEquals(r.status, 401);
  const token = await t.services.signer.signAccessToken("v-traefik", "default", t.clock.now(), 60);
  r = await ask({ ...traefik, cookie: `tg_access=${token}` });
  assertEquals(r.status, 204);
  for (const h of auth.authResponseHeaders) assert(r.headers.get(h), `${h} is sent`);
  t.close();
});
