/**
 * The turn e-mail as a service: which SMTP settings are in force (admin app or environment,
 * re-read at most once a second, so a save on any instance applies everywhere within a second)
 * and one nodemailer transport per settings, made again only when they change.
 */
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { type Mailer, smtpMailer } from "./mailer.ts";
import { effectiveMail } from "./settings.ts";
import { log } from "../log.ts";
import { guardedMailer } from "./smtp_target.ts";

/** The turn e-mail's settings and mailer, as the page, the requests and the job see them. */
export class MailService {
  #mailer: Mailer | null = null;
  #atPosition = 0;
  #fingerprint = "";
  #at = -Infinity;
  #warned = false;

  constructor(
    readonly deps: { kv: Deno.Kv; clock: Clock; config: Config },
  ) {}

  /** Whether the e-mail is offered (an SMTP server and a sender), as last read. */
  get enabled(): boolean {
    return this.#mailer !== null;
  }

  /** The mailer in force, as last read (null: no e-mail). */
  get mailer(): Mailer | null {
    return this.#mailer;
  }

  /** Send at this place in line (0: at admission), as last read. */
  get atPosition(): number {
    return this.#atPosition;
  }

  /** Reads the settings again when the last read is a second old (or `force`). */
  async refresh(force = false): Promise<void> {
    const now = this.deps.clock.now();
    if (!force && now >= this.#at && now - this.#at < 1000) return;
    this.#at = now;
    const eff = await effectiveMail(this.deps.kv, this.deps.config);
    this.#atPosition = eff.atPosition;
    const fingerprint = JSON.stringify(eff.smtp);
    if (fingerprint === this.#fingerprint) return;
    this.#fingerprint = fingerprint;
    const mailer = smtpMailer(eff.smtp);
    // A server typed into the admin app is checked like any admin-chosen target before each send.
    this.#mailer = mailer && eff.source === "admin"
      ? guardedMailer(this.deps.config, eff.smtp.SMTP_HOST!, eff.smtp.SMTP_PORT, mailer)
      : mailer;
    if (mailer && !this.deps.config.PUBLIC_URL && !this.#warned) {
      this.#warned = true;
      log("warn", "PUBLIC_URL is unset: turn e-mails carry the resume code but no link", {
        hint: "set PUBLIC_URL to the waiting room's public address (a request's Host is not used)",
      });
    }
  }
}
