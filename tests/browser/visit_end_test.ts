/**
 * The end of a visit behind the origin proxy, walked on a phone in German: a deep link waits, is
 * let in where it asked, the site ends the session (`Tollgate-Command: release` after checkout, or
 * `POST /release` from its server), and the next page says the visit ended with "Join the line
 * again", instead of quietly putting the visitor at the back of the line as a newcomer (what a
 * walk of the journeys found). Behind forward auth, where the site's proxy sends the visitor to
 * `/wait` itself, the page knows it from the released token the browser still carries. Pressing
 * "Join the line again" queues the visitor, who lands where it was going. The
 * origin page's image (and favicon) fetches the proxy sends to the waiting room join nothing.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { CATALOGUES } from "../../lib/i18n/catalogues.ts";
import { assert, assertEquals } from "../assert.ts";
import { startOrigin } from "../origin_helpers.ts";
import { launchBrowser, startServer, type TestServer } from "./helper.ts";

const de = CATALOGUES.de;
const T = { timeout: 20_000 };

/**
 * The shop: `/checkout` ends the visitor's session, every page says where it is and shows an
 * image, which the browser fetches (from the waiting room, once the session ended) before the
 * page counts as loaded: such a fetch must not take the page's "visit ended" notice or a place.
 */
function shop() {
  return startOrigin((_req, url) => {
    const page = `<!doctype html><html lang="en"><title>Shop</title>` +
      `<p id="at">${url.pathname}${url.search}</p><img src="/logo.png" alt="">`;
    const headers: Record<string, string> = { "content-type": "text/html" };
    if (url.pathname === "/checkout") headers["tollgate-command"] = "release";
    return new Response(page, { headers });
  });
}

/** A phone that waits at `path` and is let in there (the proxy's detour and back). */
async function admittedPhone(b: Browser, srv: TestServer, path: string): Promise<Page> {
  const ctx = await b.newContext({
    viewport: { width: 360, height: 740 },
    locale: "de-DE",
    isMobile: true,
  });
  const page = await ctx.newPage();
  await page.goto(`${srv.base}${path}`);
  await page.locator(".place").waitFor(T);
  assertEquals(await srv.admit("default"), 1);
  await page.locator("#at").waitFor(T);
  assertEquals(await page.locator("#at").textContent(), path, "the deep link, query and all");
  return page;
}

/** The page says the visit ended, fits the phone, and takes no place; its button queues again. */
async function saysEnded(page: Page, srv: TestServer, path: string): Promise<void> {
  await page.getByRole("heading", { name: de["notice.visitEnded"] }).waitFor(T);
  assertEquals(await page.title(), de["notice.visitEnded"]);
  assertEquals(await page.locator(".place").count(), 0, "no place taken behind its back");
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert(wide <= 360, `no horizontal scroll (${wide} px)`);
  const again = page.getByRole("link", { name: de["wait.joinAgain"] });
  await again.focus(); // reachable from the keyboard
  await page.keyboard.press("Enter");
  await page.locator(".place").waitFor(T);
  assertEquals(await srv.admit("default"), 1);
  await page.locator("#at").waitFor(T);
  assertEquals(await page.locator("#at").textContent(), path);
}

/** The visitor's tg_access cookie. */
async function accessToken(ctx: BrowserContext): Promise<string> {
  const c = (await ctx.cookies()).find((c) => c.name === "tg_access");
  assert(c, "the visitor holds an access token");
  return c.value;
}

Deno.test({
  name: "a visit the site ended says so on the next page and offers the line again",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const origin = shop();
    const srv = await startServer(["default"], { ORIGIN_URL: origin.url });
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const b = browser;

      await t.step("Tollgate-Command: release after checkout", async () => {
        const page = await admittedPhone(b, srv, "/shop?item=7&size=M");
        await page.goto(`${srv.base}/page2`);
        assertEquals(await page.locator("#at").textContent(), "/page2", "still in");
        await page.goto(`${srv.base}/checkout`);
        assertEquals(await page.locator("#at").textContent(), "/checkout");
        await page.goto(`${srv.base}/page3?x=1`);
        await saysEnded(page, srv, "/page3?x=1");
        await page.context().close();
      });

      await t.step("POST /release from the site's server", async () => {
        const page = await admittedPhone(b, srv, "/shop?item=8");
        const res = await fetch(`${srv.base}/release`, {
          method: "POST",
          headers: { authorization: `Bearer ${await accessToken(page.context())}` },
        });
        assertEquals(res.status, 200, await res.text());
        await page.goto(`${srv.base}/basket`);
        await saysEnded(page, srv, "/basket");
        await page.context().close();
      });

      await t.step(
        "forward auth: the site's proxy sends the released visitor to /wait",
        async () => {
          // No origin proxy in this path: /verify refuses the released token and the site's own
          // proxy (nginx, Caddy, Traefik) redirects to the waiting room, token cookie and all.
          const page = await admittedPhone(b, srv, "/shop?item=9");
          const token = await accessToken(page.context());
          const bearer = { authorization: `Bearer ${token}` };
          const res = await fetch(`${srv.base}/release`, { method: "POST", headers: bearer });
          assertEquals(res.status, 200, await res.text());
          const verify = await fetch(`${srv.base}/verify`, { headers: bearer });
          assertEquals(verify.status, 401, "the released token is refused");
          await verify.body?.cancel();
          await page.goto(`${srv.base}/wait?return=${encodeURIComponent("/basket?x=2")}`);
          await saysEnded(page, srv, "/basket?x=2");
          await page.context().close();
        },
      );
    } finally {
      await browser?.close();
      await srv.close();
      await origin.close();
    }
  },
});
