/**
 * The SMTP server typed into the admin app is an outbound target like a webhook: the one
 * outbound policy (lib/outbound/guard.ts) applies to it when it is saved and before every send,
 * so an admin's form cannot point the service at a cloud metadata address, a private host
 * (unless `ALLOW_PRIVATE_TARGETS`) or the service's own port, nor use the test e-mail's answer
 * to map the network behind it. `SMTP_HOST` from the environment is the operator's own and is not
 * checked, like `ORIGIN_URL`.
 *
 * The guard speaks URLs: the host and port are checked as the `https://` URL with that explicit
 * port, so the URL parser writes numeric hosts (`0x7f.1`, `2130706433`) in one spelling first.
 */
import { BadRequestError } from "../errors.ts";
import { type OutboundConfig, outboundGuard, OutboundRefused } from "../outbound/guard.ts";
import type { Mailer } from "./mailer.ts";

/** The URL the guard checks for an SMTP `host` and `port` (IPv6 bracketed); null if none. */
export function smtpTargetUrl(host: string, port: number): string | null {
  const h = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const url = `https://${h}:${port}/`;
  return URL.canParse(url) ? url : null;
}

/** The refusal of `refused`, moved to the form's `host` field. */
function hostRefusal(refused: OutboundRefused): BadRequestError {
  return new BadRequestError(`host: ${refused.detail}`, {
    reason: refused.reason,
    fields: [{ path: "host", message: refused.detail }],
  });
}

/**
 * When an admin saves an SMTP server (the request arriving at `requestUrl`): throws 400 naming
 * `host` (with `details.reason` as for webhooks) for a refused host or resolved address.
 */
export async function assertSmtpSavable(
  config: OutboundConfig,
  host: string,
  port: number,
  requestUrl: string,
): Promise<void> {
  const url = smtpTargetUrl(host, port);
  if (!url) {
    throw new BadRequestError("host: not a host name or address", {
      fields: [{ path: "host", message: "not a host name or address" }],
    });
  }
  try {
    await outboundGuard(config).assertSavable(url, requestUrl);
  } catch (e) {
    throw e instanceof OutboundRefused ? hostRefusal(e) : e;
  }
}

/**
 * `mailer` with the policy checked before every send (the name resolved again, as for
 * webhooks): a refused server gets no connection, and the send fails with the reason.
 */
export function guardedMailer(
  config: OutboundConfig,
  host: string,
  port: number,
  mailer: Mailer,
): Mailer {
  return {
    async send(mail) {
      const url = smtpTargetUrl(host, port);
      const refused = url
        ? await outboundGuard(config).checkSend(url)
        : new OutboundRefused("unresolved", `${host} is not a host name or address`);
      if (refused) throw new Error(`SMTP server refused: ${refused.detail}`);
      await mailer.send(mail);
    },
  };
}
