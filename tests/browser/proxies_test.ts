/**
 * A visitor in real Chromium through Debian's nginx and Caddy, each started from its file in
 * docs/examples/: the protected item sends it to the waiting room under /_tollgate/, the page's
 * bundle and calls work under that prefix, and after /admit it lands on the item it asked for;
 * the admin app, opened under the prefix, calls its API there too.
 */
import type { Browser } from "playwright-core";
import { assert, assertEquals } from "../assert.ts";
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
} from "../proxies/procs.ts";
import { operatorCall } from "../proxies/scenario.ts";
import { launchBrowser } from "./helper.ts";

const TURN_MS = 20_000;

for (
  const [name, bin, start] of [
    ["nginx", NGINX, (p: Ports) => startNginx(p)],
    ["Caddy", CADDY, (p: Ports) => startCaddy(p)],
  ] as [string, string, (p: Ports) => Promise<Proxy>][]
) {
  const skip = missing(bin);
  if (skip) console.warn(`SKIPPED the ${name} browser run: ${skip}`);
  Deno.test({
    name: `Chromium through ${name}: waiting room under /_tollgate, then the item`,
    ignore: skip !== null,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const site = startSite();
      const tg = await startTollgate(["default"]);
      let proxy: Proxy | undefined;
      let browser: Browser | undefined;
      try {
        proxy = await start(portsFor(tg.port, site.port));
        const base = proxy.base;
        browser = await launchBrowser();
        const page = await (await browser.newContext()).newPage();
        const calls: string[] = [];
        page.on("request", (r) => calls.push(new URL(r.url()).pathname));
        await page.goto(`${base}/shop/item?x=1`);
        assert(
          page.url().startsWith(`${base}/_tollgate/wait?return=%2Fshop%2Fitem%3Fx%3D1`),
          page.url(),
        );
        // The island runs: its bundle came through the proxy under the prefix.
        await page.locator("#tg-wait[data-live='1']").waitFor({ timeout: 10_000 });
        assertEquals(site.hits.length, 0, "the site saw nothing while the visitor waits");
        const admitted = Date.now();
        assertEquals(
          (await operatorCall(base, tg, "/admit", { queue: "default", count: 1 }))
            .admitted,
          1,
        );
        await page.waitForURL(`${base}/shop/item?x=1`, { timeout: TURN_MS });
        assertEquals(await page.locator("#site").textContent(), "site page /shop/item");
        console.log(`${name}: admitted to the item in ${Date.now() - admitted} ms`);
        // Every call of the waiting room went to Tollgate's prefix, none to the site's paths.
        const own = calls.filter((p) => !p.startsWith("/shop/"));
        assert(own.length > 0 && own.every((p) => p.startsWith("/_tollgate/")), own.join(" "));
        assert(own.some((p) => p.startsWith("/_tollgate/static/build/")), "the bundle");
        // Later pages pass without a detour, the site's own /status included.
        const later = await page.goto(`${base}/status`);
        assertEquals(later?.status(), 200);
        assert((await later!.text()).includes('"site":true'));
        // (Chromium asks the site's pages for their favicon too: admitted, so the site gets it.)
        const paths = site.hits.map((h) => h.path).filter((p) => p !== "/favicon.ico");
        assertEquals(paths, ["/shop/item?x=1", "/status"]);

        // The admin app under the prefix: its bundle and its API calls go there too.
        const admin = await (await browser.newContext()).newPage();
        const api: string[] = [];
        admin.on("response", (r) => {
          const p = new URL(r.url()).pathname;
          if (p.includes("/api/")) api.push(`${p} ${r.status()}`);
        });
        await admin.goto(`${base}/_tollgate/admin`);
        await admin.waitForResponse((r) => r.url().includes("/api/admin/bootstrap"));
        assert(
          api.length > 0 && api.every((a) => a.startsWith("/_tollgate/api/admin/")),
          api.join(),
        );
        assert(api.includes("/_tollgate/api/admin/bootstrap 200"), api.join());
      } catch (e) {
        if (proxy) console.error(proxy.log().slice(-3000));
        throw e;
      } finally {
        await browser?.close();
        await proxy?.stop();
        await tg.close();
        await site.close();
      }
    },
  });
}
