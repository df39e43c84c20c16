/** HTTP-level tests of the visitor pages: /wait, /wait/enter, /demo, /static and the bundle. */
import { destinationFor, originProxyOn, safeReturnPath } from "../lib/destination.ts";
import { countdown, percent, placeText, progressShare, waitWords } from "../client/format.ts";
import { safeColour, safeLogoUrl, textOn } from "../routes/pages/theme.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, operator, type TestApp } from "./helpers.ts";

const Q = "default";

/** An app where the first visitor is admitted at once and everyone after waits. */
async function waitingApp(overrides: Parameters<typeof makeApp>[0] = {}): Promise<TestApp> {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, ...overrides });
  const first = new Client(t.app);
  assertEquals((await first.join()).status, 200, "the first visitor takes the instant slot");
  return t;
}

/** The island props block of a /wait page. */
// deno-lint-ignore no-explicit-any
function props(html: string): any {
  const m = html.match(/<script type="application\/json" id="tg-props">([^<]*)<\/script>/);
  assert(m, "no island props in the page");
  return JSON.parse(m[1]);
}

function cookieAttrs(h: Headers, name: string): string[] | null {
  const sc = h.getSetCookie().find((c) => c.startsWith(`${name}=`));
  return sc ? sc.split(";").slice(1).map((s) => s.trim().toLowerCase()) : null;
}

/** Posts the no-JS enter form with the client's cookies. */
async function postEnter(t: TestApp, c: Client, form: Record<string, string>) {
  const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await t.app.request("/wait/enter", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams(form).toString(),
  });
  for (const sc of res.headers.getSetCookie()) {
    const [pair] = sc.split(";");
    const i = pair.indexOf("=");
    c.cookies.set(pair.slice(0, i), pair.slice(i + 1));
  }
  await res.body?.cancel();
  return res;
}

async function admit(t: TestApp, count = 1, queue = Q) {
  const r = await t.app.request("/admit", {
    method: "POST",
    headers: { ...operator(t.config), "content-type": "application/json" },
    body: JSON.stringify({ queue, count }),
  });
  assertEquals((await r.json()).admitted, count);
}

// ------------------------------------------------------------------ joining and resuming

Deno.test("GET /wait joins the queue, sets tg_ticket like the API and renders the place", async () => {
  const t = await waitingApp();
  const v = new Client(t.app);
  const r = await v.req("GET", "/wait");
  assertEquals(r.status, 200);
  assert(r.headers.get("content-type")!.startsWith("text/html"));
  assertEquals(cookieAttrs(r.headers, "tg_ticket"), [
    "max-age=86400",
    "path=/",
    "httponly",
    "samesite=lax",
  ]);
  assertEquals(cookieAttrs(r.headers, "tg_access"), null, "a waiter gets no access cookie");
  assert(r.text.includes(`<p class="place">#1</p>`), "position 1 shown");
  assert(r.text.includes("Estimated wait:"));
  assert(/role="status" aria-live="polite"/.test(r.text), "a live region");
  const p = props(r.text);
  assertEquals(p.view.visitorId, v.visitorId);
  assertEquals(p.view.status, "waiting");
  assertEquals(p.serverNow, t.clock.now());
  // The API sees the same visitor.
  assertEquals((await v.status()).json.position, 1);
  t.close();
});

Deno.test("GET /wait cookies are Secure over HTTPS (also behind a TLS proxy)", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  const direct = await t.app.request("https://q.example/wait");
  assertEquals(direct.status, 303);
  for (const name of ["tg_ticket", "tg_access"]) {
    assert(cookieAttrs(direct.headers, name)!.includes("secure"), name);
  }
  const proxied = await t.app.request("/wait", { headers: { "x-forwarded-proto": "https" } });
  assert(cookieAttrs(proxied.headers, "tg_ticket")!.includes("secure"));
  await proxied.body?.cancel();
  t.close();
});

Deno.test("GET /wait with a ticket resumes the same visitor instead of joining again", async () => {
  const t = await waitingApp();
  const v = new Client(t.app);
  await v.req("GET", "/wait");
  const id = v.visitorId;
  const again = await v.req("GET", "/wait");
  assertEquals(props(again.text).view.visitorId, id);
  const m = await (await t.app.request("/metrics?queue=default", { headers: operator(t.config) }))
    .json();
  assertEquals(m.waiting, 1, "still one waiter");
  t.close();
});

