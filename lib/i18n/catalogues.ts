/**
 * Every catalogue, for the server: the page for a language gets that one catalogue, with the
 * queue's own wording (the operator's overrides in its branding) laid over it. The page script
 * receives the result in its props, so it never bundles a catalogue itself.
 */
import type { Lang } from "./langs.ts";
import { type Catalogue, en, type MessageKey } from "./messages/en.ts";
import { de } from "./messages/de.ts";
import { fr } from "./messages/fr.ts";
import { es } from "./messages/es.ts";
import { it } from "./messages/it.ts";
import { ptBR } from "./messages/pt_br.ts";
import { nl } from "./messages/nl.ts";
import { pl } from "./messages/pl.ts";
import { tr } from "./messages/tr.ts";
import { ru } from "./messages/ru.ts";
import { ja } from "./messages/ja.ts";
import { ko } from "./messages/ko.ts";
import { zhCN } from "./messages/zh_cn.ts";
import { zhTW } from "./messages/zh_tw.ts";
import { ar } from "./messages/ar.ts";

/** The catalogue of each language. */
export const CATALOGUES: Record<Lang, Catalogue> = {
  en,
  de,
  fr,
  es,
  it,
  "pt-BR": ptBR,
  nl,
  pl,
  tr,
  ru,
  ja,
  ko,
  "zh-CN": zhCN,
  "zh-TW": zhTW,
  ar,
};

/** The message keys, in English's order. */
export const MESSAGE_KEYS = Object.keys(en) as MessageKey[];

/** An operator's wording: per language, per key, the text that replaces the catalogue's. */
export type MessageOverrides = Partial<Record<Lang, Partial<Record<MessageKey, string>>>>;

/** The `{name}` marks in `text`. */
function marksOf(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}

/**
 * The marks of `text` that message `key` has no value for (none: the wording fits). An operator's
 * wording may leave a value out, but an unknown `{name}` would reach the visitor as written.
 */
export function unknownMarks(key: MessageKey, text: string): string[] {
  const known = new Set(marksOf(en[key]));
  return [...new Set(marksOf(text).filter((n) => !known.has(n)))];
}

/** The catalogue a page in `lang` uses: the built-in one with the queue's overrides on top. */
export function messagesFor(lang: Lang, overrides?: MessageOverrides | null): Catalogue {
  const own = overrides?.[lang];
  if (!own) return CATALOGUES[lang];
  const out = { ...CATALOGUES[lang] };
  for (const k of MESSAGE_KEYS) {
    const v = own[k];
    // A wording saved before its marks were checked falls back to the catalogue's, never "{pos}".
    if (typeof v === "string" && v.trim() && !unknownMarks(k, v).length) out[k] = v;
  }
  return out;
}

/**
 * The page's title or message in `lang`: the operator's own wording of `key` in this language
 * when there is one (it is the translation of their text), else their branding text `own` unless
 * it is still the built-in English `builtIn`, else the catalogue's.
 */
export function brandText(
  lang: Lang,
  m: Catalogue,
  key: "page.title" | "page.message",
  own: string,
  builtIn: string,
): string {
  if (m[key] !== CATALOGUES[lang][key]) return m[key];
  return own === builtIn ? m[key] : own;
}

/** The keys each page script reads (its props carry only these). */
export const SCRIPT_KEYS = {
  wait: ["page.", "live.", "wait.", "time.", "notify.", "resume."],
  check: ["check.", "time."],
  draw: ["draw."],
} as const;

/**
 * The part of `m` a page script needs (keys starting with one of `prefixes`), so the page does
 * not carry the whole catalogue. Typed as the whole: the script reads only these keys.
 */
export function scriptMessages(m: Catalogue, prefixes: readonly string[]): Catalogue {
  const out: Partial<Catalogue> = {};
  for (const k of MESSAGE_KEYS) if (prefixes.some((p) => k.startsWith(p))) out[k] = m[k];
  return out as Catalogue;
}
