/**
 * Whether a request claiming to be a search engine crawler really comes from it: reverse DNS of
 * the client address must name a host under the crawler's published suffixes, and that host must
 * resolve forward to the same address. Answers are cached (a verified address for an hour, a
 * refused one for ten minutes, a lookup that failed or timed out for a minute), the lookups go
 * through an injectable resolver (`Deno.resolveDns` by default) and never take longer than the
 * timeout: a request whose check is still running is treated as a person (queued).
 */
import { parseClientIp } from "../access/ip.ts";
import type { Clock } from "../clock.ts";
import { claimedCrawler, hostMatches } from "./known.ts";

/** Resolves one DNS name for one record type: the records' text (names or addresses). */
export type DnsResolver = (query: string, type: "PTR" | "A" | "AAAA") => Promise<string[]>;

/** The default resolver: the system's, through Deno. */
export const systemResolver: DnsResolver = (query, type) =>
  Deno.resolveDns(query, type) as Promise<string[]>;

/** Options of the verifier. */
export interface CrawlerVerifierOptions {
  resolver?: DnsResolver;
  clock: Clock;
  /** Longest time all lookups of one address may take (default 1500 ms). */
  timeoutMs?: number;
}

/** How long an answer is kept. */
const TTL = { yes: 3_600_000, no: 600_000, failed: 60_000 };
/** Most addresses remembered (oldest dropped first). */
const MAX_CACHED = 10_000;

/** The reverse DNS name of an address (`4.3.2.1.in-addr.arpa`, nibbles for IPv6), or null. */
export function reverseName(ip: string): string | null {
  const a = parseClientIp(ip);
  if (!a) return null;
  if (a.v === 4) {
    return `${[24, 16, 8, 0].map((s) => (a.n >>> s) & 255).reverse().join(".")}.in-addr.arpa`;
  }
  const hex = a.n.toString(16).padStart(32, "0");
  return `${[...hex].reverse().join(".")}.ip6.arpa`;
}

/** True when two address texts name the same address (IPv6 spellings differ). */
function sameAddress(a: string, b: string): boolean {
  const x = parseClientIp(a), y = parseClientIp(b);
  return !!x && !!y && x.v === y.v && x.n === y.n;
}

/** Verifies crawlers by reverse-then-forward DNS, cached. */
export class CrawlerVerifier {
  #resolver: DnsResolver;
  #clock: Clock;
  #timeoutMs: number;
  #cache = new Map<string, { crawler: string | null; until: number }>();
  #pending = new Map<string, Promise<string | null>>();

  constructor(o: CrawlerVerifierOptions) {
    this.#resolver = o.resolver ?? systemResolver;
    this.#clock = o.clock;
    this.#timeoutMs = o.timeoutMs ?? 1500;
  }

  /**
   * The verified crawler's name for this address and user agent, or null: no crawler claimed (no
   * lookup at all), not verified, or not verified within the timeout.
   */
  async verify(ip: string | null | undefined, userAgent: string | null | undefined) {
    const claimed = claimedCrawler(userAgent);
    if (!claimed || !ip) return null;
    const key = `${claimed.name} ${ip}`;
    const now = this.#clock.now();
    const hit = this.#cache.get(key);
    if (hit && hit.until > now) return hit.crawler;
    let run = this.#pending.get(key);
    if (!run) {
      run = this.#lookup(ip, claimed.suffixes).then(
        (ok) => this.#keep(key, ok ? claimed.name : null, ok ? TTL.yes : TTL.no),
        () => this.#keep(key, null, TTL.failed),
      ).finally(() => this.#pending.delete(key));
      this.#pending.set(key, run);
    }
    // The lookup goes on after a timeout (its answer is cached for the next request).
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((r) => timer = setTimeout(() => r(null), this.#timeoutMs));
    try {
      return await Promise.race([run, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  #keep(key: string, crawler: string | null, ttl: number): string | null {
    if (this.#cache.size >= MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, { crawler, until: this.#clock.now() + ttl });
    return crawler;
  }

  async #lookup(ip: string, suffixes: string[]): Promise<boolean> {
    const rev = reverseName(ip);
    if (!rev) return false;
    const hosts = (await this.#resolver(rev, "PTR")).filter((h) => hostMatches(h, suffixes));
    const type = ip.includes(":") ? "AAAA" : "A";
    for (const host of hosts.slice(0, 4)) {
      const addrs = await this.#resolver(host.replace(/\.$/, ""), type).catch(() => []);
      if (addrs.some((a) => sameAddress(a, ip))) return true;
    }
    return false;
  }
}
