/** HTTP-level tests of /wait: joining, resuming, the place in line, branding, wording. */
import { destinationFor, originProxyOn, safeReturnPath } from "../lib/destination.ts";
import { announceDelay, countdown, progressShare } from "../client/format.ts";
import { percentOf, t as say, waitText } from "../lib/i18n/format.ts";
import { CATALOGUES } from "../lib/i18n/catalogues.ts";
import { safeColour, safeLogoUrl, textOn } from "../lib/theme.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, operator } from "./helpers.ts";
import { cookieAttrs, props, Q, waitingApp } from "./pages_helpers.ts";

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
  // 0.8: the join's place is provisional until the tick's sequencer numbered it, and says so.
  assert(r.text.includes(`<p class="place">About #1</p>`), "position 1 shown as provisional");
  assert(r.text.includes("Estimated wait:"));
  assert(/role="status" aria-live="polite"/.test(r.text), "a live region");
  const p = props(r.text);
  assertEquals(p.view.visitorId, v.visitorId);
  assertEquals(p.view.status, "waiting");
  assertEquals(p.serverNow, t.clock.now());
  // The API sees the same visitor.
  assertEquals((await v.status()).json.position, 1);
  // Numbered by the sequencer: the page shows the exact place.
  await t.engine.sequence(Q);
  assert((await v.req("GET", "/wait")).text.includes(`<p class="place">#1</p>`), "exact");
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
  assertEquals(v.ticketClaims.queue, "other");
  t.close();
});

Deno.test("GET /wait re-joins a visitor that is gone (left) at the back", async () => {
  const t = await waitingApp();
  const a = new Client(t.app), b = new Client(t.app);
  await a.req("GET", "/wait");
  await b.req("GET", "/wait");
  await t.engine.sequence(Q); // numbered into the line, as each tick does first (0.8.0)
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
  await v.req("GET", "/wait");
  // 0.8: exact places once the sequencer numbered the joins.
  await t.engine.sequence(Q);
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
  // What the page shows (the props block carries the island's messages, shown or not).
  const shown = r.text.replace(/<script type="application\/json"[\s\S]*?<\/script>/, "");
  assert(shown.includes("a random draw picks who goes in among everyone waiting"));
  assert(!shown.includes("Your place in line"), "no position in lottery mode");
  assert(!shown.includes(`class="place"`));
  assert(!shown.includes("your chance"), "no odds without showWaitingCount");
  assert(!shown.includes("Estimated wait"), "no single queue-like estimate in lottery mode");
  assert(/half of those waiting now get in within/.test(shown), "a range instead");
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
      ["/wait/logo.png", true],
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
  await t.setBranding({ logoUrl: `https://cdn.example/a"onload="b` });
  const quoted = await new Client(t.app).req("GET", "/wait");
  assert(quoted.text.includes(`src="https://cdn.example/a&quot;onload=&quot;b"`), "quote escaped");
  t.close();
});

Deno.test("theme helpers: colour, logo and contrast rules", () => {
  assertEquals(safeColour("#123456", "#000"), "#123456");
  assertEquals(safeColour("#12345", "#000"), "#000");
  assertEquals(safeColour("rgb(1,2,3)", "#000"), "#000");
  assertEquals(safeColour(42, "#000"), "#000");
  // A quote cannot break out of the attribute: Preact escapes it (see the render test above).
  assertEquals(safeLogoUrl(`https://x.example/a"b`), `https://x.example/a"b`);
  assertEquals(safeLogoUrl("/wait/logo.png"), "/wait/logo.png", "a logo may live under /wait");
  assertEquals(safeLogoUrl("https://u:p@x.example/l.png"), "", "no credentials");
  assertEquals(safeLogoUrl("//x.example/l.png"), "");
  assertEquals(safeLogoUrl(""), "");
  assertEquals(textOn("#ffffff"), "#0f172a");
  assertEquals(textOn("#000"), "#ffffff");
  assertEquals(textOn("#2563eb"), "#ffffff");
});

