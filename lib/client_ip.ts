/**
 * The client's address and the forwarded headers we believe, under one trusted-proxy rule.
 *
 * Without `CLIENT_IP_HEADER` the socket address is the client. With it, the header names the
 * client; with `TRUSTED_PROXIES` set as well, only a peer inside those ranges is believed (any
 * other peer's headers are ignored and its socket address is the client), and in a list
 * (`X-Forwarded-For` style) the right-most entry outside the trusted ranges is the client, so
 * entries a client wrote on the left cannot move it. The same rule decides whether the country
 * header and `X-Forwarded-Proto` are believed.
 */
import { IpAllowlist, ipText, parseForwardedIp, parseRange } from "./access/ip.ts";
import type { Config } from "./config.ts";
import { log } from "./log.ts";

/** The part of the configuration the rule reads. */
export type ClientIpConfig = Pick<Config, "CLIENT_IP_HEADER" | "TRUSTED_PROXIES">;

const parsed = new Map<string, IpAllowlist>();

/** The trusted ranges of a `TRUSTED_PROXIES` value (parsed once per value). */
export function trustedProxies(text: string | undefined): IpAllowlist | null {
  if (!text) return null;
  let list = parsed.get(text);
  if (!list) {
    const ranges = [];
    for (const entry of text.split(",").map((e) => e.trim()).filter(Boolean)) {
      const r = parseRange(entry);
      if (typeof r !== "string") ranges.push(r);
    }
    list = new IpAllowlist(ranges);
    parsed.set(text, list);
  }
  return list;
}

/** The problem with a `TRUSTED_PROXIES` value (for config validation), or null. */
export function trustedProxiesProblem(text: string): string | null {
  for (const entry of text.split(",").map((e) => e.trim()).filter(Boolean)) {
    const r = parseRange(entry);
    if (typeof r === "string") return r;
  }
  return null;
}

/**
 * An address in one spelling (`::ffff:1.2.3.4`, `1.2.3.4:5678` and ` 1.2.3.4 ` are all
 * `1.2.3.4`), so one client is one client whatever its proxy wrote; null when `raw` names none.
 */
export function canonicalIp(raw: string): string | null {
  const a = parseForwardedIp(raw);
  return a ? ipText(a) : null;
}

/** The last peer address spelled out, and its one spelling: most requests come from few peers. */
let lastPeer = ["", ""];

/** The socket address of a request's connection info ("unknown" without one). */
export function peerAddress(info: Deno.ServeHandlerInfo | undefined | null): string {
  const addr = info?.remoteAddr as Deno.NetAddr | undefined;
  if (!addr?.hostname) return "unknown";
  // A join asks twice (the client's address, then whether the country header is believed).
  if (addr.hostname !== lastPeer[0]) {
    lastPeer = [addr.hostname, canonicalIp(addr.hostname) ?? addr.hostname];
  }
  return lastPeer[1];
}

/** True when the peer's forwarded headers are to be believed under the trusted-proxy rule. */
export function peerTrusted(peer: string, config: Pick<Config, "TRUSTED_PROXIES">): boolean {
  const trusted = trustedProxies(config.TRUSTED_PROXIES);
  return trusted === null || trusted.matches(peer);
}

/**
 * The warning a start logs when `CLIENT_IP_HEADER` is believed from every peer (no
 * `TRUSTED_PROXIES`): anyone who reaches the port directly then chooses their own address for the
 * per-client limits, the sign-in limit and the IP allowlist (which lets a listed address in at
 * once). Null when the configuration does not have that hole.
 */
export function headerTrustWarning(config: ClientIpConfig): Record<string, string> | null {
  if (!config.CLIENT_IP_HEADER || config.TRUSTED_PROXIES) return null;
  return {
    header: config.CLIENT_IP_HEADER,
    hint: `${config.CLIENT_IP_HEADER} is believed from every peer: anyone who reaches this port ` +
      "directly can name any address (per-client limits, sign-in limit, IP allowlist). Set " +
      "TRUSTED_PROXIES to your proxy's addresses, or keep the port reachable by the proxy only",
  };
}

let warnedForwardedFor = false;

/**
 * The visitor's IP: from `CLIENT_IP_HEADER` when configured and the peer is trusted, else the
 * socket address. The header's entry is parsed as an address and comes back in one spelling; an
 * entry that is no address (`unknown`, junk) is the peer's own, never a new client. `X-Forwarded-For` is never trusted implicitly: a request that carries it while
 * `CLIENT_IP_HEADER` is unset is logged once as a warning (every client behind that proxy would
 * share the proxy's address).
 */
export function clientIp(
  headers: Headers,
  info: Deno.ServeHandlerInfo | undefined | null,
  config: ClientIpConfig,
): string {
  const peer = peerAddress(info);
  if (!config.CLIENT_IP_HEADER) {
    if (!warnedForwardedFor && headers.has("x-forwarded-for")) {
      warnedForwardedFor = true;
      log("warn", "x-forwarded-for ignored", {
        hint:
          "requests carry X-Forwarded-For but CLIENT_IP_HEADER is unset: every client behind the proxy shares its address (set CLIENT_IP_HEADER and TRUSTED_PROXIES)",
      });
    }
    return peer;
  }
  const trusted = trustedProxies(config.TRUSTED_PROXIES);
  if (trusted !== null && !trusted.matches(peer)) return peer;
  const raw = headers.get(config.CLIENT_IP_HEADER);
  if (!raw) return trusted === null ? "unknown" : peer;
  const entries = raw.split(",").map((e) => e.trim()).filter(Boolean);
  // Right to left: the entries our own proxies appended are skipped; the first other is the client.
  for (let i = entries.length - 1; i >= 0; i--) {
    const ip = canonicalIp(entries[i]);
    if (ip === null) return peer;
    if (trusted !== null && i > 0 && trusted.matches(ip)) continue;
    return ip;
  }
  return trusted === null ? "unknown" : peer;
}

/** A forwarded header's value when the peer is trusted to set it (else null). */
export function trustedHeader(
  headers: Headers,
  info: Deno.ServeHandlerInfo | undefined | null,
  name: string,
  config: Pick<Config, "TRUSTED_PROXIES">,
): string | null {
  return peerTrusted(peerAddress(info), config) ? headers.get(name) : null;
}

/**
 * The key per-client limits count under: an IPv4 address, or an IPv6 address's /64 (one
 * subscriber's whole prefix), so a client cannot take a new key per address it owns.
 */
export function clientKey(ip: string): string {
  const a = parseForwardedIp(ip);
  if (!a) return ip.trim().slice(0, 64);
  if (a.v === 4) return ipText(a);
  return "v6:" + (a.n >> 64n).toString(16);
}
