/**
 * The origin proxy setting: `ORIGIN_URL`, overridden by the admin record at `keys.origin()`.
 * The effective value is cached per instance for about a second, so proxying costs no KV read
 * per request; a write through this instance drops the cache at once, other instances see it
 * within the second.
 */
import type { Clock } from "../clock.ts";
import { BadRequestError } from "../errors.ts";
import { keys } from "../store/keys.ts";

/** How long an instance trusts its copy of the override. */
export const ORIGIN_CACHE_MS = 1000;

/** The stored admin override. `url: null` with `enabled` means "on, with ORIGIN_URL". */
export interface OriginOverride {
  enabled: boolean;
  url: string | null;
  /** Unix ms of the write. */
  updatedAt: number;
}

/** Where the origin in effect comes from. */
export type OriginSource = "env" | "admin" | "none";

/** The origin in effect: whether the proxy runs, and where to. */
export interface EffectiveOrigin {
  enabled: boolean;
  /** The origin's base URL, null when the proxy is off. */
  url: string | null;
  /** `admin`: the override decides (its own URL, or off); `env`: ORIGIN_URL; `none`: neither. */
  source: OriginSource;
  /** `url` without its trailing slash: the request path is appended to it. */
  base: string | null;
}

/** An absolute http(s) URL without credentials, query or fragment (an origin's base URL). */
export function isOriginUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password &&
      !u.search && !u.hash && !v.includes("?") && !v.includes("#");
  } catch {
    return false;
  }
}

/** `url` as shown to admins: credentials (allowed in ORIGIN_URL by its parser) are removed. */
export function redactUrl(url: string): string {
  const u = new URL(url);
  u.username = "";
  u.password = "";
  return u.href;
}

function on(url: string, source: OriginSource): EffectiveOrigin {
  // Credentials (ORIGIN_URL's parser allows them) are never sent: fetch refuses such URLs, and
  // its error message would carry them into the log.
  const href = redactUrl(url);
  return { enabled: true, url: href, source, base: href.replace(/\/+$/, "") };
}

const OFF = (source: OriginSource): EffectiveOrigin => ({
  enabled: false,
  url: null,
  source,
  base: null,
});

/** The origin in effect for `envUrl` (ORIGIN_URL) and a stored override (or null). */
export function effectiveOrigin(
  envUrl: string | undefined,
  override: OriginOverride | null,
): EffectiveOrigin {
  if (override && !override.enabled) return OFF("admin");
  if (override?.url) return on(override.url, "admin");
  return envUrl ? on(envUrl, "env") : OFF("none");
}

/** A stored record, or null when there is none or it is not one we can read. */
function asOverride(v: unknown): OriginOverride | null {
  if (!v || typeof v !== "object") return null;
  const r = v as Partial<OriginOverride>;
  if (typeof r.enabled !== "boolean") return null;
  const url = typeof r.url === "string" && isOriginUrl(r.url) ? r.url : null;
  return { enabled: r.enabled, url, updatedAt: typeof r.updatedAt === "number" ? r.updatedAt : 0 };
}

/** What the admin API shows. */
export interface OriginView {
  enabled: boolean;
  url: string | null;
  source: OriginSource;
  /** ORIGIN_URL (without credentials), what clearing the override goes back to. */
  envUrl: string | null;
  override: { enabled: boolean; url: string | null; updatedAt: number } | null;
}

/** An override write: `url` omitted or null means ORIGIN_URL. */
export interface OriginInput {
  enabled: boolean;
  url?: string | null;
}

/** Reads, caches and writes the origin setting of one instance. */
export class OriginSettings {
  #cached: EffectiveOrigin | null = null;
  #at = 0;
  #loading: Promise<EffectiveOrigin> | null = null;
  /** Bumped by every local write, so a read begun before it cannot refill the cache. */
  #generation = 0;

  constructor(
    private readonly kv: Deno.Kv,
    private readonly clock: Clock,
    private readonly envUrl: string | undefined,
  ) {}

  /** The cached origin while it is fresh, else null (the hot path's synchronous check). */
  fresh(): EffectiveOrigin | null {
    return this.#cached && this.clock.now() - this.#at < ORIGIN_CACHE_MS ? this.#cached : null;
  }

  /** The last origin known however old (what an unreachable store leaves us), or null. */
  lastKnown(): EffectiveOrigin | null {
    return this.#cached;
  }

  /** The origin in effect: from the cache, or one KV read shared by concurrent callers. */
  effective(): Promise<EffectiveOrigin> {
    const hit = this.fresh();
    if (hit) return Promise.resolve(hit);
    return this.#loading ??= this.#load();
  }

  async #load(): Promise<EffectiveOrigin> {
    const gen = this.#generation;
    try {
      const out = effectiveOrigin(this.envUrl, await this.#read());
      if (gen === this.#generation) {
        this.#cached = out;
        this.#at = this.clock.now();
      }
      return out;
    } catch (e) {
      // A KV hiccup must not switch the proxy off or on: keep serving the last known value.
      if (this.#cached) return this.#cached;
      throw e;
    } finally {
      if (gen === this.#generation) this.#loading = null;
    }
  }

  async #read(): Promise<OriginOverride | null> {
    return asOverride((await this.kv.get(keys.origin())).value);
  }

  /** The admin view, read from the store (not the cache). */
  async view(): Promise<OriginView> {
    const override = await this.#read();
    const eff = effectiveOrigin(this.envUrl, override);
    return {
      enabled: eff.enabled,
      url: eff.url,
      source: eff.source,
      envUrl: this.envUrl ? redactUrl(this.envUrl) : null,
      override,
    };
  }

  /**
   * Stores an override; 400 `bad_request` (nothing stored) when `checkTarget` (the outbound-URL
   * policy, lib/outbound/guard.ts) refuses the URL or for "on" with no URL and no ORIGIN_URL.
   */
  async save(
    input: OriginInput,
    checkTarget: (url: string) => Promise<void> = () => Promise.resolve(),
  ): Promise<OriginView> {
    const url = input.url ?? null;
    if (url !== null) await checkTarget(url);
    if (input.enabled && url === null && !this.envUrl) {
      throw new BadRequestError("url: required to turn the proxy on (ORIGIN_URL is not set)", {
        fields: [{ path: "url", message: "required when enabled and ORIGIN_URL is not set" }],
      });
    }
    const record: OriginOverride = { enabled: input.enabled, url, updatedAt: this.clock.now() };
    await this.kv.set(keys.origin(), record);
    this.#drop();
    return await this.view();
  }

  /** Removes the override: back to ORIGIN_URL (or no proxy without it). */
  async clear(): Promise<OriginView> {
    await this.kv.delete(keys.origin());
    this.#drop();
    return await this.view();
  }

  /** Forgets the cached value (after a write elsewhere on this instance, e.g. a factory reset). */
  invalidate(): void {
    this.#drop();
  }

  #drop(): void {
    this.#generation++;
    this.#cached = null;
    this.#loading = null;
  }
}
