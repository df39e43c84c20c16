/**
 * The turn e-mail's SMTP server, typed into the admin app, under the outbound policy of every
 * admin-chosen target (a black-box sweep saved 169.254.169.254, 10.0.0.1, `0x7f.1` and the
 * service's own port, and the test e-mail then connected there): refused when saved, in every
 * spelling, and checked again before each send, so settings stored before the check (or a name
 * that resolves elsewhere later) never get a connection.
 */
import { keys } from "../lib/store/keys.ts";
import type { MailSettings } from "../lib/notify/settings.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const PORT = 8124;

const mailBody = (host: string, port = 2525) => ({
  host,
  port,
  tls: "none",
  user: "",
  from: "Queue <queue@example.test>",
  atPosition: 0,
});

Deno.test("admin SMTP host: metadata, private and the service itself are refused when saved", async () => {
  const t = await makeApp({ ALLOW_PRIVATE_TARGETS: false, PORT });
  try {
    const { client } = await adminClient(t);
    const cases: [string, number, string][] = [
      ["169.254.169.254", 25, "forbidden_address"],
      ["metadata.google.internal", 25, "forbidden_address"],
      ["fd00:ec2::254", 25, "forbidden_address"],
      ["10.0.0.1", 25, "private_address"],
      ["0x7f.1", 25, "private_address"],
      ["2130706433", 25, "private_address"],
      ["localhost", 25, "private_address"],
      ["::1", 25, "private_address"],
    ];
    for (const [host, port, reason] of cases) {
      const r = await client.req("PUT", "/api/admin/mail", mailBody(host, port));
      assertEquals(r.status, 400, `${host}: ${r.text}`);
      assertEquals(r.json.error.details.reason, reason, host);
      assertEquals(r.json.error.details.fields[0].path, "host", host);
    }
    assertEquals((await t.kv.get(keys.mailSettings())).value, null, "nothing stored");
    // A public address is fine (nothing is sent when saving).
    const ok = await client.req("PUT", "/api/admin/mail", mailBody("93.184.216.34"));
    assertEquals([ok.status, ok.json.host], [200, "93.184.216.34"], ok.text);
  } finally {
    t.close();
  }
});

Deno.test("admin SMTP host: with ALLOW_PRIVATE_TARGETS a LAN server is fine, the service's own port never", async () => {
  const t = await makeApp({ ALLOW_PRIVATE_TARGETS: true, PORT });
  try {
    const { client } = await adminClient(t);
    const own = await client.req("PUT", "/api/admin/mail", mailBody("127.0.0.1", PORT));
    assertEquals([own.status, own.json.error?.details?.reason], [400, "self"], own.text);
    const lan = await client.req("PUT", "/api/admin/mail", mailBody("127.0.0.1", 2525));
    assertEquals(lan.status, 200, lan.text);
  } finally {
    t.close();
  }
});

Deno.test("admin SMTP host: a refused server stored before the check gets no connection", async () => {
  // A listener stands in for something on the private network; settings written straight into
  // the store (as by a release without the check) point the mailer at it.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  const t = await makeApp({ ALLOW_PRIVATE_TARGETS: false, PORT });
  try {
    const { client } = await adminClient(t);
    const record: MailSettings = { ...mailBody("127.0.0.1", listener.addr.port), tls: "none" };
    await t.kv.set(keys.mailSettings(), record);
    const r = await client.req("POST", "/api/admin/mail/test", { to: "ops@example.test" });
    assertEquals(r.status, 200, r.text);
    assertEquals(r.json.sent, false);
    assert(/refused: .*loopback/.test(r.json.error), r.json.error);
    assertEquals(connections, 0, "no connection to the refused server");
  } finally {
    t.close();
    listener.close();
  }
});
