/**
 * The update check: compares the running version with the latest published release
 * from `UPDATE_FEED_URL` (GitHub's "latest release" JSON). It only reports; it never deploys.
 * Answers are cached in KV for about 6 hours and a failing feed never becomes a 500.
 *
 * @example
 * const info = await checkUpdates({ kv, clock, fetch, config }, { refresh: false });
 * if (info.updateAvailable) console.log(`release ${info.latest}: ${info.url}`);
 */
import { z } from "zod";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { keys } from "./store/keys.ts";
import { VERSION } from "./version.ts";

/** How long a successful answer is reused. */
export const UPDATE_CACHE_MS = 6 * 3600_000;
/** How long a failed lookup is not repeated (unless forced): keeps a broken feed from being hammered. */
export const UPDATE_FAILURE_BACKOFF_MS = 10 * 60_000;
const FEED_TIMEOUT_MS = 5_000;

/** What the update check answers. */
export interface UpdateInfo {
  running: string;
  /** Latest published release (without a leading "v"), or null when never learned. */
  latest: string | null;
  updateAvailable: boolean;
  /** Release page of `latest`. */
  url?: string;
  publishedAt?: string;
  /** When the feed was last read successfully (unix ms), or when this answer was made. */
  checkedAt: number;
  /** Why the latest lookup failed (the rest may come from the cache). */
  error?: string;
}

/** The cached record. */
interface UpdateCache {
  latest?: string;
  url?: string;
  publishedAt?: string;
  checkedAt?: number;
  error?: string;
  failedAt?: number;
}

/** What the check needs. */
export interface UpdateDeps {
  kv: Deno.Kv;
  clock: Clock;
  fetch: typeof fetch;
  config: Pick<Config, "UPDATE_FEED_URL">;
}

/** `url` when it is an absolute `https:` URL, else undefined (the only links the feed may give). */
export function httpsLink(url: string | undefined): string | undefined {
  if (!url || !URL.canParse(url)) return undefined;
  return new URL(url).protocol === "https:" ? url : undefined;
}

const Feed = z.object({
  tag_name: z.string().min(1).max(100),
  // A link the admin puts in an <a href>: anything but https (javascript:, data:) is dropped.
  html_url: z.string().optional().transform(httpsLink),
  published_at: z.string().max(64).nullable().optional(),
});

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** Parses "v1.2.3", "1.2.3-rc.1" etc.; null when it is not a semantic version. */
export function parseSemver(tag: string): { core: number[]; pre: string[] } | null {
  const m = SEMVER.exec(tag.trim().replace(/^v/i, ""));
  if (!m) return null;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split(".") : [] };
}

/** Semver precedence: negative when a < b, 0 when equal, positive when a > b. Build metadata is ignored. */
export function compareSemver(a: string, b: string): number {
  const x = parseSemver(a), y = parseSemver(b);
  if (!x || !y) throw new Error(`not a semantic version: ${!x ? a : b}`);
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i] - y.core[i];
  // A pre-release ranks below its release (1.0.0-rc.1 < 1.0.0).
  if (!x.pre.length || !y.pre.length) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i], q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    const pn = /^\d+$/.test(p), qn = /^\d+$/.test(q);
    if (pn && qn && Number(p) !== Number(q)) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    if (!pn && p !== q) return p < q ? -1 : 1;
  }
  return 0;
}

function answer(c: UpdateCache, now: number, error?: string): UpdateInfo {
  const out: UpdateInfo = {
    running: VERSION,
    latest: c.latest ?? null,
    updateAvailable: c.latest ? compareSemver(c.latest, VERSION) > 0 : false,
    checkedAt: c.checkedAt ?? now,
  };
  // The cache may hold a link saved before only https was kept.
  const url = httpsLink(c.url);
  if (c.latest && url) out.url = url;
  if (c.latest && c.publishedAt) out.publishedAt = c.publishedAt;
  if (error) out.error = error;
  return out;
}

/** Reads the feed once; throws an Error whose message says what went wrong (never a secret). */
async function readFeed(deps: UpdateDeps): Promise<UpdateCache> {
  let res: Response;
  try {
    res = await deps.fetch(deps.config.UPDATE_FEED_URL, {
      headers: { accept: "application/vnd.github+json", "user-agent": `tollgate/${VERSION}` },
      signal: AbortSignal.timeout(FEED_TIMEOUT_MS),
    });
  } catch (e) {
    const name = e instanceof Error ? e.name : "";
    throw new Error(
      name === "TimeoutError" ? "release feed did not answer in time" : "release feed unreachable",
    );
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`release feed answered ${res.status}`);
  }
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    throw new Error("release feed answered something that is not JSON");
  }
  const feed = Feed.safeParse(json);
  if (!feed.success) throw new Error("release feed answer has no usable tag_name");
  const latest = feed.data.tag_name.trim().replace(/^v/i, "");
  if (!parseSemver(latest)) throw new Error(`release tag ${feed.data.tag_name} is not semver`);
  return {
    latest,
    url: feed.data.html_url,
    publishedAt: feed.data.published_at ?? undefined,
  };
}

/** Latest release versus running version; cached ~6 h, `refresh` forces a lookup. Never throws for feed trouble. */
export async function checkUpdates(
  deps: UpdateDeps,
  opts: { refresh?: boolean } = {},
): Promise<UpdateInfo> {
  const now = deps.clock.now();
  const cache = (await deps.kv.get<UpdateCache>(keys.updatesCache())).value ?? {};
  if (!opts.refresh) {
    const fresh = cache.checkedAt !== undefined && now - cache.checkedAt < UPDATE_CACHE_MS;
    const failing = cache.failedAt !== undefined &&
      now - cache.failedAt < UPDATE_FAILURE_BACKOFF_MS;
    if (fresh && !failing) return answer(cache, now);
    if (failing) return answer(cache, now, cache.error);
  }
  try {
    const got = await readFeed(deps);
    const next: UpdateCache = { ...got, checkedAt: now };
    await deps.kv.set(keys.updatesCache(), next);
    return answer(next, now);
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    // Keep what was last learned; only note the failure.
    const next: UpdateCache = { ...cache, error, failedAt: now };
    await deps.kv.set(keys.updatesCache(), next);
    return answer(next, now, error);
  }
}
