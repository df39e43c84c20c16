/**
 * The turn e-mail takes an address whose domain is not ASCII (`ann@bücher.example`): it is sent,
 * through a real SMTP server (Debian's aiosmtpd on loopback), to the domain's punycode form.
 * Before, `z.email()` refused such an address with 400. Invalid addresses are still refused.
 */
import { asciiEmail } from "../lib/notify/address.ts";
import { haveAiosmtpd } from "../testing/smtp_server.ts";
import { freePort } from "../testing/procs.ts";
import { assertEquals } from "./assert.ts";
import { Client } from "./helpers.ts";
import { mailingApp, Q, withMail } from "./mail_helpers.ts";

const ignore = !(await haveAiosmtpd());
if (ignore) console.warn("turn_email_idn_test: apt-get install python3-aiosmtpd to run it");

Deno.test({
  name: "an IDN address gets the turn e-mail at its punycode domain",
  ignore,
  async fn() {
    await withMail({}, async (t, smtp) => {
      const a = new Client(t.app);
      await a.join();
      const saved = await a.req("POST", "/turn-email", { queue: Q, email: "ann@bücher.example" });
      assertEquals([saved.status, saved.json.email], [200, "saved"], saved.text);
      await t.engine.setPaused(Q, false);
      assertEquals(await t.engine.admit(Q, 1), 1);
      t.engine.ctx.invalidate(Q);
      await t.services.mailJob();
      const [mail] = await smtp.waitFor(1);
      assertEquals(mail.headers["to"], "ann@xn--bcher-kva.example");
    });
  },
});

Deno.test("invalid addresses are still refused with 400 naming the field", async () => {
  const t = await mailingApp(freePort());
  try {
    const a = new Client(t.app);
    await a.join();
    for (
      const email of [
        "not-an-address",
        "ann@ex ample.com",
        "ann@-bad.example",
        "ann@localhost",
        "ann@a..example",
        "ännchen@example.test", // a non-ASCII local part needs SMTPUTF8: refused
        `ann@${"a".repeat(250)}.example`,
      ]
    ) {
      const bad = await a.req("POST", "/turn-email", { queue: Q, email });
      assertEquals([bad.status, bad.json.error.details.fields[0].path], [400, "email"], email);
    }
  } finally {
    t.close();
  }
});

Deno.test("asciiEmail: IDN domains in punycode, full stops of other scripts too", () => {
  assertEquals(asciiEmail("ann@пример.рф"), "ann@xn--e1afmkfd.xn--p1ai");
  assertEquals(asciiEmail("ann@例え。テスト"), "ann@xn--r8jz45g.xn--zckzah");
  assertEquals(asciiEmail("Ann@Example.TEST"), "Ann@example.test");
  assertEquals(asciiEmail("ann@example"), null);
});
