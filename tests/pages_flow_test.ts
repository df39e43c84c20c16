/** HTTP-level tests of /wait: destinations, no-JS flow, embed, CSP, the bundle. */
import { countdown } from "../client/format.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { admit, cookieAttrs, landing, postEnter, props, Q, waitingApp } from "./pages_helpers.ts";

Deno.test("GET /wait honours ?return= only for a same-origin relative path", async () => {
  const cases: [string, string][] = [
    ["?return=%2Fshop%3Fx%3D1", "/shop?x=1"],
    ["?return=%2F%2Fevil.example", "/demo"],
    ["?return=%2F%5Cevil.example", "/demo"],
    ["?return=https%3A%2F%2Fx.example", "/demo"],
    ["?return=javascript%3Aalert(1)", "/demo"],
    ["?return=%2Fok%0d%0aSet-Cookie%3A%20x", "/demo"],
    ["", "/demo"],
  ];
  for (const [query, want] of cases) {
    const t = await makeApp({ ADMIT_PER_SECOND: 1 });
    assertEquals(await landing(t, query), want, query);
    t.close();
  }
});

Deno.test("GET /wait goes to branding redirectUrl, or / when the origin proxy is on", async () => {
  let t = await makeApp({ ADMIT_PER_SECOND: 1 });
  await t.setBranding({ redirectUrl: "https://shop.example/welcome" });
  assertEquals(await landing(t, ""), "https://shop.example/welcome");
  t.close();
  t = await makeApp({ ADMIT_PER_SECOND: 1 });
  await t.setBranding({ redirectUrl: "https://shop.example/welcome" });
  assertEquals(await landing(t, "?return=%2Fcart"), "/cart", "return= wins");
  t.close();
  t = await makeApp({ ADMIT_PER_SECOND: 1, ORIGIN_URL: "https://origin.example" });
  assertEquals(await landing(t, ""), "/");
  t.close();
});

// ------------------------------------------------------------------ no-JS behaviour

Deno.test("no JS: the meta refresh fires at nextCheckAt and each visit is a status check", async () => {
  const t = await waitingApp();
  const v = new Client(t.app);
  t.clock.advance(300);
  const r = await v.req("GET", "/wait?return=%2Fshop");
  const nca: number = props(r.text).view.nextCheckAt;
  const secs = Math.max(1, Math.ceil((nca - t.clock.now()) / 1000));
  const m = r.text.match(/<noscript><meta http-equiv="refresh" content="(\d+); url=([^"]+)"\/>/);
  assert(m, "a refresh for no-JS visitors");
  assertEquals(Number(m[1]), secs);
  assertEquals(m[2], "/wait?queue=default&amp;return=%2Fshop&amp;start=1");
  // Before the slot: read-only, the same slot. At the slot: renewed, the next one.
  const early = await v.req("GET", "/wait?return=%2Fshop");
  assertEquals(props(early.text).view.nextCheckAt, nca);
  t.clock.advance(nca - t.clock.now());
  const due = await v.req("GET", "/wait?return=%2Fshop");
  assert(props(due.text).view.nextCheckAt > nca, "a due visit renews the timeslot");
  t.close();
});

Deno.test("no JS: an admitted visitor is redirected to the destination with tg_access", async () => {
  const t = await waitingApp();
  const v = new Client(t.app);
  await v.req("GET", "/wait?return=%2Fdemo");
  await admit(t);
  const r = await v.req("GET", "/wait?return=%2Fdemo");
  assertEquals(r.status, 303);
  assertEquals(r.headers.get("location"), "/demo");
  assertEquals(cookieAttrs(r.headers, "tg_access"), [
    "max-age=900",
    "path=/",
    "httponly",
    "samesite=lax",
  ]);
  const demo = await v.req("GET", "/demo");
  assertEquals(demo.status, 200);
  assert(demo.text.includes(`<dd data-claim="sub">${v.visitorId}</dd>`));
  assert(demo.text.includes(`<dd data-claim="queue">default</dd>`));
  t.close();
});

Deno.test("no JS click-to-enter: a form posts to /wait/enter, which enters and redirects", async () => {
  const t = await waitingApp();
  await t.setBranding({ clickToEnter: true, admitHoldSeconds: 45 });
  const v = new Client(t.app);
  await v.req("GET", "/wait?return=%2Fshop");
  const early = await postEnter(v, { queue: Q, return: "/shop" });
  assertEquals(early.status, 303, "still waiting: back to the line");
  assertEquals(early.headers.get("location"), "/wait?queue=default&return=%2Fshop");
  assertEquals(v.cookies.has("tg_access"), false);
  await admit(t);
  const page = await v.req("GET", "/wait?return=%2Fshop");
  assertEquals(page.status, 200, "click-to-enter shows the page, not a redirect");
  assert(page.text.includes(`<form method="post" action="/wait/enter">`));
  assert(page.text.includes(`<input type="hidden" name="return" value="/shop"/>`));
  assert(page.text.includes(">Enter now</button>"));
  const held = props(page.text).view.enterBy - t.clock.now();
  assert(held >= 45_000, "held for admitHoldSeconds from when the visitor can learn of it");
  assert(
    page.text.includes(`<span class="countdown" dir="ltr">${countdown(held)}</span>`),
    "the countdown",
  );
  assertEquals(v.cookies.has("tg_access"), false, "not entered yet");
  assertEquals(props(page.text).view.accessToken, undefined);
  const res = await postEnter(v, { queue: Q, return: "//evil.example" });
  assertEquals(res.status, 303);
  assertEquals(res.headers.get("location"), "/demo", "a bad return= is ignored here too");
  assert(v.cookies.has("tg_access"));
  assertEquals((await v.req("GET", "/demo")).status, 200);
  t.close();
});

