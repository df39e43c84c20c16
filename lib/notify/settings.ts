/**
 * The SMTP settings of the turn e-mail: saved in the admin app (`keys.mailSettings()`, the
 * password sealed by TOKEN_SECRET) or, when none are saved, the SMTP_* variables. Every read
 * handed out is the public view, which never carries the password.
 */
import type { Config } from "../config.ts";
import { seal, unseal } from "../seal.ts";
import { keys } from "../store/keys.ts";
import type { SmtpConfig } from "./mailer.ts";

/** How the connection is secured. */
export const SMTP_TLS_MODES = ["starttls", "tls", "none"] as const;
/** `purpose` of the sealed password (its own HKDF key). */
export const SMTP_PASSWORD_PURPOSE = "smtp-password";

/** The stored record. */
export interface MailSettings {
  host: string;
  port: number;
  tls: typeof SMTP_TLS_MODES[number];
  user: string;
  sealedPassword?: string;
  from: string;
  /** Send at this place in line; 0: at admission. */
  atPosition: number;
}

/** A settings write: `password` a string sets, null clears, undefined keeps. */
export type MailSettingsInput = Omit<MailSettings, "sealedPassword"> & {
  password?: string | null;
};

/** What the admin API shows. */
export interface MailSettingsView extends Omit<MailSettings, "sealedPassword"> {
  /** Where the settings in force come from: saved here, the SMTP_* variables, or nowhere. */
  source: "admin" | "env" | "none";
  /** A password is set (never returned); false also when TOKEN_SECRET was rotated since. */
  hasPassword: boolean;
}

/** The settings in force, with the password readable, for the mailer and the job. */
export interface EffectiveMail {
  smtp: SmtpConfig;
  atPosition: number;
  source: MailSettingsView["source"];
}

type Env = Pick<
  Config,
  | "SMTP_HOST"
  | "SMTP_PORT"
  | "SMTP_TLS"
  | "SMTP_USER"
  | "SMTP_PASSWORD"
  | "SMTP_FROM"
  | "MAIL_AT_POSITION"
  | "TOKEN_SECRET"
>;

/** The saved settings (null: none saved). */
export async function loadMailSettings(kv: Deno.Kv): Promise<MailSettings | null> {
  return (await kv.get<MailSettings>(keys.mailSettings())).value;
}

/** The settings in force: the saved ones, else the environment's. */
export async function effectiveMail(kv: Deno.Kv, env: Env): Promise<EffectiveMail> {
  const saved = await loadMailSettings(kv);
  if (saved) {
    const password = saved.sealedPassword
      ? await unseal(env.TOKEN_SECRET, saved.sealedPassword, SMTP_PASSWORD_PURPOSE)
      : null;
    return {
      smtp: {
        SMTP_HOST: saved.host,
        SMTP_PORT: saved.port,
        SMTP_TLS: saved.tls,
        SMTP_USER: saved.user || undefined,
        SMTP_PASSWORD: password ?? undefined,
        SMTP_FROM: saved.from,
      },
      atPosition: saved.atPosition,
      source: "admin",
    };
  }
  return {
    smtp: {
      SMTP_HOST: env.SMTP_HOST,
      SMTP_PORT: env.SMTP_PORT,
      SMTP_TLS: env.SMTP_TLS,
      SMTP_USER: env.SMTP_USER,
      SMTP_PASSWORD: env.SMTP_PASSWORD,
      SMTP_FROM: env.SMTP_FROM,
    },
    atPosition: env.MAIL_AT_POSITION,
    source: env.SMTP_HOST ? "env" : "none",
  };
}

/** The public view of the settings in force. */
export async function readMailSettings(kv: Deno.Kv, env: Env): Promise<MailSettingsView> {
  const { smtp, atPosition, source } = await effectiveMail(kv, env);
  return {
    source,
    host: smtp.SMTP_HOST ?? "",
    port: smtp.SMTP_PORT,
    tls: smtp.SMTP_TLS,
    user: smtp.SMTP_USER ?? "",
    from: smtp.SMTP_FROM ?? "",
    atPosition,
    hasPassword: !!smtp.SMTP_PASSWORD,
  };
}

/**
 * Saves the settings (an empty host deletes them: the SMTP_* variables apply again). The
 * password is sealed; omitted, the saved one is kept.
 */
export async function saveMailSettings(
  kv: Deno.Kv,
  env: Env,
  input: MailSettingsInput,
): Promise<MailSettingsView> {
  if (!input.host) {
    await kv.delete(keys.mailSettings());
    return await readMailSettings(kv, env);
  }
  const old = await loadMailSettings(kv);
  const { password, ...rest } = input;
  const record: MailSettings = { ...rest };
  if (password) {
    record.sealedPassword = await seal(env.TOKEN_SECRET, password, SMTP_PASSWORD_PURPOSE);
  } else if (password === undefined && old?.sealedPassword) {
    record.sealedPassword = old.sealedPassword;
  }
  await kv.set(keys.mailSettings(), record);
  return await readMailSettings(kv, env);
}
