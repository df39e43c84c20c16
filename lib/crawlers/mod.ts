/**
 * The crawler decision before queueing: for a request that is not admitted, what a verified
 * search engine crawler gets under the queue's rules. A request that does not claim to be a
 * crawler is never looked up, so a person's join never waits on DNS.
 */
import type { Clock } from "../clock.ts";
import { CrawlerVerifier, type DnsResolver } from "./verify.ts";
import { claimedCrawler } from "./known.ts";
import { type CrawlerMode, CrawlerSettingsCache } from "./settings.ts";

export { type DnsResolver } from "./verify.ts";
export { claimedCrawler } from "./known.ts";

/** The crawler services: the verifier and the per-queue rules. */
export interface Crawlers {
  verifier: CrawlerVerifier;
  settings: CrawlerSettingsCache;
  /** `pass` or `503` for a verified crawler under such a rule; `queue` for everyone else. */
  decide(queue: string, ip: string | null, userAgent: string | null): Promise<CrawlerMode>;
}

/** Builds the crawler services over a store, clock and resolver (`Deno.resolveDns` by default). */
export function createCrawlers(
  deps: { kv: Deno.Kv; clock: Clock; resolveDns?: DnsResolver },
): Crawlers {
  const c: Crawlers = {
    verifier: new CrawlerVerifier({ clock: deps.clock, resolver: deps.resolveDns }),
    settings: new CrawlerSettingsCache(deps.kv, deps.clock),
    async decide(queue, ip, userAgent) {
      // People (no crawler named in the user agent) cost nothing here: no read, no lookup.
      if (!claimedCrawler(userAgent)) return "queue";
      const rules = await c.settings.get(queue);
      if (rules.crawlers === "queue") return "queue";
      return (await c.verifier.verify(ip, userAgent)) ? rules.crawlers : "queue";
    },
  };
  return c;
}