Deno.test("words: wait estimate, odds, place, countdown, honest progress", () => {
  const en = CATALOGUES.en, de = CATALOGUES.de;
  const waitWords = (s: number | undefined) => waitText(en, "en", s);
  assertEquals(waitWords(5), "less than a minute");
  assertEquals(waitWords(60), "about 1 minute");
  assertEquals(waitWords(600), "about 10 minutes");
  assertEquals(waitWords(3600), "about 1 hour");
  assertEquals(waitWords(5400), "about 1.5 hours");
  assertEquals(waitWords(90000), "more than a day");
  assertEquals(waitWords(undefined), "unknown");
  assertEquals(waitText(de, "de", 5400), "etwa 1,5 Stunden", "Intl formats for the language");
  assertEquals(waitText(de, "de", 60), "etwa 1 Minute");
  assertEquals(percentOf(en, "en", 0.1234), "12%");
  assertEquals(percentOf(en, "en", 0.0042), "0.4%");
  assertEquals(percentOf(en, "en", 0.0000001), "less than 0.1%");
  assertEquals(percentOf(de, "de", 0.0042), "0,4\u00a0%");
  assertEquals(say(en, "wait.placeOf", { position: 3, waiting: 40 }), "#3 of 40");
  assertEquals(say(en, "wait.place", { position: 3 }), "#3");
  assertEquals(countdown(61_000), "1:01");
  const spoke = { kind: "line", at: 1_000 };
  assertEquals(announceDelay(spoke, "line", 11_000), 20_000, "a new place waits 30 s in all");
  assertEquals(announceDelay(spoke, "line", 40_000), 0);
  assertEquals(announceDelay(spoke, "turn", 2_000), 0, "the turn is said at once");
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
  await t.engine.sequence(Q); // numbered into the line, as each tick does first (0.8.0)
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

// ------------------------------------------------------------------ destination

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

Deno.test("destination order: return=, then redirectUrl, then / with the proxy, else /demo", async () => {
  const off = { config: { ORIGIN_URL: undefined } };
  const on = { config: { ORIGIN_URL: "https://origin.example" } };
  assertEquals(await originProxyOn(off), false);
  assertEquals(await originProxyOn(on), true);
  assertEquals(await destinationFor(off, { redirectUrl: "" }, null), "/demo");
  assertEquals(await destinationFor(on, { redirectUrl: "" }, null), "/");
  assertEquals(await destinationFor(on, { redirectUrl: "/shop" }, null), "/shop");
  assertEquals(
    await destinationFor(on, { redirectUrl: "https://s.example/go" }, null),
    "https://s.example/go",
  );
  assertEquals(await destinationFor(on, { redirectUrl: "https://s.example/go" }, "/cart"), "/cart");
  assertEquals(await destinationFor(off, { redirectUrl: "http://s.example/go" }, "//x"), "/demo");
  assertEquals(await destinationFor(off, { redirectUrl: "javascript:alert(1)" }, null), "/demo");
  assertEquals(await destinationFor(off, { redirectUrl: "//evil.example" }, null), "/demo");
  assertEquals(await destinationFor(off, { redirectUrl: "https://u:p@s.example/" }, null), "/demo");
  assertEquals(await destinationFor(off, { redirectUrl: "/wait" }, null), "/demo", "no loop");
});

Deno.test("pre-queue: /wait says not open yet before the window (never when), then shows the pre-queue", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10 });
  const opensAt = t.clock.now() + 3_600_000;
  await t.engine.setOpensAt(Q, opensAt);
  await t.engine.setPrequeue(Q, 30);
  await t.setBranding({ message: "Sale opens at noon UTC." });
  const v = new Client(t.app);
  const before = await v.req("GET", "/wait");
  assertEquals(before.status, 503);
  assert(before.text.includes("not open yet"), before.text);
  assert(before.text.includes("Sale opens at noon UTC."), "the operator's message may announce it");
  assertEquals(before.headers.get("retry-after"), "60", "a fixed retry, not the time left");
  assert(!before.text.includes(String(opensAt)) && !v.cookies.has("tg_ticket"));
  t.clock.advance(45 * 60_000);
  assertEquals((await v.req("GET", "/wait")).status, 200);
  // The tick numbers the join: its arrival number in the pre-queue is known from then (0.8.0).
  await t.engine.tick(Q);
  const r = await v.req("GET", "/wait");
  assertEquals(r.status, 200);
  assert(r.text.includes("You are in the pre-queue."), r.text);
  assert(r.text.includes("gets a random place in line, ahead of everyone who arrives later"));
  assert(r.text.includes("Your arrival number: #<strong>1</strong>"), r.text);
  assert(r.text.includes("Expected wait after the opening, for a random place"));
  assert(!r.text.includes(`class="place"`), "no position before the draw");
  assert(r.text.includes("/draw/verify?queue=default"));
  t.close();
});
