/**
 * Which language a visitor page speaks: `?lang=` (then kept in the `tg_lang` cookie), else that
 * cookie, else the best match of `Accept-Language`, else English. Tags match loosely: `pt` and
 * `pt-PT` find `pt-BR`, `zh-Hant`/`zh-HK` find `zh-TW`, any other `zh` finds `zh-CN`.
 */
import { isLang, type Lang, LANGS } from "./langs.ts";

/** The cookie that keeps a visitor's chosen language. */
export const LANG_COOKIE = "tg_lang";

/** The catalogue language closest to one language tag, or null when none fits. */
export function matchLang(tag: string): Lang | null {
  const t = tag.trim().toLowerCase();
  if (!t || t === "*") return null;
  const exact = LANGS.find((l) => l.toLowerCase() === t);
  if (exact) return exact;
  const [primary, ...rest] = t.split("-");
  if (primary === "zh") {
    // The script subtag says which writing the reader wants (zh-Hans-HK: simplified, in Hong
    // Kong); without one, the region where traditional characters are the usual ones.
    if (rest.includes("hans")) return "zh-CN";
    return rest.some((r) => r === "hant" || r === "tw" || r === "hk" || r === "mo")
      ? "zh-TW"
      : "zh-CN";
  }
  if (primary === "pt") return "pt-BR";
  return LANGS.find((l) => l.toLowerCase() === primary) ?? null;
}

/** The best catalogue language for an `Accept-Language` header (quality order, then order). */
export function fromAcceptLanguage(header: string | null | undefined): Lang | null {
  if (!header) return null;
  const ranges = header.slice(0, 1000).split(",").map((part, i) => {
    const [tag, ...params] = part.split(";");
    // The weight's name is case-insensitive (RFC 9110: `Q=0.5` is `q=0.5`).
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("q="));
    const quality = q ? Number(q.slice(2)) : 1;
    return { tag, quality: Number.isFinite(quality) ? quality : 0, i };
  }).filter((r) => r.quality > 0).sort((a, b) => b.quality - a.quality || a.i - b.i);
  for (const r of ranges) {
    const m = matchLang(r.tag);
    if (m) return m;
  }
  return null;
}

/** What a request says about language: the query's `lang`, the cookie, the header. */
export interface LangHints {
  query?: string | null;
  cookie?: string | null;
  acceptLanguage?: string | null;
}

/**
 * The page's language and whether the cookie must be (re)written: a valid `?lang=` wins and is
 * kept; a cookie naming a catalogue comes next; then `Accept-Language`; then English.
 */
export function pickLang(h: LangHints): { lang: Lang; remember: boolean } {
  const asked = h.query ? matchLang(h.query) : null;
  if (asked) return { lang: asked, remember: h.cookie !== asked };
  if (isLang(h.cookie)) return { lang: h.cookie, remember: false };
  return { lang: fromAcceptLanguage(h.acceptLanguage) ?? "en", remember: false };
}
