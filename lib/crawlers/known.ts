/**
 * The search engine crawlers Tollgate can verify, each with the user agent it announces and the
 * host names its operator publishes for reverse DNS (Google, Bing, Apple, DuckDuckGo, Yandex and
 * Baidu each document "reverse-resolve the address, check the domain, forward-resolve the name").
 * A user agent only selects which check to run; it is never believed on its own.
 */

/** One verifiable crawler. */
export interface KnownCrawler {
  name: string;
  /** What its user agent contains. */
  agent: RegExp;
  /** Host name suffixes its addresses reverse-resolve to (the name ends with `.suffix`). */
  suffixes: string[];
}

/** The crawlers, by their published documentation. */
export const KNOWN_CRAWLERS: KnownCrawler[] = [
  {
    name: "googlebot",
    agent: /Googlebot|Google-InspectionTool|GoogleOther|Storebot-Google|AdsBot-Google/,
    suffixes: ["googlebot.com", "google.com", "googleusercontent.com"],
  },
  { name: "bingbot", agent: /bingbot|BingPreview|msnbot|adidxbot/i, suffixes: ["search.msn.com"] },
  { name: "applebot", agent: /Applebot/, suffixes: ["applebot.apple.com"] },
  { name: "duckduckbot", agent: /DuckDuckBot|DuckAssistBot/, suffixes: ["duckduckgo.com"] },
  {
    name: "yandexbot",
    agent: /YandexBot|YandexImages/,
    suffixes: ["yandex.ru", "yandex.net", "yandex.com"],
  },
  { name: "baiduspider", agent: /Baiduspider/, suffixes: ["baidu.com", "baidu.jp"] },
];

/** The crawler a user agent claims to be, or null for everyone else (no DNS is asked then). */
export function claimedCrawler(userAgent: string | null | undefined): KnownCrawler | null {
  if (!userAgent) return null;
  return KNOWN_CRAWLERS.find((c) => c.agent.test(userAgent)) ?? null;
}

/** True when `host` (from reverse DNS) lies under one of `suffixes`. */
export function hostMatches(host: string, suffixes: string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return suffixes.some((s) => h.endsWith(`.${s}`));
}
