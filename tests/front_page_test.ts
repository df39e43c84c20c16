/**
 * The front door: a browser at `/` (no site behind Tollgate) gets a small page linking to the
 * waiting room, the admin app and the docs; a page that is not here (an admitted visitor's
 * `?return=` path with no site set up) gets the same links with a 404; API clients keep the JSON
 * envelope; with an https site named for admitted visitors, `/` goes there.
 */
import { assert, assertEquals } from "./assert.ts";
import { makeApp, writeBranding } from "./helpers.ts";

const HTML = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

Deno.test("front page: / links to the waiting room, admin and docs; other pages 404 in HTML", async () => {
  const t = await makeApp();
  try {
    const home = await t.app.request("/", { headers: HTML });
    assertEquals(home.status, 200);
    assert(home.headers.get("content-type")!.includes("text/html"));
    const body = await home.text();
    for (const link of ['href="/wait"', 'href="/admin"', 'href="/wait/how-it-works"', "#readme"]) {
      assert(body.includes(link), `links ${link}`);
    }
    assert(!body.includes("no route for"), "not the API's words");

    const shop = await t.app.request("/shop?x=1", { headers: HTML });
    assertEquals(shop.status, 404);
    const text = await shop.text();
    assert(text.includes("No page here") && text.includes('href="/wait"'), text);

    const api = await t.app.request("/", { headers: { accept: "application/json" } });
    assertEquals(api.status, 404);
    assertEquals((await api.json()).error.code, "not_found");
    const post = await t.app.request("/", { method: "POST", headers: HTML });
    assertEquals(post.status, 404);
    assertEquals((await post.json()).error.code, "not_found", "only pages are pages");
  } finally {
    t.close();
  }
});

Deno.test("front page: / goes to the operator's https site when the branding names one", async () => {
  const t = await makeApp();
  try {
    await writeBranding(t.kv, t.engine, { redirectUrl: "https://shop.example.com/" });
    const r = await t.app.request("/", { headers: HTML });
    assertEquals(r.status, 302);
    assertEquals(r.headers.get("location"), "https://shop.example.com/");
  } finally {
    t.close();
  }
});
