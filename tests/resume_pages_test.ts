/**
 * The no-JS pages of moving a place: a resume link asks before it moves anything and joins
 * nobody; the form moves the place and goes on to /wait; a wrong code is said on the page; a
 * browser whose place moved gets the form instead of a new place.
 */
import { CATALOGUES } from "../lib/i18n/catalogues.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { props } from "./pages_helpers.ts";
import { mailingApp } from "./mail_helpers.ts";

/** The English words (the page speaks English to a browser that asks for nothing else). */
const en = CATALOGUES.en;

const Q = "default";

/** A form post as a browser sends it. */
function form(c: Client, code: string, headers: Record<string, string> = {}) {
  return c.req("POST", "/wait/resume", new URLSearchParams({ queue: Q, code }).toString(), {
    "content-type": "application/x-www-form-urlencoded",
    ...headers,
  });
}

Deno.test("resume link, form, wrong code and the moved page", async () => {
  const t = await makeApp();
  try {
    await t.engine.setPaused(Q, true);
    const a = new Client(t.app), b = new Client(t.app);
    await a.join();
    const made = await a.req("POST", "/resume/code", { queue: Q });
    const code = made.json.code as string;

    const link = await b.req(
      "GET",
      new URL(made.json.link).pathname + new URL(made.json.link).search,
    );
    assertEquals(link.status, 200);
    assert(link.text.includes(en["resume.confirmMove"]), "the link asks first");
    assert(link.text.includes(`value="${code.replace("-", "")}"`), "with the code filled in");
    assertEquals(b.cookies.has("tg_ticket"), false, "and joins nobody");

    const wrong = await form(b, "2222-3333");
    assertEquals(wrong.status, 404);
    assert(wrong.text.includes(en["resume.badCode"]), "the page says the code is wrong");

    const moved = await form(b, code);
    assertEquals(moved.status, 303);
    assertEquals(moved.headers.get("location"), `/wait?queue=${Q}`);
    assertEquals(b.visitorId, a.visitorId);

    // The old browser, once due, gets the form instead of a new place.
    const nca = (a.ticketClaims as unknown as { nca: number }).nca;
    t.clock.advance(Math.max(0, nca - t.clock.now()) + 1);
    const page = await a.req("GET", `/wait?queue=${Q}`);
    assertEquals(page.status, 409);
    assert(page.text.includes(en["resume.haveCode"]), page.text.slice(0, 300));
    t.engine.ctx.invalidate(Q);
    assertEquals((await t.engine.metrics(Q)).waiting, 1, "no new place was taken");
  } finally {
    t.close();
  }
});

