/**
 * The turn e-mail's link names PUBLIC_URL, never the Host of the request that asked for the
 * e-mail: a black-box sweep took a place with `Host: evil.example`, asked for the e-mail to
 * someone else's address, and the service mailed that address a resume link to evil.example
 * (phishing from the operator's own mail server). Without PUBLIC_URL the e-mail carries the code
 * only. The link also names the page the visitor asked for (`return`, a path of this site only).
 * Against a real SMTP server (Debian's aiosmtpd) on loopback.
 */
import { haveAiosmtpd } from "../testing/smtp_server.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client } from "./helpers.ts";
import { Q, withMail } from "./mail_helpers.ts";

const ignore = !(await haveAiosmtpd());

/** Takes a place and asks for the e-mail through `host`; admits it and runs the mail job. */
async function mailThrough(
  publicUrl: string | undefined,
  host: string,
  extra: Record<string, string> = {},
) {
  return await withMail({ PUBLIC_URL: publicUrl }, async (t, smtp) => {
    const a = new Client({ request: (p, init) => t.app.request(`http://${host}${p}`, init) });
    assertEquals((await a.join()).status, 202);
    const ask = { queue: Q, email: "victim@example.test", ...extra };
    const saved = await a.req("POST", "/turn-email", ask);
    assertEquals(saved.status, 200, saved.text);
    await t.engine.setPaused(Q, false);
    assertEquals(await t.engine.admit(Q, 1), 1);
    t.engine.ctx.invalidate(Q);
    await t.services.mailJob();
    const [mail] = await smtp.waitFor(1);
    return mail.text;
  });
}

Deno.test({
  name: "the turn e-mail's link names PUBLIC_URL, not the Host the place was asked through",
  ignore,
  async fn() {
    const text = await mailThrough("https://queue.example.com", "evil.example");
    assert(!text.includes("evil.example"), text);
    assert(
      /https:\/\/queue\.example\.com\/wait\?queue=default&resume=[2-9A-Z]{8}/.test(text),
      text,
    );
  },
});

Deno.test({
  name: "without PUBLIC_URL the turn e-mail carries the code and no link",
  ignore,
  async fn() {
    const text = await mailThrough(undefined, "evil.example");
    assert(!text.includes("evil.example") && !/https?:\/\//.test(text), text);
    assert(/[2-9A-Z]{4}-[2-9A-Z]{4}/.test(text), text);
  },
});

Deno.test({
  name: "the turn e-mail's link lands on the page asked for; a return off the site is refused",
  ignore,
  async fn() {
    const text = await mailThrough("https://queue.example.com", "queue.example.com", {
      return: "/shop?item=7&size=a b",
    });
    assert(/resume=[2-9A-Z]{8}&return=%2Fshop%3Fitem%3D7%26size%3Da%2520b/.test(text), text);
    await withMail({ PUBLIC_URL: "https://queue.example.com" }, async (t) => {
      const a = new Client({ request: (p, init) => t.app.request(`https://x.test${p}`, init) });
      assertEquals((await a.join()).status, 202);
      const off = { queue: Q, email: "ann@example.test", return: "//evil.example/x" };
      const refused = await a.req("POST", "/turn-email", off);
      assertEquals(refused.status, 400, refused.text);
      assert(refused.json.error.message.includes("return"), refused.text);
    });
  },
});
