/**
 * docs/examples/nginx.conf and nginx-queues.conf run by Debian's nginx (auth_request) in front
 * of a real Tollgate and a small site on loopback.
 */
import { assert, assertEquals } from "../assert.ts";
import { missing, NGINX, portsFor, startNginx, startSite, startTollgate } from "./procs.ts";
import { admitThrough, failOpenScenario, forwardAuthScenario, Visitor } from "./scenario.ts";
import { checkCacheSwaps } from "./examples.ts";
import { Signer } from "../../lib/tokens.ts";

const skip = missing(NGINX);
if (skip) console.warn(`SKIPPED nginx forward-auth tests: ${skip}`);

Deno.test({
  name: "nginx.conf: waiting room, admission, what the site receives, Tollgate down",
  ignore: skip !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: (t) => forwardAuthScenario(t, (ports) => startNginx(ports)),
});

Deno.test({
  name: "nginx.conf with the documented fail-open switch: Tollgate down lets visitors through",
  ignore: skip !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    failOpenScenario((ports) =>
      startNginx(ports, "nginx.conf", [
        ["error_page 500 = @tollgate_down;", "error_page 500 = @tollgate_down_open;"],
      ])
    ),
});

Deno.test({
  name: "nginx-queues.conf: /tickets/ and the rest of the site wait in their own queues",
  ignore: skip !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const site = startSite();
    const tg = await startTollgate(["default", "tickets"]);
    const proxy = await startNginx(portsFor(tg.port, site.port), "nginx-queues.conf");
    try {
      const base = proxy.base;
      const v = new Visitor(base);
      let r = await v.req("/tickets/show?seat=4");
      assertEquals(r.res.status, 302);
      const wait = `${base}/_tollgate/wait?queue=tickets&return=%2Ftickets%2Fshow%3Fseat%3D4`;
      assertEquals(r.res.headers.get("location"), wait);
      r = await v.req("/shop");
      assertEquals(
        r.res.headers.get("location"),
        `${base}/_tollgate/wait?queue=default&return=%2Fshop`,
      );
      assertEquals(await admitThrough(base, tg, v, wait, "tickets"), "/tickets/show?seat=4");
      r = await v.req("/tickets/show?seat=4");
      assertEquals(r.res.status, 200);
      assertEquals(site.hits.at(-1)!.headers.get("x-tollgate-queue"), "tickets");
      // A tickets token does not open the rest of the site: that line is the default queue's.
      r = await v.req("/shop");
      assertEquals(r.res.status, 302);
      assertEquals(
        r.res.headers.get("location"),
        `${base}/_tollgate/wait?queue=default&return=%2Fshop`,
      );
      assertEquals(site.hits.length, 1);
    } catch (e) {
      console.error(proxy.log().slice(-3000));
      throw e;
    } finally {
      await proxy.stop();
      await tg.close().catch(() => {});
      await site.close();
    }
  },
});

Deno.test({
  name:
    "nginx.conf with the check cache of docs/forward-auth.md: an admitted cookie skips the check for a while, nothing else is cached",
  ignore: skip !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const site = startSite();
    const tg = await startTollgate(["default"]);
    const cache = await Deno.makeTempDir({ prefix: "tollgate-checks-" });
    const proxy = await startNginx(
      portsFor(tg.port, site.port),
      "nginx.conf",
      checkCacheSwaps(cache),
    );
    try {
      const base = proxy.base;
      const v = new Visitor(base);
      const wait = (await v.req("/shop")).res.headers.get("location")!;
      await admitThrough(base, tg, v, wait);
      assertEquals((await v.req("/shop")).res.status, 200, "admitted, and the answer cached");
      const other = await new Signer(tg.config.TOKEN_SECRET).signAccessToken(
        "v-other-1",
        "default",
        Date.now(),
        60,
      );
      await tg.close();
      // Tollgate is gone: only the cookie whose check was cached still passes.
      assertEquals((await v.req("/shop")).res.status, 200);
      for (const cookie of [`tg_access=${other}`, ""]) {
        const r = await fetch(`${base}/shop`, { headers: cookie ? { cookie } : {} });
        await r.body?.cancel();
        assertEquals(r.status, 503, `never cached: ${cookie || "no cookie"}`);
      }
    } catch (e) {
      console.error(proxy.log().slice(-3000));
      throw e;
    } finally {
      await proxy.stop();
      await tg.close().catch(() => {});
      await site.close();
      await Deno.remove(cache, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "nginx-queues.conf naming a queue Tollgate lacks: nobody passes, and Tollgate's log says why",
  ignore: skip !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const site = startSite();
    const tg = await startTollgate(["default"]); // no `tickets` queue: the file is wrong for it
    const proxy = await startNginx(portsFor(tg.port, site.port), "nginx-queues.conf");
    const logged: string[] = [];
    const orig = console.error;
    console.error = (...a: unknown[]) => logged.push(a.map(String).join(" "));
    try {
      const r = await new Visitor(proxy.base).req("/tickets/show?seat=4");
      // nginx answers a failed check (404) with the file's "cannot answer just now" page (fail-closed).
      assertEquals(r.res.status, 503);
      assertEquals(site.hits.length, 0, "nobody reached the site");
      assert(
        logged.some((l) =>
          l.includes('"proxy check for an unknown queue"') && l.includes("tickets")
        ),
        logged.join("\n"),
      );
      assert(/auth request unexpected status: 404/.test(proxy.log()), "nginx's error log says so");
    } finally {
      console.error = orig;
      await proxy.stop();
      await tg.close().catch(() => {});
      await site.close();
    }
  },
});
