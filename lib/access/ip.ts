/**
 * IP addresses and CIDR ranges for the allowlist. IPv4 is a 32-bit number, IPv6 a 128-bit
 * bigint; an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, what a dual-stack socket reports for an
 * IPv4 client) is treated as the IPv4 address it carries, on both sides of a match.
 *
 * @example
 * const { list } = parseAllowlist("10.0.0.0/8\n2001:db8::/32 # office");
 * list.matches("::ffff:10.1.2.3"); // true
 */
import { type LineError, listLines } from "./lines.ts";

/** A parsed address: family and value. */
export type IpAddress = { v: 4; n: number } | { v: 6; n: bigint };

const V4_PART = /^(0|[1-9]\d{0,2})$/;
const V6_GROUP = /^[0-9A-Fa-f]{1,4}$/;
const MAPPED_PREFIX = 0xffffn;
const ALL_128 = (1n << 128n) - 1n;

/** Parses a dotted-quad IPv4 address (no leading zeros, which some parsers read as octal). */
export function parseIPv4(s: string): number | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!V4_PART.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

/** Parses an IPv6 address (`::` compression and a dotted IPv4 tail allowed; no zone). */
export function parseIPv6(s: string): bigint | null {
  if (s.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(s)) return null;
  let text = s;
  if (s.includes(".")) {
    const at = s.lastIndexOf(":");
    const v4 = parseIPv4(s.slice(at + 1));
    if (at < 0 || v4 === null) return null;
    text = `${s.slice(0, at + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const dbl = text.indexOf("::");
  if (dbl !== text.lastIndexOf("::")) return null;
  let groups: string[];
  if (dbl >= 0) {
    const left = text.slice(0, dbl), right = text.slice(dbl + 2);
    const l = left ? left.split(":") : [], r = right ? right.split(":") : [];
    if (l.length + r.length > 7) return null;
    groups = [...l, ...Array(8 - l.length - r.length).fill("0"), ...r];
  } else {
    groups = text.split(":");
    if (groups.length !== 8) return null;
  }
  let n = 0n;
  for (const g of groups) {
    if (!V6_GROUP.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return n;
}

/** An IPv6 value that is IPv4-mapped (`::ffff:0:0/96`) as its IPv4 number, else null. */
function mappedV4(n: bigint): number | null {
  return n >> 32n === MAPPED_PREFIX ? Number(n & 0xffffffffn) : null;
}

/**
 * The address a client IP string names, or null. Tolerates what headers and sockets carry:
 * `[brackets]` around IPv6 and a `%zone` suffix. Mapped IPv6 comes back as IPv4.
 */
export function parseClientIp(raw: string): IpAddress | null {
  let s = raw.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  const v4 = parseIPv4(s);
  if (v4 !== null) return { v: 4, n: v4 };
  const v6 = parseIPv6(s);
  if (v6 === null) return null;
  const m = mappedV4(v6);
  return m === null ? { v: 6, n: v6 } : { v: 4, n: m };
}

/**
 * The address a forwarded header's entry or a socket names, tolerating what proxies write
 * beside it: surrounding white space, a port (`1.2.3.4:5678`, `[2001:db8::1]:5678`), brackets,
 * a zone; mapped IPv6 comes back as IPv4. Null for anything else (`unknown`, `_hidden`, junk).
 *
 * @example
 * ipText(parseForwardedIp(" [::ffff:1.2.3.4]:80 ")!); // "1.2.3.4"
 */
export function parseForwardedIp(raw: string): IpAddress | null {
  const s = raw.trim();
  const port = /^(\[[^\]]*\]|[0-9.]+):(\d{1,5})$/.exec(s);
  if (port && Number(port[2]) > 65535) return null;
  const host = port ? port[1] : s;
  // A port is taken off only where it cannot be part of the address: after `]` or dotted IPv4.
  if (port && !host.startsWith("[")) {
    const n = parseIPv4(host);
    return n === null ? null : { v: 4, n };
  }
  return parseClientIp(host);
}

/** One spelling of an address: dotted IPv4, or IPv6 as eight lower-case hex groups compressed. */
export function ipText(a: IpAddress): string {
  if (a.v === 4) return [24, 16, 8, 0].map((b) => (a.n >>> b) & 255).join(".");
  const groups = Array.from(
    { length: 8 },
    (_, i) => Number((a.n >> BigInt(112 - 16 * i)) & 0xffffn),
  );
  // The longest run of two or more zero groups becomes `::` (RFC 5952).
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j > i ? j : i + 1;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}

interface V4Range {
  net: number;
  mask: number;
}
interface V6Range {
  net: bigint;
  mask: bigint;
}

const v4Mask = (bits: number) => bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
const v6Mask = (bits: number) => bits === 0 ? 0n : ALL_128 ^ ((1n << BigInt(128 - bits)) - 1n);

/** One allowlist entry: an address (a /32 or /128) or a CIDR range. */
export type IpRange = { v: 4; range: V4Range } | { v: 6; range: V6Range };

/**
 * Parses one entry: `1.2.3.4`, `10.0.0.0/8`, `2001:db8::1`, `2001:db8::/32`. Host bits under
 * the prefix are ignored (`10.0.0.5/24` is `10.0.0.0/24`). A mapped IPv6 entry with a prefix of
 * at least 96 becomes the IPv4 range it covers. Returns the problem as a string when invalid.
 */
export function parseRange(entry: string): IpRange | string {
  const slash = entry.indexOf("/");
  const addr = slash >= 0 ? entry.slice(0, slash) : entry;
  const bitsText = slash >= 0 ? entry.slice(slash + 1) : null;
  if (bitsText !== null && !/^(0|[1-9]\d{0,2})$/.test(bitsText)) {
    return `"${entry}": the prefix length after "/" must be a whole number`;
  }
  const v4 = parseIPv4(addr);
  if (v4 !== null) {
    const bits = bitsText === null ? 32 : Number(bitsText);
    if (bits > 32) return `"${entry}": an IPv4 prefix is 0 to 32`;
    const mask = v4Mask(bits);
    return { v: 4, range: { net: (v4 & mask) >>> 0, mask } };
  }
  const v6 = parseIPv6(addr);
  if (v6 === null) return `"${entry}" is not an IPv4 or IPv6 address or CIDR range`;
  const bits = bitsText === null ? 128 : Number(bitsText);
  if (bits > 128) return `"${entry}": an IPv6 prefix is 0 to 128`;
  const m = mappedV4(v6);
  if (m !== null && bits >= 96) {
    const mask = v4Mask(bits - 96);
    return { v: 4, range: { net: (m & mask) >>> 0, mask } };
  }
  const mask = v6Mask(bits);
  return { v: 6, range: { net: v6 & mask, mask } };
}

/** A parsed allowlist; `matches` is what the join path asks. */
export class IpAllowlist {
  #v4: V4Range[] = [];
  #v6: V6Range[] = [];

  constructor(ranges: IpRange[] = []) {
    for (const r of ranges) r.v === 4 ? this.#v4.push(r.range) : this.#v6.push(r.range);
  }

  /** Number of entries. */
  get size(): number {
    return this.#v4.length + this.#v6.length;
  }

  /** True when `ip` (a client IP string) is inside any entry; an unparsable IP never matches. */
  matches(ip: string): boolean {
    if (this.size === 0) return false;
    const a = parseClientIp(ip);
    if (!a) return false;
    if (a.v === 4) return this.#v4.some((r) => ((a.n & r.mask) >>> 0) === r.net);
    return this.#v6.some((r) => (a.n & r.mask) === r.net);
  }
}

/** Most entries an allowlist may hold (each join of a bypass candidate scans them). */
export const MAX_ALLOWLIST_ENTRIES = 2000;

/** Parses allowlist text (one entry per line, `#` comments): the list, or every bad line. */
export function parseAllowlist(text: string): { list: IpAllowlist; errors: LineError[] } {
  const ranges: IpRange[] = [];
  const errors: LineError[] = [];
  const lines = listLines(text);
  for (const { line, value } of lines) {
    const r = parseRange(value);
    if (typeof r === "string") errors.push({ line, value, message: r });
    else ranges.push(r);
  }
  if (lines.length > MAX_ALLOWLIST_ENTRIES) {
    const { line, value } = lines[MAX_ALLOWLIST_ENTRIES];
    errors.push({ line, value, message: `at most ${MAX_ALLOWLIST_ENTRIES} entries` });
  }
  return { list: new IpAllowlist(ranges), errors };
}
