/**
 * A failed SMTP send says why, without an address or the password: "SMTP send failed (ESOCKET)"
 * did not tell a refused connection from a bad certificate or a server's refusal (found by a
 * sweep of the operator's test calls). A fake SMTP server on loopback refuses the recipient,
 * naming the address in its reply, as real servers do; a closed port refuses the connection.
 */
import { smtpMailer, smtpReason } from "../lib/notify/mailer.ts";
import { assert, assertEquals } from "./assert.ts";

const VISITOR = "visitor.private@example.net";

/** A minimal SMTP server that greets, accepts EHLO and MAIL, and refuses every RCPT. */
function refusingServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const done = (async () => {
    for await (const conn of listener) {
      (async () => {
        const enc = new TextEncoder();
        const say = (l: string) => conn.write(enc.encode(l + "\r\n"));
        await say("220 fake.example ESMTP");
        const buf = new Uint8Array(4096);
        let text = "";
        for (;;) {
          const n = await conn.read(buf).catch(() => null);
          if (n === null) break;
          text += new TextDecoder().decode(buf.subarray(0, n));
          let i;
          while ((i = text.indexOf("\r\n")) >= 0) {
            const line = text.slice(0, i).toUpperCase();
            text = text.slice(i + 2);
            if (line.startsWith("EHLO") || line.startsWith("HELO")) await say("250 fake.example");
            else if (line.startsWith("MAIL")) await say("250 OK");
            else if (line.startsWith("RCPT")) {
              await say(`550 5.1.1 <${VISITOR}>: Recipient address rejected`);
            } else if (line.startsWith("QUIT")) {
              await say("221 bye");
              conn.close();
              return;
            } else await say("250 OK");
          }
        }
        try {
          conn.close();
        } catch { /* closed */ }
      })();
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    close: async () => {
      listener.close();
      await done.catch(() => {});
    },
  };
}

const base = {
  SMTP_TLS: "none" as const,
  SMTP_USER: undefined,
  SMTP_PASSWORD: undefined,
  SMTP_FROM: "Queue <queue@example.com>",
};

Deno.test("smtp errors: a refused connection and a refused recipient say why, no address", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closed = (l.addr as Deno.NetAddr).port;
  l.close();
  const down = smtpMailer({ ...base, SMTP_HOST: "127.0.0.1", SMTP_PORT: closed })!;
  const e1 = await down.send({ to: VISITOR, subject: "s", text: "t" }).catch((e) => e);
  assert(/^SMTP send failed \(ESOCKET\): .*ECONNREFUSED/.test(e1.message), e1.message);

  const srv = refusingServer();
  try {
    const m = smtpMailer({ ...base, SMTP_HOST: "127.0.0.1", SMTP_PORT: srv.port })!;
    const e2 = await m.send({ to: VISITOR, subject: "s", text: "t" }).catch((e) => e);
    assert(e2.message.startsWith("SMTP send failed (EENVELOPE 550): "), e2.message);
    assert(e2.message.includes("Recipient address rejected"), e2.message);
    assert(!e2.message.includes("private@") && e2.message.includes("<address>"), e2.message);
  } finally {
    await srv.close();
  }
});

Deno.test("smtp errors: the reason keeps one line, no address and never the password", () => {
  assertEquals(
    smtpReason("Invalid login: 535 bad s3cretpw for a@b.example\nsecond line", "s3cretpw"),
    "Invalid login: 535 bad <password> for <address>",
  );
  assertEquals(smtpReason(undefined), "");
  assert(smtpReason("x".repeat(1000)).length <= 200);
});
