/**
 * The visitor's language: every catalogue has exactly English's keys with the same `{values}`;
 * `Accept-Language`, `?lang=` and the `tg_lang` cookie pick it; Arabic pages run right to left;
 * an operator's wording per queue and language replaces the catalogue's on that page only.
 */
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { props, Q, waitingApp } from "./pages_helpers.ts";
import { CATALOGUES, MESSAGE_KEYS, messagesFor } from "../lib/i18n/catalogues.ts";
import { LANGS } from "../lib/i18n/langs.ts";
import { turnMail } from "../lib/notify/turn_mail.ts";
import { fromAcceptLanguage, matchLang, pickLang } from "../lib/i18n/negotiate.ts";
import { DRAW_SCHEME, verifyDraw } from "../lib/queue/draw_scheme.ts";

const names = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

Deno.test("every catalogue has each key English has, no other, none empty, the same {values}", () => {
  assertEquals(LANGS.length >= 15, true);
  for (const lang of LANGS) {
    const c = CATALOGUES[lang] as Record<string, string>;
    assertEquals(Object.keys(c).sort(), [...MESSAGE_KEYS].sort(), `${lang}: keys`);
    for (const k of MESSAGE_KEYS) {
      assert(typeof c[k] === "string" && c[k].trim() !== "", `${lang}: ${k} is empty`);
      assertEquals(names(c[k]), names(CATALOGUES.en[k]), `${lang}: ${k} values`);
    }
  }
});

Deno.test("the catalogue check fails on a catalogue that lacks a key", () => {
  const lacking = { ...CATALOGUES.de } as Record<string, string>;
  delete lacking["wait.enterNow"];
  const missing = MESSAGE_KEYS.filter((k) => !(k in lacking));
  assertEquals(missing, ["wait.enterNow"]);
});

Deno.test("language negotiation: quality order, loose tags, ?lang= over cookie over header", () => {
  assertEquals(fromAcceptLanguage("fr-CH, fr;q=0.9, en;q=0.8"), "fr");
  assertEquals(fromAcceptLanguage("da, de;q=0.5, en;q=0.7"), "en", "quality, not order");
  assertEquals(fromAcceptLanguage("zh-Hant-TW"), "zh-TW");
  assertEquals(fromAcceptLanguage("zh-HK;q=1"), "zh-TW");
  assertEquals(fromAcceptLanguage("zh"), "zh-CN");
  assertEquals(fromAcceptLanguage("pt-PT"), "pt-BR");
  assertEquals(fromAcceptLanguage("sv, *;q=0.1"), null);
  assertEquals(fromAcceptLanguage("de;q=0"), null, "q=0 means not wanted");
  assertEquals(matchLang("AR-eg"), "ar");
  assertEquals(fromAcceptLanguage("de;Q=0.1, fr"), "fr", "the weight's q is case-insensitive");
  assertEquals(fromAcceptLanguage("zh-Hans-HK"), "zh-CN", "simplified script, whatever region");
  assertEquals(fromAcceptLanguage("zh-Hant-CN"), "zh-TW");
  assertEquals(pickLang({ query: "ja", cookie: "de", acceptLanguage: "fr" }), {
    lang: "ja",
    remember: true,
  });
  assertEquals(pickLang({ query: "xx", cookie: "de", acceptLanguage: "fr" }).lang, "de");
  assertEquals(pickLang({ cookie: "bogus", acceptLanguage: "ko-KR" }).lang, "ko");
  assertEquals(pickLang({}).lang, "en");
});

Deno.test("/wait speaks the Accept-Language, ?lang= switches and sticks in tg_lang, ar is rtl", async () => {
  const t = await waitingApp();
  try {
    const v = new Client(t.app);
    const de = await v.req("GET", "/wait", undefined, { "accept-language": "de-DE,de;q=0.9" });
    assert(de.text.includes(`<html lang="de" dir="ltr">`), de.text.slice(0, 200));
    assert(de.text.includes("Ihr Platz in der Warteschlange"), "the German place label");
    assert(de.text.includes("Sie sind in der Warteschlange"), "the default title in German");
    assertEquals(props(de.text).lang, "de");
    assertEquals(props(de.text).m["wait.enterNow"], "Jetzt eintreten", "the island's messages");
    assertEquals(props(de.text).m["how.title"], undefined, "only the keys the script reads");
    assert(de.text.includes(`href="/wait?lang=ar"`), "the language menu links each language");
    assertEquals(v.cookies.get("tg_lang"), undefined, "a header is not a choice to keep");

    const ar = await v.req("GET", "/wait?lang=ar", undefined, { "accept-language": "de" });
    assert(ar.text.includes(`<html lang="ar" dir="rtl">`));
    assert(ar.text.includes("مكانك في الطابور"));
    assertEquals(v.cookies.get("tg_lang"), "ar", "the choice is kept");
    const again = await v.req("GET", "/wait", undefined, { "accept-language": "de" });
    assert(again.text.includes(`<html lang="ar" dir="rtl">`), "the cookie wins over the header");
    assert(/Vary: [^\n]*Accept-Language/i.test(`Vary: ${again.headers.get("vary")}`));

    const how = await v.req("GET", "/wait/how-it-works?lang=ja");
    assert(how.text.includes("この待合室のしくみ"));
    const bad = await v.req("GET", "/wait?queue=bad%20name&lang=fr");
    assertEquals(bad.status, 400);
    assert(bad.text.includes("Le nom de file dans ce lien n’est pas valide."), bad.text);
  } finally {
    t.close();
  }
});