Deno.test("another site's form cannot move a place into this browser", async () => {
  const t = await makeApp();
  try {
    await t.engine.setPaused(Q, true);
    const a = new Client(t.app), victim = new Client(t.app);
    await a.join();
    await victim.join();
    const own = victim.cookies.get("tg_ticket");
    const code = (await a.req("POST", "/resume/code", { queue: Q })).json.code as string;
    const res = await victim.req(
      "POST",
      "/wait/resume",
      new URLSearchParams({ queue: Q, code }).toString(),
      { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
    );
    assertEquals(res.status, 403);
    assertEquals(victim.cookies.get("tg_ticket"), own, "its own ticket is kept");
    // From our own page it works.
    const ok = await victim.req(
      "POST",
      "/wait/resume",
      new URLSearchParams({ queue: Q, code }).toString(),
      { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost" },
    );
    assertEquals(ok.status, 303);
  } finally {
    t.close();
  }
});

Deno.test("behind a TLS proxy without PUBLIC_URL the resume form's https Origin is ours", async () => {
  const t = await makeApp();
  try {
    await t.engine.setPaused(Q, true);
    const a = new Client(t.app), b = new Client(t.app);
    await a.join();
    const proxied = { "x-forwarded-proto": "https" };
    const made = await a.req("POST", "/resume/code", { queue: Q }, proxied);
    assert(made.json.link.startsWith("https://localhost/"), made.json.link);
    const post = (origin: string) => form(b, made.json.code, { ...proxied, origin });
    // The link's own origin, forwarded as https by the proxy: moved (refused before, 403).
    assertEquals((await post("https://evil.example")).status, 403);
    const moved = await post("https://localhost");
    assertEquals(moved.status, 303, moved.text);
    assertEquals(b.visitorId, a.visitorId);
  } finally {
    t.close();
  }
});

Deno.test("the resume panel and the resume pages speak the visitor's language", async () => {
  const t = await makeApp();
  const de = CATALOGUES.de;
  try {
    await t.engine.setPaused(Q, true);
    const a = new Client(t.app), b = new Client(t.app);
    // The waiting page in German: the panel's words on the page and in the script's messages.
    const page = await a.req("GET", `/wait?queue=${Q}&lang=de`);
    assertEquals(page.status, 200);
    assert(page.text.includes(`<summary>${de["resume.offer"]}</summary>`), "the panel in German");
    assert(!page.text.includes(en["resume.offer"]), "no English panel");
    assertEquals(props(page.text).m["resume.moreTime"], de["resume.moreTime"], "the hold's words");
    assertEquals(
      props(page.text).m["mail.subjectTurn"],
      undefined,
      "the e-mail's stay on the server",
    );

    const made = await a.req("POST", "/resume/code", { queue: Q });
    const link = new URL(made.json.link);
    const confirm = await b.req("GET", `${link.pathname}${link.search}&lang=de`);
    assert(confirm.text.includes(`<html lang="de" dir="ltr">`), confirm.text.slice(0, 200));
    assert(confirm.text.includes(de["resume.confirmMove"]), "the link asks in German");
    assert(confirm.text.includes(de["resume.takePlace"]), "the button too");
    // The choice is kept: the refused form post answers in German, its menu back to the link.
    const wrong = await form(b, "2222-3333");
    assertEquals(wrong.status, 404);
    assert(wrong.text.includes(de["resume.badCode"]), "the wrong code said in German");
    assert(wrong.text.includes(`href="/wait?queue=${Q}&amp;resume=22223333&amp;lang=fr"`));
    // A browser that only says what it reads gets that.
    const fr = await new Client(t.app).req("GET", `${link.pathname}${link.search}`, undefined, {
      "accept-language": "fr-FR,fr;q=0.9",
    });
    assert(fr.text.includes(CATALOGUES.fr["resume.confirmMove"]), "French from the header");

    assertEquals((await form(b, made.json.code)).status, 303);
    const nca = (a.ticketClaims as unknown as { nca: number }).nca;
    t.clock.advance(Math.max(0, nca - t.clock.now()) + 1);
    const moved = await a.req("GET", `/wait?queue=${Q}`);
    assertEquals(moved.status, 409);
    assert(moved.text.includes(de["resume.moved"]), "the moved page in the kept language");
    assert(moved.text.includes(de["resume.haveCode"]));
  } finally {
    t.close();
  }
});

Deno.test("without JavaScript the page offers no control only the script serves", async () => {
  const t = await mailingApp(2525);
  try {
    const page = await new Client(t.app).req("GET", `/wait?queue=${Q}`);
    assertEquals(page.status, 200);
    assertEquals(props(page.text).mail, true, "the e-mail is offered to the script");
    // The server's HTML is what a visitor without JavaScript keeps: no dead "Show a code"
    // button, and no e-mail form that would put the address in the page's URL.
    const html = page.text.replace(/<script type="application\/json"[^]*?<\/script>/, "");
    assert(!html.includes(en["resume.showCode"]), "no dead code button");
    assert(!html.includes(en["resume.mailOffer"]) && !/type="email"/.test(html), "no mail form");
    // What works without the script stays: the link to the code form.
    assert(page.text.includes(`href="/wait?queue=${Q}&amp;resume="`), "the code form's link");
  } finally {
    t.close();
  }
});

Deno.test("without JavaScript a hold near its end has no dead 'I need more time' button", async () => {
  const t = await makeApp();
  try {
    await t.setBranding({ clickToEnter: true, admitHoldSeconds: 20 });
    const v = new Client(t.app);
    await v.join();
    const page = await v.req("GET", `/wait?queue=${Q}`);
    assertEquals(page.status, 200);
    const html = page.text.replace(/<script type="application\/json"[^]*?<\/script>/, "");
    assert(html.includes(`action="/wait/enter"`), "the enter form, which posts without JS");
    assert(!html.includes(en["resume.moreTime"]), "no button only the script can serve");
    assert(!html.includes("hold-warning"), "nor a warning that points at it");
  } finally {
    t.close();
  }
});

Deno.test("a resume form without a valid queue is a page in the visitor's language", async () => {
  const t = await makeApp();
  try {
    const de = CATALOGUES.de;
    for (const body of ["code=2222-3333", "queue=NO%20SUCH&code=2222-3333"]) {
      const r = await new Client(t.app).req("POST", "/wait/resume", body, {
        "content-type": "application/x-www-form-urlencoded",
        "accept-language": "de",
      });
      assertEquals(r.status, 400);
      assert(r.headers.get("content-type")!.startsWith("text/html"), r.text);
      assert(r.text.includes(de["notice.badQueueForm"]) && r.text.includes(`lang="de"`), r.text);
    }
  } finally {
    t.close();
  }
});

Deno.test("a resume link or form for a deleted or unknown queue says so, with no form", async () => {
  const t = await makeApp({ QUEUES: ["default", "sale"] });
  const de = CATALOGUES.de;
  try {
    await t.engine.setPaused("sale", true);
    const a = new Client(t.app), b = new Client(t.app);
    await a.join("sale");
    const made = await a.req("POST", "/resume/code", { queue: "sale" });
    assertEquals(made.status, 200, made.text);
    assertEquals((await t.engine.deleteQueue("sale", true)).queue, "sale");
    const link = new URL(made.json.link);
    for (const path of [`${link.pathname}${link.search}`, "/wait?queue=nope&resume=2222-3333"]) {
      const page = await b.req("GET", path);
      assertEquals(page.status, 404, path);
      assert(page.text.includes(en["notice.notFoundText"]), page.text.slice(0, 300));
      assert(!page.text.includes(`action="/wait/resume"`), "no form");
    }
    const post = await b.req(
      "POST",
      "/wait/resume",
      new URLSearchParams({ queue: "nope", code: "2222-3333" }).toString(),
      { "content-type": "application/x-www-form-urlencoded" },
    );
    assertEquals(post.status, 404);
    assert(post.text.includes(en["notice.notFoundText"]), post.text.slice(0, 300));
    assert(!post.text.includes(`action="/wait/resume"`), "no form");
    const german = await b.req("GET", "/wait?queue=nope&resume=2222-3333&lang=de");
    assert(german.text.includes(de["notice.notFoundText"]), "translated like the other notices");
  } finally {
    t.close();
  }
});
