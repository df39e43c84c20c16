/**
 * The e-mail at a visitor's turn (or when it is near the front), in the language of the page the
 * visitor asked for it on: its subject and text come from that language's catalogue (`mail.*`),
 * with the queue's own wording laid over it, so it reads like the waiting page it came from.
 */
import { brandText, type MessageOverrides, messagesFor } from "../i18n/catalogues.ts";
import { num, t } from "../i18n/format.ts";
import { isLang, type Lang } from "../i18n/langs.ts";
import { DEFAULT_BRANDING } from "../branding.ts";

/**
 * What the e-mail says: the queue's title, the resume link (null without PUBLIC_URL: the code
 * only) and code, `near` (0: the turn).
 */
export interface TurnMailFacts {
  title: string;
  link: string | null;
  code: string;
  near: number;
}

/** The subject and text of the turn e-mail in `lang` (English for a missing or unknown one). */
export function turnMail(
  p: TurnMailFacts,
  lang: string | undefined,
  overrides?: MessageOverrides | null,
): { subject: string; text: string } {
  const l: Lang = isLang(lang) ? lang : "en";
  const m = messagesFor(l, overrides);
  // The title as the page shows it: the operator's wording in this language, their own title, or
  // (the built-in English one kept) the catalogue's.
  const title = brandText(l, m, "page.title", p.title, DEFAULT_BRANDING.title);
  const near = p.near > 0;
  const subject = t(m, near ? "mail.subjectNear" : "mail.subjectTurn", { title });
  const lead = near ? t(m, "mail.leadNear", { count: num(l, p.near) }) : m["mail.leadTurn"];
  const text = [
    lead,
    "",
    ...(p.link ? [m["mail.linkIntro"], p.link, ""] : []),
    t(m, "mail.code", { code: p.code }),
    "",
    m["mail.ignore"],
  ].join("\n");
  return { subject, text };
}
