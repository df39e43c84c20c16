/**
 * What the turn e-mail tests share: an app that mails through a given loopback port with its
 * default queue paused (everyone waits), and the e-mail requests it keeps.
 */
import { keys } from "../lib/store/keys.ts";
import { type SmtpServer, startSmtpServer } from "../testing/smtp_server.ts";
import { makeApp, type TestApp } from "./helpers.ts";

/** The queue the tests use. */
export const Q = "default";

/** The public address the mailing app's links name (the e-mail's link needs PUBLIC_URL). */
export const MAIL_SITE = "http://localhost";

/**
 * An app that mails through 127.0.0.1:`port`, its default queue paused (everyone waits), published
 * at `MAIL_SITE` unless `extra` says otherwise.
 */
export async function mailingApp(port: number, extra = {}): Promise<TestApp> {
  const t = await makeApp({
    PUBLIC_URL: MAIL_SITE,
    SMTP_HOST: "127.0.0.1",
    SMTP_PORT: port,
    SMTP_TLS: "none",
    SMTP_FROM: "Tollgate <queue@example.test>",
    ...extra,
  });
  await t.engine.setPaused(Q, true);
  return t;
}

/**
 * Runs `fn` with a real SMTP server (Debian's aiosmtpd on loopback) and a `mailingApp` over it
 * (`extra` as there); both are closed after, whatever `fn` did.
 */
export async function withMail<T>(
  extra: Record<string, unknown>,
  fn: (t: TestApp, smtp: SmtpServer) => Promise<T>,
): Promise<T> {
  const smtp = await startSmtpServer();
  const t = await mailingApp(smtp.port, extra);
  try {
    return await fn(t, smtp);
  } finally {
    t.close();
    await smtp.stop();
  }
}

/** Every stored e-mail request of the queue, as stored (numbered or not yet). */
export async function storedRequests(kv: Deno.Kv): Promise<Deno.KvEntry<unknown>[]> {
  const out = [];
  for (const prefix of [keys.mailSubPrefix(Q), keys.mailSubPrePrefix(Q)]) {
    for await (const e of kv.list({ prefix })) out.push(e);
  }
  return out;
}
