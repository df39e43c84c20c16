/**
 * The languages the visitor pages speak, each with its name in itself (for the language menu)
 * and its writing direction. Plain data: the server and the page scripts both read it.
 */

/** Language tags with a message catalogue, English first (the reference catalogue). */
export const LANGS = [
  "en",
  "de",
  "fr",
  "es",
  "it",
  "pt-BR",
  "nl",
  "pl",
  "tr",
  "ru",
  "ja",
  "ko",
  "zh-CN",
  "zh-TW",
  "ar",
] as const;

/** A language with a catalogue. */
export type Lang = (typeof LANGS)[number];

/** Each language's own name, as its speakers would look for it in a menu. */
export const LANG_NAMES: Record<Lang, string> = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
  it: "Italiano",
  "pt-BR": "Português (Brasil)",
  nl: "Nederlands",
  pl: "Polski",
  tr: "Türkçe",
  ru: "Русский",
  ja: "日本語",
  ko: "한국어",
  "zh-CN": "简体中文",
  "zh-TW": "繁體中文",
  ar: "العربية",
};

/** Languages written right to left. */
const RTL = new Set<Lang>(["ar"]);

/** `rtl` or `ltr` for `lang`. */
export function dirOf(lang: Lang): "rtl" | "ltr" {
  return RTL.has(lang) ? "rtl" : "ltr";
}

/** True when `v` names a language with a catalogue (exact tag, as in LANGS). */
export function isLang(v: unknown): v is Lang {
  return typeof v === "string" && (LANGS as readonly string[]).includes(v);
}