Deno.test("an operator's wording per queue and language replaces the catalogue's there only", async () => {
  const t = await waitingApp({ QUEUES: ["default", "vip"] });
  try {
    const { client: admin } = await adminClient(t);
    const r = await admin.req("PUT", "/api/admin/branding", {
      queue: Q,
      messages: { de: { "wait.placeLabel": "Ihre Nummer bei uns" } },
    });
    assertEquals(r.status, 200, JSON.stringify(r.json));
    assertEquals(r.json.overrides.messages, { de: { "wait.placeLabel": "Ihre Nummer bei uns" } });
    // Service-wide wording stays where the queue has none of its own (merged key by key).
    const svc = await admin.req("PUT", "/api/admin/branding", {
      messages: { de: { "wait.eta": "Wartezeit etwa: {wait}", "wait.placeLabel": "Platz" } },
    });
    assertEquals(svc.status, 200, JSON.stringify(svc.json));
    const v = new Client(t.app);
    const de = await v.req("GET", "/wait?lang=de");
    assert(de.text.includes("Ihre Nummer bei uns") && !de.text.includes("Ihr Platz in der"));
    assert(de.text.includes("Wartezeit etwa:"), "the service-wide wording of another key");
    const en = await v.req("GET", "/wait?lang=en");
    assert(en.text.includes("Your place in line"), "other languages keep the catalogue");
    const bad = await admin.req("PUT", "/api/admin/branding", {
      queue: Q,
      messages: { de: { "no.such.key": "x" } },
    });
    assertEquals(bad.status, 400, "an unknown key is refused");
    const badLang = await admin.req("PUT", "/api/admin/branding", {
      queue: Q,
      messages: { xx: { "wait.placeLabel": "x" } },
    });
    assertEquals(badLang.status, 400, "an unknown language is refused");
    const huge = Object.fromEntries(
      ["de", "fr", "es", "it", "nl", "pl", "tr", "ru", "ja", "ko"].map((l) => [
        l,
        Object.fromEntries(MESSAGE_KEYS.slice(0, 15).map((k) => [k, "x".repeat(200)])),
      ]),
    );
    const tooMuch = await admin.req("PUT", "/api/admin/branding", { queue: Q, messages: huge });
    assertEquals(tooMuch.status, 400, "the record must fit one KV value");
    assertEquals(
      messagesFor("de", { de: { "wait.eta": "  " } })["wait.eta"],
      CATALOGUES.de["wait.eta"],
    );
  } finally {
    t.close();
  }
});

Deno.test("an operator's wording with a {value} its message lacks is refused, never shown", async () => {
  const t = await waitingApp();
  try {
    const { client: admin } = await adminClient(t);
    for (const queue of [undefined, Q]) {
      const r = await admin.req("PUT", "/api/admin/branding", {
        queue,
        messages: { de: { "wait.placeAbout": "Ungefähr Platz {pos}" } },
      });
      assertEquals(r.status, 400, r.text);
      assertEquals(r.json.error.details.fields[0].path, "messages.de.wait.placeAbout");
      assert(r.json.error.message.includes("{pos}") && r.json.error.message.includes("{position}"));
    }
    // Leaving a value out is the operator's choice; the known ones are kept.
    const ok = await admin.req("PUT", "/api/admin/branding", {
      messages: { de: { "wait.placeAbout": "Bald dran", "wait.place": "Platz {position}" } },
    });
    assertEquals(ok.status, 200, ok.text);
    // Wording stored before the check falls back to the catalogue's text, not "{pos}".
    const m = messagesFor("de", { de: { "wait.place": "Platz {pos}", "wait.eta": "in {wait}" } });
    assertEquals(m["wait.place"], CATALOGUES.de["wait.place"]);
    assertEquals(m["wait.eta"], "in {wait}");
  } finally {
    t.close();
  }
});

