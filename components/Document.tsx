import type { ComponentChildren } from "preact";
import { CATALOGUES } from "../lib/i18n/catalogues.ts";
import { dirOf, type Lang, LANG_NAMES } from "../lib/i18n/langs.ts";
import { t } from "../lib/i18n/format.ts";
import type { Catalogue } from "../lib/i18n/messages/en.ts";
import { LangMenu } from "./LangMenu.tsx";

/** Props of the page shell. */
export interface DocumentProps {
  title: string;
  /** Hashed stylesheet URL (absent when the assets are not built). */
  styleHref?: string;
  /** Inline theme CSS; its hash goes into the page's CSP. */
  themeCss?: string;
  /** Hashed island bundle URL. */
  scriptSrc?: string;
  /** Island props as JSON, already escaped for a <script> data block. */
  propsJson?: string;
  /**
   * No-JS refresh: seconds and URL; `always` also refreshes with JS on (no page script to do
   * it); `byScript` has the page script reload instead when JS is on (a meta refresh is not
   * allowed to surprise a screen reader user, WCAG 2.2.1 / 3.2.5).
   */
  refresh?: { seconds: number; url: string; always?: boolean; byScript?: boolean };
  /** Compact layout for an iframe: no header or footer. */
  embed?: boolean;
  /** The explanation page itself: its footer does not link to it. */
  about?: boolean;
  /** Tollgate's path prefix (`BASE_PATH`) for the page's own links. */
  base?: string;
  /** The page's language (English when absent) and its messages. */
  lang?: Lang;
  m?: Catalogue;
  /** This page's path and query as the browser asked for it: the language menu links to it. */
  url?: string;
  children: ComponentChildren;
}

/**
 * What every page's head starts with (visitor pages and the admin shell): charset, phone-ready
 * viewport, light/dark, no indexing, no favicon request, the title and the stylesheet.
 */
export function HeadBasics(p: { title: string; styleHref?: string }) {
  return (
    <>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      <meta name="robots" content="noindex" />
      <link rel="icon" href="data:," />
      <title>{p.title}</title>
      {p.styleHref && <link rel="stylesheet" href={p.styleHref} />}
    </>
  );
}

/** The HTML shell of every visitor page: head, theme, optional island, light/dark, phone-ready. */
export function Document(p: DocumentProps) {
  const lang = p.lang ?? "en";
  const m = p.m ?? CATALOGUES[lang];
  const refresh = p.refresh && (
    <meta http-equiv="refresh" content={`${p.refresh.seconds}; url=${p.refresh.url}`} />
  );
  return (
    <html lang={lang} dir={dirOf(lang)}>
      <head>
        <HeadBasics title={p.title} styleHref={p.styleHref} />
        {p.themeCss && <style dangerouslySetInnerHTML={{ __html: p.themeCss }} />}
        {
          // With JS the island follows the timeslots itself; the refresh is for no-JS visitors.
          refresh && (p.refresh!.always ? refresh : <noscript>{refresh}</noscript>)
        }
        {p.scriptSrc && <script type="module" src={p.scriptSrc} />}
      </head>
      <body
        class={p.embed ? "embed" : undefined}
        data-retry-in={p.refresh?.byScript ? String(p.refresh.seconds) : undefined}
        data-retry-url={p.refresh?.byScript ? p.refresh.url : undefined}
      >
        {p.url && !p.embed && (
          <LangMenu
            lang={lang}
            label={m["doc.language"]}
            summary={t(m, "doc.languageNow", { name: LANG_NAMES[lang] })}
            url={p.url}
          />
        )}
        <main id="main">{p.children}</main>
        {!p.embed && (
          <footer>
            {m["doc.footer"]}
            {!p.about && (
              <>
                {" · "}
                <a href={`${p.base ?? ""}/wait/how-it-works`}>{m["doc.how"]}</a>
              </>
            )}
          </footer>
        )}
        {p.propsJson && (
          <script
            type="application/json"
            id="tg-props"
            dangerouslySetInnerHTML={{ __html: p.propsJson }}
          />
        )}
      </body>
    </html>
  );
}
