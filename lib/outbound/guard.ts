/**
 * The one outbound-URL policy of admin-configured targets (webhook, health probe, origin
 * override), applied when a URL is saved and again before each send: the URL's own host by
 * lib/outbound/policy.ts, never this service itself, and before a send every address the name
 * resolves to (`Deno.resolveDns`). Targets set in the environment (`ORIGIN_URL`,
 * `UPDATE_FEED_URL`) are the operator's own and are not checked.
 *
 * What stays open: `fetch` resolves the name again itself, so a name whose DNS answer changes
 * between the check and that lookup (DNS rebinding) can still reach a refused address. Deno's
 * `fetch` cannot be told which address to connect to, so this window cannot be closed here; the
 * resolved answers are also reused for a few seconds.
 *
 * @example
 * const guard = outboundGuard(config);
 * const refusal = await guard.checkSend("https://hooks.example.com/x"); // null: go ahead
 */
import { BadRequestError } from "../errors.ts";
import { addressKey, canonicalHost, classifyHost } from "./policy.ts";

/** The settings the policy reads. */
export interface OutboundConfig {
  /** Loopback, private and unique-local targets allowed (a receiver on the same host or LAN). */
  ALLOW_PRIVATE_TARGETS: boolean;
  /** Our listener: any local address at this port is the service itself. */
  PORT: number;
  /** Our public URL: its host and port are the service itself. */
  PUBLIC_URL?: string;
}

/** Why a target is refused (pinned in openapi.yaml as `error.details.reason`). */
export type RefusalReason = "forbidden_address" | "private_address" | "self" | "unresolved";

/** A refused target: 400 `bad_request` when saved; a failed delivery when sent. */
export class OutboundRefused extends BadRequestError {
  constructor(readonly reason: RefusalReason, readonly detail: string) {
    super(`url: ${detail}`, { reason, fields: [{ path: "url", message: detail }] });
  }
}

/** Test hooks: a DNS server of our own and the clock of the answer cache. */
export interface GuardOptions {
  nameServer?: { ipAddr: string; port?: number };
  now?: () => number;
}

/** How long resolved answers are reused (a proxied request must not wait for DNS each time). */
export const DNS_CACHE_MS = 10_000;
const DNS_TIMEOUT_MS = 2_000;

interface Endpoint {
  host: string;
  port: number;
}

function effectivePort(u: URL): number {
  return u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
}

/** `host` as compared for "is this us": an address key, or the lower-case name. */
const hostKey = (host: string) => addressKey(host) ?? `name:${canonicalHost(host)}`;

function endpointOf(url: string | undefined): Endpoint | null {
  if (!url || !URL.canParse(url)) return null;
  const u = new URL(url);
  return { host: hostKey(u.hostname), port: effectivePort(u) };
}

/** This machine's interface addresses when the process may list them (else loopback only). */
function localAddresses(): Set<string> {
  const out = new Set<string>();
  try {
    const state = Deno.permissions.querySync({ name: "sys", kind: "networkInterfaces" }).state;
    if (state !== "granted") return out;
    for (const i of Deno.networkInterfaces()) {
      const k = addressKey(i.address);
      if (k) out.add(k);
    }
  } catch { /* not allowed or not available: loopback and PUBLIC_URL still count */ }
  return out;
}

/** Applies the policy for one configuration; the answer cache is shared by all its callers. */
export class OutboundGuard {
  #own: Endpoint[];
  #local: Set<string>;
  #dns = new Map<string, { at: number; addresses: string[] }>();
  #verdicts = new Map<string, { at: number; refusal: OutboundRefused | null }>();
  #now: () => number;

  constructor(readonly config: OutboundConfig, readonly options: GuardOptions = {}) {
    const pub = endpointOf(config.PUBLIC_URL);
    this.#own = pub ? [pub] : [];
    this.#local = localAddresses();
    this.#now = options.now ?? (() => Date.now());
  }

