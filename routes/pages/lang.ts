/**
 * The language of a visitor page, read from the request: `?lang=` (kept in the `tg_lang` cookie
 * for the visitor's next pages), the cookie, then `Accept-Language`. With the queue's branding,
 * its operator's wording is laid over the catalogue.
 */
import type { Context } from "hono";
import { cookieValue, isSecureRequest, visitorCookie } from "../../http/cookies.ts";
import { brandText, type MessageOverrides, messagesFor } from "../../lib/i18n/catalogues.ts";
import type { Lang } from "../../lib/i18n/langs.ts";
import type { Catalogue } from "../../lib/i18n/messages/en.ts";
import { LANG_COOKIE, type LangHints, pickLang } from "../../lib/i18n/negotiate.ts";
import { DEFAULT_BRANDING } from "../../lib/branding.ts";

/** A year: a chosen language is a preference, not a session. */
const LANG_MAX_AGE = 365 * 86400;

/** A page's language and its messages. */
export interface PageLang {
  lang: Lang;
  m: Catalogue;
}

/** What a request says about language: its `?lang=`, its `tg_lang` cookie, `Accept-Language`. */
export function langHints(c: Context): LangHints {
  return {
    query: c.req.query("lang"),
    cookie: cookieValue(c.req.header("cookie"), LANG_COOKIE),
    acceptLanguage: c.req.header("accept-language"),
  };
}

/**
 * The page's language (remembering a `?lang=` choice unless `keep: false`) and its messages with
 * `overrides`.
 */
export function pageLang(
  c: Context,
  overrides?: MessageOverrides | null,
  opts: { keep?: boolean } = {},
): PageLang {
  const { lang, remember } = pickLang(langHints(c));
  if (remember && opts.keep !== false) {
    c.header(
      "Set-Cookie",
      visitorCookie(LANG_COOKIE, lang, LANG_MAX_AGE, isSecureRequest(c.req.raw)),
      {
        append: true,
      },
    );
  }
  // Caches between the visitor and us must not hand one language's page to another visitor.
  c.header("Vary", "Accept-Language, Cookie", { append: true }); // i18n-ok: header names
  return { lang, m: messagesFor(lang, overrides) };
}

/** The path and query the browser asked for (behind `BASE_PATH`), for the language menu. */
export function selfUrl(c: Context, base: string): string {
  const url = new URL(c.req.url);
  return base + url.pathname + url.search;
}

/**
 * The branding's title and message in the page's language: the operator's wording of
 * `page.title`/`page.message` in that language, else their own words as written, else (the
 * built-in English ones kept) the catalogue's.
 */
export function localTexts<T extends { title: string; message: string }>(
  b: T,
  m: Catalogue,
  lang: Lang,
): T {
  return {
    ...b,
    title: brandText(lang, m, "page.title", b.title, DEFAULT_BRANDING.title),
    message: brandText(lang, m, "page.message", b.message, DEFAULT_BRANDING.message),
  };
}
