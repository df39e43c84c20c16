/**
 * Path rules and a closed room through Debian's nginx (auth_request) and Caddy (forward_auth),
 * each started from its example in docs/examples/ in front of a real Tollgate and a small site:
 * one test per kind of rule (path, asset, query, address, route to another queue), decided by
 * Tollgate's check from the URI the proxy names, so the examples need no rules of their own.
 */
import { assert, assertEquals } from "../assert.ts";
import type { PathRule } from "../../lib/paths/rules.ts";
import {
  CADDY,
  missing,
  NGINX,
  portsFor,
  type Proxy,
  startCaddy,
  startNginx,
  startSite,
  startTollgate,
} from "./procs.ts";
import { Visitor } from "./scenario.ts";
import type { Ports } from "./examples.ts";

const RULES: PathRule[] = [
  { match: "path", pattern: "/healthz", action: "bypass" },
  { match: "asset", pattern: "css,js", action: "bypass" },
  { match: "query", pattern: "webhook=stripe", action: "bypass" },
  { match: "address", pattern: "198.51.100.0/24", action: "bypass" },
  { match: "path", pattern: "/tickets/**", action: "route", queue: "tickets" },
];

for (
  const [name, bin, start] of [
    ["nginx.conf", NGINX, (p: Ports) => startNginx(p)],
    ["Caddyfile", CADDY, (p: Ports) => startCaddy(p)],
  ] as const
) {
  const skip = missing(bin);
  Deno.test({
    name: `${name}: each kind of path rule, and a closed room, through the real proxy`,
    ignore: skip !== null,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const site = startSite();
      const tg = await startTollgate(["default", "tickets"]);
      let proxy: Proxy | undefined;
      try {
        await tg.services.paths.save("default", RULES, ["default", "tickets"]);
        proxy = await start(portsFor(tg.port, site.port));
        const v = new Visitor(proxy.base);
        const passes = async (path: string) => {
          const before = site.hits.length;
          const r = await v.req(path);
          assertEquals(r.res.status, 200, `${path}: ${r.text.slice(0, 200)}`);
          assertEquals(site.hits.length, before + 1);
          assertEquals(site.hits.at(-1)!.path, path);
          // Nobody was admitted: the site is not told of a visitor or a queue.
          const h = site.hits.at(-1)!.headers;
          assertEquals([h.get("x-tollgate-visitor") ?? "", h.get("x-tollgate-queue") ?? ""], [
            "",
            "",
          ]);
        };
        await t.step("path: a health check passes", () => passes("/healthz"));
        await t.step("asset: static files pass", () => passes("/assets/app.css"));
        await t.step(
          "query: the payment provider's webhook passes",
          () => passes("/hooks?webhook=stripe"),
        );
        await t.step("address: only the listed network passes", async () => {
          // The proxies name the client 127.0.0.1 (loopback): not in 198.51.100.0/24.
          const r = await v.req("/shop");
          assertEquals(r.res.status, 302);
          assertEquals(
            r.res.headers.get("location"),
            `${proxy!.base}/_tollgate/wait?return=%2Fshop`,
          );
          await tg.services.paths.save("default", [
            { match: "address", pattern: "127.0.0.1", action: "bypass" },
          ], ["default", "tickets"]);
          await passes("/shop");
          await tg.services.paths.save("default", RULES, ["default", "tickets"]);
        });
        await t.step("route: another queue's waiting room, and only its tokens", async () => {
          const r = await v.req("/tickets/show?seat=4");
          assertEquals(r.res.status, 302);
          assertEquals(
            r.res.headers.get("location"),
            `${proxy!.base}/_tollgate/wait?queue=tickets&return=%2Ftickets%2Fshow%3Fseat%3D4`,
          );
          const dflt = await tg.services.signer.signAccessToken("v-1", "default", Date.now(), 60);
          const other = await v.req("/tickets/show", { headers: { cookie: `tg_access=${dflt}` } });
          assertEquals(other.res.status, 302, "the default queue's token does not open it");
          const tix = await tg.services.signer.signAccessToken("v-2", "tickets", Date.now(), 60);
          const ok = await v.req("/tickets/show", { headers: { cookie: `tg_access=${tix}` } });
          assertEquals(ok.res.status, 200);
        });
        await t.step(
          "a closed room: its page for browsers, bypassed paths still pass",
          async () => {
            await tg.services.rooms.save("default", {
              mode: "reject",
              closedMessage: "Closed for stocktaking.",
              retryAfterSeconds: 45,
            });
            const r = await v.req("/shop");
            assertEquals(r.res.status, 302);
            const page = await v.req(r.res.headers.get("location")!);
            assertEquals(page.res.status, 503);
            assertEquals(page.res.headers.get("retry-after"), "45");
            assert(page.text.includes("Closed for stocktaking."));
            await passes("/healthz");
            if (name === "Caddyfile") {
              // Caddy hands the check's answer to an API client as it is: 503 and Retry-After.
              const api = await v.req("/api/cart", { method: "POST", body: "{}" });
              assertEquals(api.res.status, 503);
              assertEquals(api.res.headers.get("retry-after"), "45");
              assertEquals(JSON.parse(api.text).error.code, "room_closed");
            }
          },
        );
      } catch (e) {
        if (proxy) console.error(proxy.log().slice(-3000));
        throw e;
      } finally {
        await proxy?.stop();
        await tg.close().catch(() => {});
        await site.close();
      }
    },
  });
}
