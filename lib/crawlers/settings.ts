/**
 * A queue's rules for search engines: what a verified crawler gets (`queue`: a place like anyone;
 * `pass`: the site, without a place and without counting against capacity; `503`: 503 with
 * Retry-After, as search engines ask sites under load to answer), and the HTTP status of the
 * waiting page itself (200, or 429/503 so that nothing caches or indexes it as the site's page).
 * Stored apart from the engine's settings record; read through a one-second cache.
 */
import { NotFoundError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import type { Clock } from "../clock.ts";
import { withDefaults } from "../queue/types.ts";

/** What verified crawlers get. */
export const CRAWLER_MODES = ["queue", "pass", "503"] as const;
/** A crawler mode. */
export type CrawlerMode = (typeof CRAWLER_MODES)[number];
/** The statuses the waiting page may answer with. */
export const QUEUE_STATUS_CODES = [200, 429, 503] as const;

/** A queue's search engine rules. */
export interface CrawlerSettings {
  crawlers: CrawlerMode;
  queueStatusCode: (typeof QUEUE_STATUS_CODES)[number];
}

/** Today's behaviour: crawlers queue like people, the page answers 200. */
export const DEFAULT_CRAWLER_SETTINGS: CrawlerSettings = {
  crawlers: "queue",
  queueStatusCode: 200,
};

/** Seconds a crawler told 503 waits before it comes back. */
export const CRAWLER_RETRY_AFTER = 3600;

/** Reads a queue's rules (defaults when none are stored). */
export async function readCrawlerSettings(kv: Deno.Kv, q: string): Promise<CrawlerSettings> {
  const e = await kv.get<Partial<CrawlerSettings>>(keys.crawlerSettings(q));
  return withDefaults(DEFAULT_CRAWLER_SETTINGS, e.value);
}

/** Changes some of a queue's rules; 404 `unknown_queue` for a queue that does not exist. */
export function writeCrawlerSettings(
  kv: Deno.Kv,
  q: string,
  patch: Partial<CrawlerSettings>,
): Promise<CrawlerSettings> {
  return retryCommit(async () => {
    const [queue, cur] = await kv.getMany<[unknown, Partial<CrawlerSettings>]>([
      keys.queue(q),
      keys.crawlerSettings(q),
    ]);
    if (!queue.value) throw new NotFoundError("unknown_queue", `unknown queue "${q}"`);
    const next = { ...withDefaults(DEFAULT_CRAWLER_SETTINGS, cur.value) };
    if (patch.crawlers !== undefined) next.crawlers = patch.crawlers;
    if (patch.queueStatusCode !== undefined) next.queueStatusCode = patch.queueStatusCode;
    const ok = (await kv.atomic().check(queue, cur).set(keys.crawlerSettings(q), next).commit()).ok;
    return ok ? next : null;
  }, "crawler settings");
}

/** The rules of each queue, read at most once a second per queue (every page load reads them). */
export class CrawlerSettingsCache {
  #held = new Map<string, { at: number; value: Promise<CrawlerSettings> }>();
  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** A queue's rules, at most a second old. */
  get(q: string): Promise<CrawlerSettings> {
    const now = this.clock.now();
    const hit = this.#held.get(q);
    if (hit && now - hit.at < 1000 && now >= hit.at) return hit.value;
    const value = readCrawlerSettings(this.kv, q).catch(() => DEFAULT_CRAWLER_SETTINGS);
    if (this.#held.size > 1000) this.#held.clear();
    this.#held.set(q, { at: now, value });
    return value;
  }

  /** Forgets a queue's rules after a write on this instance. */
  invalidate(q: string): void {
    this.#held.delete(q);
  }
}