Deno.test("/wait/enter without a ticket or with a bad queue does nothing", async () => {
  const t = await waitingApp();
  const stranger = new Client(t.app);
  const r = await postEnter(stranger, { queue: Q });
  assertEquals([r.status, r.headers.get("location")], [303, "/wait?queue=default"]);
  const bad = await postEnter(stranger, { queue: "../x" });
  assertEquals(bad.status, 400);
  assertEquals(stranger.cookies.size, 0);
  t.close();
});

// ------------------------------------------------------------------ embed, CSP, assets

Deno.test("?embed=1: compact layout without chrome, frameable; normal pages are not", async () => {
  const t = await waitingApp();
  const normal = await new Client(t.app).req("GET", "/wait");
  assert(normal.text.includes("<footer>"));
  assert(normal.headers.get("content-security-policy")!.includes("frame-ancestors 'self'"));
  const v = new Client(t.app);
  const e = await v.req("GET", "/wait?embed=1");
  assertEquals(e.status, 200);
  assert(e.text.includes(`<body class="embed">`));
  assert(!e.text.includes("<footer>") && !e.text.includes("<header"), "no page chrome");
  assert(e.headers.get("content-security-policy")!.includes("frame-ancestors *"));
  assertEquals(
    e.headers.get("x-frame-options"),
    null,
    "frame-ancestors decides, not X-Frame-Options",
  );
  assert(e.text.includes("embed=1"), "the refresh keeps the embed layout");
  // Admitted in an iframe: a link that opens the destination in the whole window, no redirect.
  await admit(t, 2);
  const turn = await v.req("GET", "/wait?embed=1");
  assertEquals(turn.status, 200);
  assert(turn.text.includes(`<a class="button" href="/demo" target="_top">Continue</a>`));
  assert(v.cookies.has("tg_access"));
  assert(!turn.text.includes(v.cookies.get("tg_access")!), "the token is not in the page");
  t.close();
});

Deno.test("pages send a strict CSP: own scripts only, no inline script, style by hash", async () => {
  const t = await waitingApp();
  await t.setBranding({ redirectUrl: "https://shop.example/in" });
  const r = await new Client(t.app).req("GET", "/wait");
  const csp = r.headers.get("content-security-policy")!;
  assert(csp.includes("default-src 'none'"));
  assert(csp.includes("script-src 'self';"), csp);
  assert(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"));
  assert(csp.includes("form-action 'self' https://shop.example"), csp);
  const style = r.text.match(/<style>([^<]*)<\/style>/)![1];
  const hash = btoa(String.fromCharCode(
    ...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style))),
  ));
  assert(csp.includes(`'sha256-${hash}'`), "the inline theme is allowed by its hash");
  for (const tag of r.text.match(/<script[^>]*>/g) ?? []) {
    assert(/ src="\/static\/build\//.test(tag) || tag.includes(`type="application/json"`), tag);
  }
  t.close();
});

Deno.test("the waiting page's bundle is built, under 40 KB, served hashed with a year of cache", async () => {
  const manifest = JSON.parse(
    await Deno.readTextFile(new URL("../static/build/manifest.json", import.meta.url)),
  );
  // The visitor's JavaScript: the wait page's bundle (the admin app's has its own budget, in
  // tests/admin_app_test.ts).
  const total =
    (await Deno.stat(new URL(`../static/build/${manifest["wait.js"]}`, import.meta.url)))
      .size;
  assert(total > 1000, "a real bundle");
  assert(total < 40 * 1024, `JavaScript is ${total} bytes`);
  const t = await waitingApp();
  const page = await new Client(t.app).req("GET", "/wait");
  const src = page.text.match(/<script type="module" src="([^"]+)"/)![1];
  assertEquals(src, `/static/build/${manifest["wait.js"]}`);
  const js = await t.app.request(src);
  assertEquals(js.headers.get("content-type"), "text/javascript; charset=utf-8");
  assertEquals(js.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assertEquals(
    (await js.arrayBuffer()).byteLength,
    (await Deno.stat(new URL(`../static/build/${manifest["wait.js"]}`, import.meta.url))).size,
  );
  const css = await t.app.request(`/static/build/${manifest["style.css"]}`);
  assertEquals(css.headers.get("content-type"), "text/css; charset=utf-8");
  await css.body?.cancel();
  for (
    const bad of [
      "/static/build/nope-000000000000.js",
      "/static/.gitignore",
      "/static/%2e%2e/deno.json",
    ]
  ) {
    const r = await t.app.request(bad);
    assertEquals(r.status, 404, bad);
    await r.body?.cancel();
  }
  t.close();
});
