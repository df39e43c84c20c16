/**
 * The turn e-mail cannot be pointed at someone else's inbox over and over: a sweep took places
 * with a script and asked for the e-mail to one victim address on each (no limit: one e-mail per
 * place, from the operator's mail server). Three requests an hour per recipient, whoever asks and
 * however the address is spelt; the count is kept under a MAC, never the address.
 */
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client } from "./helpers.ts";
import { mailingApp, Q } from "./mail_helpers.ts";

Deno.test("a fourth turn e-mail request for one recipient within the hour is 429", async () => {
  const t = await mailingApp(2525); // no e-mail is sent here: asking needs only the settings
  try {
    const ask = async (email: string) => {
      const c = new Client(t.app);
      assertEquals((await c.join()).status, 202);
      return await c.req("POST", "/turn-email", { queue: Q, email });
    };
    for (const email of ["victim@example.test", "Victim@Example.test", "victim+2@example.test"]) {
      assertEquals((await ask(email)).status, 200, email);
    }
    const refused = await ask("VICTIM+again@example.test");
    assertEquals([refused.status, refused.json.error.code], [429, "rate_limited"], refused.text);
    assert(Number(refused.headers.get("retry-after")) > 0);
    // Someone else is not affected, and an hour later the victim's own request works again.
    assertEquals((await ask("someone@example.test")).status, 200);
    t.clock.advance(60 * 60_000);
    assertEquals((await ask("victim@example.test")).status, 200);
    for await (const e of t.kv.list({ prefix: keys.rateLimit("turnMail", "", 0).slice(0, 2) })) {
      assert(!JSON.stringify(e.key).includes("victim"), "never the address in a key");
    }
  } finally {
    t.close();
  }
});
