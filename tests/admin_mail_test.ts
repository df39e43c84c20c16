/**
 * The turn e-mail's SMTP settings in the admin app: saved settings win over SMTP_*, the password
 * is sealed and never returned or audited, a test e-mail goes through a real SMTP server
 * (Debian's aiosmtpd), and an empty host goes back to the environment.
 */
import { keys } from "../lib/store/keys.ts";
import { haveAiosmtpd, startSmtpServer } from "../testing/smtp_server.ts";
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { Client, makeApp } from "./helpers.ts";

const PASSWORD = "smtp-pass-do-not-show";

Deno.test({
  name: "SMTP settings saved in the admin app: sealed password, test e-mail, back to env",
  ignore: !(await haveAiosmtpd()),
  async fn() {
    const smtp = await startSmtpServer();
    const t = await makeApp();
    try {
      assertEquals((await new Client(t.app).req("GET", "/api/admin/mail")).status, 401);
      const { client } = await adminClient(t);
      const none = await client.req("GET", "/api/admin/mail");
      assertEquals([none.status, none.json.source], [200, "none"]);
      const bad = await client.req("PUT", "/api/admin/mail", {
        host: "127.0.0.1",
        port: smtp.port,
        tls: "none",
        user: "",
        from: "not an address",
        atPosition: 0,
      });
      assertEquals([bad.status, bad.json.error.details.fields[0].path], [400, "from"]);

      const saved = await client.req("PUT", "/api/admin/mail", {
        host: "127.0.0.1",
        port: smtp.port,
        tls: "none",
        user: "",
        password: PASSWORD,
        from: "Tollgate <queue@example.test>",
        atPosition: 0,
      });
      assertEquals([saved.status, saved.json.source, saved.json.hasPassword], [200, "admin", true]);
      assert(!saved.text.includes(PASSWORD));
      assert(!(await client.req("GET", "/api/admin/mail")).text.includes(PASSWORD));
      const stored = await t.kv.get(keys.mailSettings());
      assert(!JSON.stringify(stored.value).includes(PASSWORD), "sealed");
      for await (const e of t.kv.list({ prefix: keys.auditPrefix() })) {
        assert(!JSON.stringify(e.value).includes(PASSWORD), "never audited");
      }

      const test = await client.req("POST", "/api/admin/mail/test", { to: "ops@example.test" });
      assertEquals(test.json, { sent: true });
      const [mail] = await smtp.waitFor(1);
      assertEquals(mail.headers["to"], "ops@example.test");

      // The wait page's offer follows the saved settings.
      await t.engine.setPaused("default", true);
      const v = new Client(t.app);
      await v.join();
      const asked = await v.req("POST", "/turn-email", {
        queue: "default",
        email: "a@example.test",
      });
      assertEquals(asked.status, 200, asked.text);

      const cleared = await client.req("PUT", "/api/admin/mail", {
        host: "",
        port: 587,
        tls: "starttls",
        user: "",
        from: "",
        atPosition: 0,
      });
      assertEquals(cleared.json.source, "none");
      assertEquals((await t.kv.get(keys.mailSettings())).value, null);
      const off = await client.req("POST", "/api/admin/mail/test", { to: "ops@example.test" });
      assertEquals(off.json.sent, false);
    } finally {
      t.close();
      await smtp.stop();
    }
  },
});
