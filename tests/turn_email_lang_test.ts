/**
 * The turn e-mail speaks the language of the page the visitor asked for it on: the request keeps
 * only the language code beside the sealed address, and the e-mail's subject and text come from
 * that catalogue (English for an old request without one). Against Debian's aiosmtpd on loopback,
 * as tests/turn_email_test.ts; the wording itself is checked for every language without a server.
 */
import { CATALOGUES } from "../lib/i18n/catalogues.ts";
import { num, t as fill } from "../lib/i18n/format.ts";
import { LANGS } from "../lib/i18n/langs.ts";
import { turnMail } from "../lib/notify/turn_mail.ts";
import { DEFAULT_BRANDING } from "../lib/branding.ts";
import { haveAiosmtpd } from "../testing/smtp_server.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client } from "./helpers.ts";
import { Q, storedRequests, withMail } from "./mail_helpers.ts";

const ignore = !(await haveAiosmtpd());
if (ignore) {
  console.warn("turn_email_lang_test: apt-get install python3-aiosmtpd to run these tests");
}

const de = CATALOGUES.de, ru = CATALOGUES.ru;

Deno.test({
  name: "a German visitor's turn e-mail is German, a Russian browser's Russian",
  ignore,
  async fn() {
    await withMail({}, async (t, smtp) => {
      // The German page joins and keeps the choice (tg_lang); the e-mail request follows it.
      const ann = new Client(t.app);
      assertEquals((await ann.req("GET", `/wait?queue=${Q}&lang=de`)).status, 200);
      assertEquals(ann.cookies.get("tg_lang"), "de");
      const saved = await ann.req("POST", "/turn-email", { queue: Q, email: "ann@example.test" }, {
        "accept-language": "en",
      });
      assertEquals(saved.status, 200, saved.text);
      const [stored] = await storedRequests(t.kv);
      const record = stored.value as Record<string, unknown>;
      assertEquals(record.lang, "de", "the cookie's language, not the header's");
      // No origin from the request (its Host is whatever the sender wrote): the link names PUBLIC_URL.
      assertEquals(Object.keys(record).sort(), ["failures", "id", "lang", "sealed"]);
      assert(!JSON.stringify(record).includes("ann@"), "the address stays sealed");

      // No cookie: the browser's Accept-Language.
      const olga = new Client(t.app);
      await olga.join();
      const asked = await olga.req("POST", "/turn-email", {
        queue: Q,
        email: "olga@example.test",
      }, { "accept-language": "ru-RU,ru;q=0.9,en;q=0.5" });
      assertEquals(asked.status, 200, asked.text);

      await t.engine.setPaused(Q, false);
      assertEquals(await t.engine.admit(Q, 2), 2);
      t.engine.ctx.invalidate(Q);
      await t.services.mailJob();
      const mails = await smtp.waitFor(2);
      const to = (a: string) => mails.find((m) => m.headers["to"] === a);
      const german = to("ann@example.test"), russian = to("olga@example.test");
      assert(german && russian, JSON.stringify(mails.map((m) => m.headers)));
      // The built-in title is said in the visitor's language too.
      assertEquals(
        german.headers["subject"],
        fill(de, "mail.subjectTurn", { title: de["page.title"] }),
      );
      for (const line of [de["mail.leadTurn"], de["mail.linkIntro"], de["mail.ignore"]]) {
        assert(german.text.includes(line), `${line}\n---\n${german.text}`);
      }
      const code = /resume=([2-9A-Z]{4})([2-9A-Z]{4})/.exec(german.text);
      assert(code, german.text);
      assert(german.text.includes(fill(de, "mail.code", { code: `${code[1]}-${code[2]}` })));
      assert(!german.text.includes(CATALOGUES.en["mail.ignore"]), "no English left");
      assertEquals(
        russian.headers["subject"],
        fill(ru, "mail.subjectTurn", { title: ru["page.title"] }),
      );
      assert(russian.text.includes(ru["mail.leadTurn"]), russian.text);
    });
  },
});

Deno.test("the turn e-mail's words in every language: link, code, near count, fallbacks", () => {
  const facts = {
    title: "Shop",
    link: "https://q.example/wait?queue=q&resume=K7PXM2QD",
    code: "K7PX-M2QD",
  };
  for (const lang of LANGS) {
    const m = CATALOGUES[lang];
    const turn = turnMail({ ...facts, near: 0 }, lang);
    assertEquals(turn.subject, fill(m, "mail.subjectTurn", { title: "Shop" }), lang);
    assert(turn.text.includes(`\n${facts.link}\n`), `${lang}: the link on a line of its own`);
    assert(turn.text.includes("K7PX-M2QD"), `${lang}: the code`);
    assert(turn.text.startsWith(m["mail.leadTurn"]), lang);
    const near = turnMail({ ...facts, near: 12 }, lang);
    assertEquals(near.subject, fill(m, "mail.subjectNear", { title: "Shop" }), lang);
    assert(near.text.startsWith(fill(m, "mail.leadNear", { count: num(lang, 12) })), lang);
  }
  // A request stored before languages were kept, or a language no catalogue has: English.
  const en = CATALOGUES.en;
  assertEquals(turnMail({ ...facts, near: 0 }, undefined).subject, "It's your turn: Shop");
  assertEquals(
    turnMail({ ...facts, near: 0 }, "xx").text,
    turnMail({ ...facts, near: 0 }, "en").text,
  );
  assertEquals(
    turnMail({ ...facts, title: DEFAULT_BRANDING.title, near: 0 }, "ja").subject,
    fill(CATALOGUES.ja, "mail.subjectTurn", { title: CATALOGUES.ja["page.title"] }),
  );
  // The operator's wording for a language replaces the catalogue's in the e-mail too.
  const own = { de: { "mail.subjectTurn": "Jetzt geht's los bei {title}" } };
  assertEquals(turnMail({ ...facts, near: 0 }, "de", own).subject, "Jetzt geht's los bei Shop");
  assert(turnMail({ ...facts, near: 0 }, "en", own).text.startsWith(en["mail.leadTurn"]));
});
