/** HTTP-level tests of /demo and of /wait under odd requests and failures. */
import { safeReturnPath } from "../lib/destination.ts";
import { contrast, mutedOn, readableOn, textOn, themeCss } from "../lib/theme.ts";
import { assetsOnce, loadAssets } from "../routes/pages/assets.ts";
import { ForbiddenError, RateLimitedError } from "../lib/errors.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, operator } from "./helpers.ts";
import { admit, landing, postEnter, Q, waitingApp } from "./pages_helpers.ts";

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

// ------------------------------------------------------------------ review

Deno.test("HEAD /wait, or a browser's image fetch of it, joins nobody and sets no ticket", async () => {
  const t = await waitingApp();
  const metrics = async () =>
    (await (await t.app.request("/metrics?queue=default", { headers: operator(t.config) }))
      .json()).waiting;
  const before = await metrics();
  // A favicon or image of the origin's page that the proxy sent to the waiting room.
  const image = { method: "GET", headers: { "sec-fetch-dest": "image" } };
  for (const init of [{ method: "HEAD" }, { method: "HEAD" }, image, image]) {
    const r = await t.app.request("/wait?return=%2Fshop", init);
    assertEquals(r.status, 200);
    assert(r.headers.get("content-type")!.startsWith("text/html"));
    assertEquals(r.headers.getSetCookie(), [], "no tg_ticket");
    assertEquals(await r.text(), "");
  }
  assertEquals(await metrics(), before, "no new waiting row");
  t.close();
});

Deno.test("/wait: a server error is a plain page that retries itself, never JSON", async () => {
  const t = await waitingApp();
  const v = new Client(t.app);
  await v.req("GET", "/wait");
  t.close(); // the store is gone: every engine call fails
  const r = await v.req("GET", "/wait?return=%2Fshop");
  assertEquals(r.status, 503);
  assert(r.headers.get("content-type")!.startsWith("text/html"), "not the JSON envelope");
  assertEquals(r.headers.get("retry-after"), "10");
  assert(r.text.includes(`<meta http-equiv="refresh" content="10; url=/wait?return=%2Fshop"/>`));
  assert(!r.text.includes(`"error"`), "no envelope in the page");
  assert(r.text.includes("tries again by itself"));
  const enter = await postEnter(v, { queue: Q });
  assertEquals(enter.status, 503, "/wait/enter too");
  assert(enter.headers.get("content-type")!.startsWith("text/html"));
});

Deno.test("/wait: the engine's refusals (403 geo_blocked, 429) are plain pages", async () => {
  const t = await waitingApp();
  const join = t.engine.join;
  t.engine.join = () => Promise.reject(new ForbiddenError("Not available here.", "geo_blocked"));
  const r = await new Client(t.app).req("GET", "/wait");
  assertEquals(r.status, 403);
  assert(r.headers.get("content-type")!.startsWith("text/html"));
  // The visitor's words come from the catalogue (the engine's message is for operators).
  assert(
    r.text.includes("This waiting room is not available in your country.") &&
      !r.text.includes("http-equiv"),
    r.text,
  );
  t.engine.join = () => Promise.reject(new RateLimitedError(7));
  const slow = await new Client(t.app).req("GET", "/wait");
  assertEquals([slow.status, slow.headers.get("retry-after")], [429, "7"]);
  assert(slow.text.includes(`content="7; url=/wait"`));
  t.engine.join = join;
  t.close();
});

Deno.test("a non-ASCII ?return= reaches the Location header as UTF-8 (no JS)", async () => {
  assertEquals(safeReturnPath("/café?q=ü"), "/caf%C3%A9?q=%C3%BC");
  assertEquals(safeReturnPath("/caf%C3%A9"), "/caf%C3%A9", "already encoded stays");
  assertEquals(safeReturnPath("/.//x"), "/.//x", "not collapsed into //x");
  assertEquals(safeReturnPath("/\ud800"), null, "a lone surrogate");
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  assertEquals(await landing(t, "?return=%2Fcaf%C3%A9"), "/caf%C3%A9");
  t.close();
});