Deno.test("GET /wait?queue= with a ticket for another queue joins the asked queue", async () => {
  const t = await waitingApp({ QUEUES: ["default", "other"] });
  await new Client(t.app).join("other");
  const v = new Client(t.app);
  await v.req("GET", "/wait");
  const r = await v.req("GET", "/wait?queue=other");
  const p = props(r.text);
  assertEquals([p.queue, p.view.queue, p.view.status], ["other", "other", "waiting"]);
  const body = v.cookies.get("tg_ticket")!.split(".")[0].replace(/-/g, "+").replace(/_/g, "/");
  assertEquals(JSON.parse(atob(body + "===".slice((body.length + 3) % 4))).queue, "other");
  t.close();
});

Deno.test("GET /wait re-joins a visitor that is gone (left) at the back", async () => {
  const t = await waitingApp();
  const a = new Client(t.app), b = new Client(t.app);
  await a.req("GET", "/wait");
  await b.req("GET", "/wait");
  await a.req("POST", "/leave", { queue: Q, visitorId: a.visitorId });
  const back = await a.req("GET", "/wait");
  assertEquals(back.status, 200);
  assertEquals(props(back.text).view.position, 2, "behind b now");
  t.close();
});

Deno.test("GET /wait: unknown queue is a plain 404 page, a malformed name 400", async () => {
  const t = await waitingApp();
  const r = await t.app.request("/wait?queue=nope");
  assertEquals(r.status, 404);
  assert(r.headers.get("content-type")!.startsWith("text/html"));
  assert((await r.text()).includes("There is no waiting room here."));
  assertEquals(r.headers.getSetCookie().length, 0, "no ticket for an unknown queue");
  const bad = await t.app.request("/wait?queue=Bad%20Name");
  assertEquals(bad.status, 400);
  await bad.body?.cancel();
  t.close();
});

Deno.test("GET /wait without ?queue= uses the only queue when there is no `default`", async () => {
  const t = await makeApp({ QUEUES: ["shop"], ADMIT_PER_SECOND: 1 });
  await new Client(t.app).join("shop");
  const r = await new Client(t.app).req("GET", "/wait");
  assertEquals(props(r.text).queue, "shop");
  t.close();
});

Deno.test("GET /wait: a full room answers 503 with Retry-After and a retrying page", async () => {
  const t = await waitingApp({ MAX_WAITING_VISITORS: 1 });
  await new Client(t.app).req("GET", "/wait");
  const r = await new Client(t.app).req("GET", "/wait");
  assertEquals(r.status, 503);
  assertEquals(r.headers.get("retry-after"), "30");
  assert(r.text.includes(`http-equiv="refresh" content="30; url=/wait"`), "a relative retry");
  t.close();
});

// ------------------------------------------------------------------ what the page shows