  /**
   * True when `host`:`port` reaches this service: the public URL or the request's own address
   * (ports 80 and 443 count as one: a TLS proxy in front usually maps one to the other), or our
   * listener's port on a loopback, unspecified or local address.
   */
  isSelf(host: string, port: number, also: (string | undefined)[] = []): boolean {
    const key = hostKey(host);
    const standard = (p: number) => p === 80 || p === 443;
    const own = [...this.#own, ...also.map(endpointOf).filter((e) => e !== null)];
    if (
      own.some((o) => o.host === key && (o.port === port || (standard(o.port) && standard(port))))
    ) {
      return true;
    }
    if (port !== this.config.PORT) return false;
    const c = classifyHost(host);
    return c.label === "loopback" || c.label === "unspecified" || this.#local.has(key);
  }

  /** The refusal for one host (a name or an address) at `port`, or null. */
  #refusal(host: string, port: number, also: (string | undefined)[], via?: string) {
    const shown = via ? `${via} resolves to ${host}, which` : host;
    if (this.isSelf(host, port, also)) {
      return new OutboundRefused("self", `${shown} is this service itself`);
    }
    const c = classifyHost(host);
    if (c.kind === "forbidden") {
      return new OutboundRefused("forbidden_address", `${shown} is a ${c.label} address`);
    }
    if (c.kind === "private" && !this.config.ALLOW_PRIVATE_TARGETS) {
      return new OutboundRefused(
        "private_address",
        `${shown} is a ${c.label} address (set ALLOW_PRIVATE_TARGETS=true to allow)`,
      );
    }
    return null;
  }

  /** What the URL itself shows (no DNS): the refusal, or null. `also`: more URLs that are us. */
  checkUrl(url: string, also: (string | undefined)[] = []): OutboundRefused | null {
    const u = new URL(url);
    return this.#refusal(u.hostname, effectivePort(u), also);
  }

  /** Every address `name` resolves to (A and AAAA), cached briefly; empty when none. */
  async resolve(name: string): Promise<string[]> {
    const now = this.#now();
    const hit = this.#dns.get(name);
    if (hit && now - hit.at < DNS_CACHE_MS && now >= hit.at) return hit.addresses;
    const opts = {
      nameServer: this.options.nameServer,
      signal: AbortSignal.timeout(DNS_TIMEOUT_MS),
    };
    const answers = await Promise.allSettled([
      Deno.resolveDns(name, "A", opts),
      Deno.resolveDns(name, "AAAA", opts),
    ]);
    const addresses = answers.flatMap((a) => a.status === "fulfilled" ? a.value : []);
    if (this.#dns.size >= 1000) this.#dns.clear();
    this.#dns.set(name, { at: now, addresses });
    return addresses;
  }

  /**
   * Before each send: the URL, then every address its name resolves to. A name that resolves
   * to nothing is refused unless private targets are allowed (then the system resolver, which
   * also reads the hosts file, may know it; forbidden addresses are still caught when resolved).
   */
  async checkSend(url: string): Promise<OutboundRefused | null> {
    // The origin proxy asks before every request: the verdict is reused as long as the answers.
    const now = this.#now();
    const hit = this.#verdicts.get(url);
    if (hit && now - hit.at < DNS_CACHE_MS && now >= hit.at) return hit.refusal;
    // Fails closed: whatever cannot be checked is not sent to.
    const refusal = await this.#checkSend(url).catch((e) =>
      new OutboundRefused(
        "unresolved",
        `${url.split("/")[2] ?? "the URL"} could not be checked: ${e}`,
      )
    );
    if (this.#verdicts.size >= 1000) this.#verdicts.clear();
    this.#verdicts.set(url, { at: now, refusal });
    return refusal;
  }

  async #checkSend(url: string): Promise<OutboundRefused | null> {
    const first = this.checkUrl(url);
    if (first) return first;
    const u = new URL(url);
    const host = canonicalHost(u.hostname);
    if (addressKey(host)) return null;
    const addresses = await this.resolve(host);
    if (addresses.length === 0) {
      return this.config.ALLOW_PRIVATE_TARGETS
        ? null
        : new OutboundRefused("unresolved", `${host} did not resolve to any address`);
    }
    for (const a of addresses) {
      const r = this.#refusal(a, effectivePort(u), [], host);
      if (r) return r;
    }
    return null;
  }

  /**
   * When an admin saves `url` (arriving at `requestUrl`): throws `OutboundRefused` for a refused
   * host or resolved address. A name that does not resolve yet is accepted: each send checks it.
   */
  async assertSavable(url: string, requestUrl?: string): Promise<void> {
    const first = this.checkUrl(url, [requestUrl]);
    if (first) throw first;
    const host = canonicalHost(new URL(url).hostname);
    if (addressKey(host)) return;
    const port = effectivePort(new URL(url));
    for (const a of await this.resolve(host)) {
      const r = this.#refusal(a, port, [requestUrl], host);
      if (r) throw r;
    }
  }
}

const guards = new WeakMap<OutboundConfig, OutboundGuard>();

/**
 * The guard of `config`: one per configuration object, so every sender shares its DNS answers.
 * Given `options` (tests: a fake DNS server), a new guard with them replaces the old one.
 */
export function outboundGuard(config: OutboundConfig, options?: GuardOptions): OutboundGuard {
  let g = guards.get(config);
  if (!g || options) guards.set(config, g = new OutboundGuard(config, options));
  return g;
}
