/**
 * The SMTP client of the e-mail at a visitor's turn: nodemailer over the server the operator
 * configures (SMTP_* variables). Timeouts are short, because a send runs in the per-second mail
 * job (never on a visitor's request). Errors are reported without the settings: the password
 * never appears in a log or an answer.
 */
// @ts-types="@types/nodemailer"
import nodemailer from "nodemailer";
import type { Config } from "../config.ts";
import { log } from "../log.ts";

/** One message. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail; rejects with an error whose message names no secret. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** The SMTP settings a mailer needs. */
export type SmtpConfig = Pick<
  Config,
  "SMTP_HOST" | "SMTP_PORT" | "SMTP_TLS" | "SMTP_USER" | "SMTP_PASSWORD" | "SMTP_FROM"
>;

/** A mailer for the configured SMTP server; null when none is configured (or no sender). */
export function smtpMailer(config: SmtpConfig): Mailer | null {
  if (!config.SMTP_HOST) return null;
  if (!config.SMTP_FROM) {
    log("warn", "SMTP_HOST is set but SMTP_FROM is not: the turn e-mail is not offered");
    return null;
  }
  const transport = nodemailer.createTransport({
    host: config.SMTP_HOST,
    port: config.SMTP_PORT,
    secure: config.SMTP_TLS === "tls",
    requireTLS: config.SMTP_TLS === "starttls",
    ignoreTLS: config.SMTP_TLS === "none",
    auth: config.SMTP_USER
      ? { user: config.SMTP_USER, pass: config.SMTP_PASSWORD ?? "" }
      : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
    logger: false,
    debug: false,
  });
  const from = config.SMTP_FROM;
  return {
    async send(mail) {
      try {
        await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
      } catch (e) {
        // nodemailer's errors carry the SMTP reply and code, never the credentials; the reason
        // (refused, a certificate, the server's reply) is kept without any e-mail address.
        const err = e as { code?: string; responseCode?: number; message?: string };
        const why = smtpReason(err.message, config.SMTP_PASSWORD);
        throw new Error(
          `SMTP send failed (${err.code ?? "error"}${
            err.responseCode ? ` ${err.responseCode}` : ""
          })${why ? `: ${why}` : ""}`,
        );
      }
    },
  };
}

/**
 * The first line of an SMTP error, fit for a log line and the test answer: any e-mail address (a
 * visitor's, in a recipient refusal) and the password, should a server ever echo it, replaced.
 * The code alone ("ESOCKET") did not say whether the server refused, was not found or had a
 * certificate the runtime does not trust.
 */
export function smtpReason(message: string | undefined, password?: string): string {
  let line = (message ?? "").split("\n")[0];
  if (password) line = line.split(password).join("<password>");
  return line.replace(/[^\s<>"'(),;:]+@[^\s<>"'(),;:]+/g, "<address>").slice(0, 200).trim();
}