Deno.test("position is `#X of Y` only with showWaitingCount", async () => {
  const t = await waitingApp();
  await new Client(t.app).req("GET", "/wait");
  const v = new Client(t.app);
  const off = await v.req("GET", "/wait");
  assert(off.text.includes(`<p class="place">#2</p>`), "just the position");
  assert(!/#2 of/.test(off.text));
  await t.setBranding({ showWaitingCount: true });
  const on = await v.req("GET", "/wait");
  assert(on.text.includes(`<p class="place">#2 of 2</p>`), on.text);
  assert(on.text.includes("You are number 2 of 2 in line."));
  t.close();
});

Deno.test("lottery mode: no position, a draw decides, odds only with showWaitingCount", async () => {
  const t = await waitingApp();
  await t.engine.setMode(Q, "lottery");
  const v = new Client(t.app);
  const r = await v.req("GET", "/wait");
  assert(r.text.includes("A random draw decides who goes in next"));
  assert(!r.text.includes("Your place in line"), "no position in lottery mode");
  assert(!r.text.includes(`class="place"`));
  assert(!r.text.includes("your chance"), "no odds without showWaitingCount");
  assertEquals(props(r.text).view.position, undefined);
  await t.setBranding({ showWaitingCount: true });
  const on = await v.req("GET", "/wait");
  assert(/1 waiting · your chance at the next draw: <strong>100%<\/strong>/.test(on.text), on.text);
  t.close();
});

Deno.test("branding text is escaped everywhere, colours and logo are validated", async () => {
  const t = await waitingApp();
  await t.setBranding({
    title: `<script>alert("t")</script>`,
    message: `<img src=x onerror=alert(1)>`,
    primaryColor: "#ABC",
    backgroundColor: "red;}body{display:none",
    logoUrl: "javascript:alert(1)",
  });
  const r = await new Client(t.app).req("GET", "/wait");
  assert(!r.text.includes(`<script>alert`), "title not raw");
  assert(!r.text.includes(`<img src=x`), "message not raw");
  assert(r.text.includes(`<title>&lt;script>alert(&quot;t&quot;)&lt;/script></title>`));
  assert(r.text.includes(`<h1 id="tg-title">&lt;script>`));
  assert(r.text.includes(`&lt;img src=x onerror=alert(1)>`));
  assert(props(r.text).title === `<script>alert("t")</script>`, "props JSON round-trips");
  assert(r.text.includes("\\u003cscript\\u003e"), "props block escapes <");
  assert(r.text.includes("--tg-primary:#abc"), "a valid short colour is kept");
  assert(r.text.includes("--tg-bg:#f8fafc"), "an invalid colour falls back to the default");
  assert(!r.text.includes("display:none"));
  assert(!r.text.includes(`class="logo"`), "a javascript: logo is dropped");
  for (
    const [logo, shown] of [
      ["https://cdn.example/l.png", true],
      ["/l.png", true],
      [
        "//evil.example/l.png",
        false,
      ],
      ["http://cdn.example/l.png", false],
      ["data:image/png;base64,AA", false],
    ] as const
  ) {
    await t.setBranding({ logoUrl: logo });
    const p = await new Client(t.app).req("GET", "/wait");
    assertEquals(p.text.includes(`<img class="logo" src="${logo}"`), shown, logo);
  }
  t.close();
});

Deno.test("theme helpers: colour, logo and contrast rules", () => {
  assertEquals(safeColour("#123456", "#000"), "#123456");
  assertEquals(safeColour("#12345", "#000"), "#000");
  assertEquals(safeColour("rgb(1,2,3)", "#000"), "#000");
  assertEquals(safeColour(42, "#000"), "#000");
  assertEquals(safeLogoUrl(`https://x.example/a"onload="b`), "");
  assertEquals(textOn("#ffffff"), "#0f172a");
  assertEquals(textOn("#000"), "#ffffff");
  assertEquals(textOn("#2563eb"), "#ffffff");
});

Deno.test("words: wait estimate, odds, place, countdown, honest progress", () => {
  assertEquals(waitWords(5), "less than a minute");
  assertEquals(waitWords(60), "about 1 minute");
  assertEquals(waitWords(600), "about 10 minutes");
  assertEquals(waitWords(3600), "about 1 hour");
  assertEquals(waitWords(5400), "about 1 hour 30 minutes");
  assertEquals(waitWords(90000), "more than a day");
  assertEquals(waitWords(undefined), "unknown");
  assertEquals(percent(0.1234), "12%");
  assertEquals(percent(0.0042), "0.4%");
  assertEquals(percent(0.0000001), "less than 0.1%");
  assertEquals(placeText(3, 40), "#3 of 40");
  assertEquals(placeText(3, undefined), "#3");
  assertEquals(countdown(61_000), "1:01");
  assertEquals(countdown(-5), "0:00");
  assertEquals(progressShare(10, 10), 0, "nothing moved yet");
  assertEquals(progressShare(10, 5), 0.5);
  assertEquals(progressShare(10, 1), 0.9, "own turn still to come");
  assertEquals(progressShare(5, 8), 0, "never backwards below zero");
});

Deno.test("progress baseline: ?start= keeps the first position for the no-JS bar", async () => {
  const t = await waitingApp();
  const a = new Client(t.app), b = new Client(t.app), c = new Client(t.app);
  await a.req("GET", "/wait");
  await b.req("GET", "/wait");
  const first = await c.req("GET", "/wait");
  assertEquals(props(first.text).start, 3);
  assert(first.text.includes(`value="0"`));
  await a.req("POST", "/leave", { queue: Q, visitorId: a.visitorId });
  await b.req("POST", "/leave", { queue: Q, visitorId: b.visitorId });
  t.clock.advance(1000);
  const later = await c.req("GET", "/wait?start=3");
  assertEquals(props(later.text).view.position, 1);
  assert(later.text.includes(`<progress max="100" value="67"`), "2 of 3 steps done");
  assert(later.text.includes("start=3"), "the refresh URL keeps the baseline");
  const bogus = await c.req("GET", "/wait?start=abc");
  assertEquals(props(bogus.text).start, 1, "a bad baseline falls back to the position");
  t.close();
});

// ------------------------------------------------------------------ destination (SPEC 3.3)

Deno.test("safeReturnPath accepts same-origin paths only", () => {
  for (const ok of ["/", "/shop", "/shop?x=1&y=/z", "/a/b#c", "/javascript:alert(1)"]) {
    assertEquals(safeReturnPath(ok), ok, ok);
  }
  for (
    const bad of [
      "//evil.example",
      "/\\evil.example",
      "\\\\evil.example",
      "https://x.example",
      "javascript:alert(1)",
      "shop",
      "/\t/evil.example",
      "/ok\r\nSet-Cookie: x=1",
      "/\u0000x",
      "",
      null,
      undefined,
      "/wait",
      "/wait?queue=default",
      "/" + "a".repeat(3000),
    ]
  ) assertEquals(safeReturnPath(bad), null, JSON.stringify(bad));
});

Deno.test("destination order: return=, then redirectUrl, then / with the proxy, else /demo", () => {
  const off = { config: { ORIGIN_URL: undefined } };
  const on = { config: { ORIGIN_URL: "https://origin.example" } };
  assertEquals(originProxyOn(off), false);
  assertEquals(originProxyOn(on), true);
  assertEquals(destinationFor(off, { redirectUrl: "" }, null), "/demo");
  assertEquals(destinationFor(on, { redirectUrl: "" }, null), "/");
  assertEquals(destinationFor(on, { redirectUrl: "/shop" }, null), "/shop");
  assertEquals(
    destinationFor(on, { redirectUrl: "https://s.example/go" }, null),
    "https://s.example/go",
  );
  assertEquals(destinationFor(on, { redirectUrl: "https://s.example/go" }, "/cart"), "/cart");
  assertEquals(destinationFor(off, { redirectUrl: "http://s.example/go" }, "//x"), "/demo");
  assertEquals(destinationFor(off, { redirectUrl: "javascript:alert(1)" }, null), "/demo");
  assertEquals(destinationFor(off, { redirectUrl: "//evil.example" }, null), "/demo");
});

/** Where GET /wait sends a visitor that is admitted at once. */
async function landing(t: TestApp, query: string): Promise<string | null> {
  const r = await new Client(t.app).req("GET", `/wait${query}`);
  assertEquals(r.status, 303, `admitted at once for ${query}`);
  return r.headers.get("location");
}

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
  const early = await postEnter(t, v, { queue: Q, return: "/shop" });
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
  assert(page.text.includes(`<span class="countdown">${countdown(held)}</span>`), "the countdown");
  assertEquals(v.cookies.has("tg_access"), false, "not entered yet");
  assertEquals(props(page.text).view.accessToken, undefined);
  const res = await postEnter(t, v, { queue: Q, return: "//evil.example" });
  assertEquals(res.status, 303);
  assertEquals(res.headers.get("location"), "/demo", "a bad return= is ignored here too");
  assert(v.cookies.has("tg_access"));
  assertEquals((await v.req("GET", "/demo")).status, 200);
  t.close();
});