Deno.test("an operator's title and message reworded for a language win over their own text there", async () => {
  const t = await waitingApp();
  try {
    const { client: admin } = await adminClient(t);
    const r = await admin.req("PUT", "/api/admin/branding", {
      title: "Summer sale",
      message: "Thanks for waiting",
      messages: { de: { "page.title": "Sommerschlussverkauf", "page.message": "Danke!" } },
    });
    assertEquals(r.status, 200, r.text);
    const v = new Client(t.app);
    const de = (await v.req("GET", "/wait?lang=de")).text;
    assert(de.includes(`<h1 id="tg-title">Sommerschlussverkauf</h1>`), "the German title");
    assert(de.includes("<title>Sommerschlussverkauf</title>") && de.includes("Danke!"));
    for (const lang of ["en", "fr"]) {
      const page = (await v.req("GET", `/wait?lang=${lang}`)).text;
      assert(page.includes(`<h1 id="tg-title">Summer sale</h1>`), `${lang}: their own title`);
    }
    const facts = { title: "Summer sale", link: "https://q.example/r", code: "K7PX-M2QD", near: 0 };
    const overrides = { de: { "page.title": "Sommerschlussverkauf" } };
    assert(turnMail(facts, "de", overrides).subject.includes("Sommerschlussverkauf"), "the e-mail");
    assert(turnMail(facts, "fr", overrides).subject.includes("Summer sale"));
  } finally {
    t.close();
  }
});

Deno.test("a closed room's page without the operator's text speaks the visitor's language", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    const r = await admin.req("PUT", "/api/admin/room", { mode: "reject", closedMessage: "" });
    assertEquals(r.status, 200, r.text);
    for (const lang of ["de", "ja", "ar"] as const) {
      const page = await new Client(t.app).req("GET", `/wait?lang=${lang}`);
      assertEquals(page.status, 503);
      assert(page.text.includes(CATALOGUES[lang]["notice.closedText"]), `${lang}: ${page.text}`);
      assert(!page.text.includes(CATALOGUES.en["notice.closedText"]), `${lang}: no English`);
    }
  } finally {
    t.close();
  }
});

Deno.test("the wait page's script stays within 40 KB gzip and carries no catalogue", async () => {
  const dir = new URL("../static/build/", import.meta.url);
  const manifest = JSON.parse(await Deno.readTextFile(new URL("manifest.json", dir)));
  const bytes = await Deno.readFile(new URL(manifest["wait.js"], dir));
  const gz = new Uint8Array(
    await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  assert(gz.length <= 40 * 1024, `wait.js is ${gz.length} bytes gzip`);
  const text = new TextDecoder().decode(bytes);
  for (const lang of ["de", "ja", "ar"] as const) {
    assert(!text.includes(CATALOGUES[lang]["wait.placeLabel"]), `no ${lang} catalogue in wait.js`);
  }
  assert(!text.includes(CATALOGUES.en["wait.placeLabel"]), "nor the English one");
  assert(!text.includes(CATALOGUES.en["resume.offer"]), "nor the resume panel's English words");
});

Deno.test("the origin proxy's 'not reachable' page speaks the visitor's language", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const dead = (l.addr as Deno.NetAddr).port;
  l.close();
  const t = await makeApp({ ORIGIN_URL: `http://127.0.0.1:${dead}` });
  try {
    const token = await t.services.signer.signAccessToken("v1", Q, t.clock.now(), 60);
    const page = (headers: Record<string, string>) =>
      t.app.request("/x", { headers: { authorization: `Bearer ${token}`, ...headers } });
    const ru = await page({ "accept-language": "ru-RU,ru;q=0.9" });
    assertEquals(ru.status, 502);
    const text = await ru.text();
    assert(
      text.includes(`<html lang="ru" dir="ltr">`) &&
        text.includes(CATALOGUES.ru["gateway.heading"]),
    );
    const ar = await (await page({ cookie: "tg_lang=ar" })).text();
    assert(ar.includes(`dir="rtl"`) && ar.includes(CATALOGUES.ar["gateway.retry"]));
  } finally {
    t.close();
  }
});

Deno.test("the draw check's lines each name a message whose values they carry", () => {
  const lines = [
    ...verifyDraw({ scheme: "other" } as never).lines,
    ...verifyDraw({ scheme: DRAW_SCHEME } as never).lines,
    ...verifyDraw({
      scheme: DRAW_SCHEME,
      seed: "ab".repeat(32),
      list: [1, 2, 3],
      order: [3, 1, 2],
      listHash: "x",
      commitment: "y".repeat(64),
      committedAt: 0,
    } as never).lines,
  ];
  assertEquals(new Set(lines.map((l) => l.key)).size, 7, "every kind of line was met");
  for (const l of lines) {
    const key = `draw.${l.key}` as keyof typeof CATALOGUES.en;
    for (const lang of LANGS) {
      const text = CATALOGUES[lang][key];
      assert(text, `${lang}: ${key}`);
      assertEquals(names(text), Object.keys(l.values).sort(), `${lang}: ${key} values`);
    }
  }
});