Deno.test("one live region, first in the panel, in every state the page renders", async () => {
  const t = await waitingApp();
  await t.setBranding({ clickToEnter: true, admitHoldSeconds: 60 });
  const v = new Client(t.app);
  const live = `<div class="panel"><p class="live`;
  const pages = [(await v.req("GET", "/wait?embed=1")).text];
  await admit(t);
  pages.push((await v.req("GET", "/wait?embed=1")).text); // holding: Enter now
  await postEnter(v, { queue: Q });
  pages.push((await v.req("GET", "/wait?embed=1")).text); // entered, in an iframe: Continue
  for (const html of pages) {
    assertEquals(html.match(/aria-live="polite"/g)?.length, 1, html);
    assertEquals(html.match(/role="status"/g)?.length, 1);
    assert(html.includes(live), "the same element leads the panel");
  }
  assert(pages[1].includes(`aria-atomic="true">It's your turn! Your place is held for `), pages[1]);
  assert(pages[2].includes("It's your turn! Taking you in…</p>"));
  t.close();
});

Deno.test("a dark branding background: page text picked by WCAG contrast, card untouched", () => {
  const b = (backgroundColor: string) => ({
    title: "T",
    message: "",
    logoUrl: "",
    primaryColor: "#2563eb",
    backgroundColor,
  });
  const dark = themeCss(b("#111111"));
  assert(dark.includes("--tg-bg:#111111;--tg-page-fg:#ffffff;--tg-page-muted:#cbd5e1"), dark);
  assert(dark.includes("@media (prefers-color-scheme: dark)"), "a dark colour suits dark too");
  assert(!/--tg-fg:|--tg-card:/.test(dark), "the card keeps its own surface and text");
  const light = themeCss(b("#fef3c7"));
  assert(light.includes("--tg-page-fg:#0f172a;--tg-page-muted:#475569"), light);
  assert(!light.includes("prefers-color-scheme: dark"), "a light colour would glare in dark");
  // Every #rgb colour gets page text and muted text at WCAG AA (4.5:1) or better.
  for (let i = 0; i < 4096; i++) {
    const c = "#" + i.toString(16).padStart(3, "0");
    assert(contrast(textOn(c), c) >= 4.5, `text on ${c}`);
    assert(contrast(mutedOn(c), c) >= 4.5, `muted on ${c}`);
  }
  assertEquals(textOn("#777777"), "#000000", "a mid grey where neither theme colour reaches AA");
  assertEquals(contrast("#ffffff", "#000000"), 21);
});

Deno.test("a light primary colour: links and the place on the card still read at WCAG AA", () => {
  const css = (primaryColor: string) =>
    themeCss({ title: "T", message: "", logoUrl: "", primaryColor, backgroundColor: "#f8fafc" });
  // The card is white in the light theme: the link colour (links, the place) must read there.
  const link = (primaryColor: string) => /--tg-link:(#[0-9a-f]{6})/.exec(css(primaryColor))?.[1];
  assertEquals(link("#2563eb"), "#2563eb", "a primary colour that reads is kept as it is");
  for (const c of ["#ffcc00", "#ffffff", "#fff", "#22c55e", "#f97316"]) {
    const l = link(c);
    assert(l && contrast(l, "#ffffff") >= 4.5, `${c} gave link ${l}`);
  }
  assert(
    /prefers-color-scheme: light\)\{:root\{[^}]*--tg-link:/.test(css("#ffcc00")),
    "light only",
  );
  for (let i = 0; i < 4096; i++) {
    const c = "#" + i.toString(16).padStart(3, "0");
    assert(contrast(readableOn(c), "#ffffff") >= 4.5, `link from ${c}`);
  }
});

Deno.test("the asset manifest is read once; a missing build warns once", async () => {
  let reads = 0;
  const get = assetsOnce(() => Promise.resolve((reads++, {})));
  await Promise.all([get(), get()]);
  await get();
  assertEquals(reads, 1);
  const dir = await Deno.makeTempDir();
  const logged: string[] = [];
  const error = console.error;
  console.error = (m: string) => logged.push(m);
  try {
    const none = assetsOnce(() => loadAssets(new URL(`file://${dir}/`)));
    for (let i = 0; i < 3; i++) assertEquals(await none(), {});
  } finally {
    console.error = error;
    await Deno.remove(dir);
  }
  assertEquals(logged.length, 1);
  assert(logged[0].includes("deno task build"));
});