Deno.test("/wait/enter without a ticket or with a bad queue does nothing", async () => {
  const t = await waitingApp();
  const stranger = new Client(t.app);
  const r = await postEnter(t, stranger, { queue: Q });
  assertEquals([r.status, r.headers.get("location")], [303, "/wait?queue=default"]);
  const bad = await postEnter(t, stranger, { queue: "../x" });
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

Deno.test("the bundle is built, under 40 KB, served hashed with a year of cache", async () => {
  const manifest = JSON.parse(
    await Deno.readTextFile(new URL("../static/build/manifest.json", import.meta.url)),
  );
  let total = 0;
  for (const f of Object.values(manifest) as string[]) {
    if (f.endsWith(".js")) {
      total += (await Deno.stat(new URL(`../static/build/${f}`, import.meta.url))).size;
    }
  }
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

// ------------------------------------------------------------------ /demo

Deno.test("/demo sends anyone without a valid token to /wait?return=/demo", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, ACCESS_TOKEN_TTL_SECONDS: 60 });
  const r = await t.app.request("/demo");
  assertEquals(r.status, 302);
  assertEquals(r.headers.get("location"), "/wait?return=/demo");
  const forged = await t.app.request("/demo", { headers: { cookie: "tg_access=abc.def" } });
  assertEquals(forged.status, 302);
  const v = new Client(t.app);
  assertEquals((await v.req("GET", "/wait?return=%2Fdemo")).headers.get("location"), "/demo");
  const ok = await v.req("GET", "/demo");
  assertEquals(ok.status, 200);
  assert(ok.text.includes("Verified claims"));
  assert(ok.text.includes(`<dd data-claim="exp">2026-01-01T00:01:00Z (in about 1 minute)</dd>`));
  assert(ok.headers.get("content-security-policy")!.includes("script-src 'self'"));
  t.clock.advance(61_000);
  assertEquals((await v.req("GET", "/demo")).status, 302, "an expired token is refused");
  t.close();
});
