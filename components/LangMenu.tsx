import { type Lang, LANG_NAMES, LANGS } from "../lib/i18n/langs.ts";

/** `url` (a path with its query) with `?lang=` set to `lang`. */
function withLang(url: string, lang: Lang): string {
  const u = new URL(url, "http://x");
  u.searchParams.set("lang", lang);
  return u.pathname + u.search;
}

/**
 * The language menu: a disclosure of plain links (no script, works by keyboard), each language
 * named in itself and marked with its own `lang`, so screen readers pronounce it right. The
 * summary ("Language: English") is the catalogue's, punctuation and all ("Langue : Français",
 * "言語：日本語").
 */
export function LangMenu(p: { lang: Lang; label: string; summary: string; url: string }) {
  return (
    <nav class="langs" aria-label={p.label}>
      <details>
        <summary>{p.summary}</summary>
        <ul>
          {LANGS.map((l) => (
            <li key={l}>
              <a
                href={withLang(p.url, l)}
                lang={l}
                hreflang={l}
                aria-current={l === p.lang ? "true" : undefined}
              >
                {LANG_NAMES[l]}
              </a>
            </li>
          ))}
        </ul>
      </details>
    </nav>
  );
}
