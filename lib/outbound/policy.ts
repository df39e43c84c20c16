/**
 * Which addresses an admin-configured outbound request (webhook, health probe, origin override)
 * may reach. Link-local, cloud metadata, unspecified, multicast and reserved addresses never;
 * loopback, private, shared (CGNAT) and unique-local ones only when the operator opts in
 * (`ALLOW_PRIVATE_TARGETS`), since a receiver on the same host or LAN is legitimate but an
 * admin account should not otherwise be a way into the internal network.
 *
 * @example
 * classifyHost("169.254.169.254"); // { kind: "forbidden", label: "link-local" }
 * classifyHost("10.0.0.1"); // { kind: "private", label: "private" }
 */
import { type IpAddress, parseClientIp, parseIPv4 } from "../access/ip.ts";

/** `public`: anyone's; `private`: needs the opt-in; `forbidden`: never. */
export type AddressKind = "public" | "private" | "forbidden";

/** What an address or host name is, and a word for the message. */
export interface Classification {
  kind: AddressKind;
  label: string;
}

type V4Rule = [net: string, bits: number, kind: AddressKind, label: string];
type V6Rule = [net: bigint, bits: number, kind: AddressKind, label: string];

const V4_RULES: V4Rule[] = [
  ["169.254.169.254", 32, "forbidden", "cloud metadata"],
  ["100.100.100.200", 32, "forbidden", "cloud metadata"],
  ["0.0.0.0", 8, "forbidden", "unspecified"],
  ["169.254.0.0", 16, "forbidden", "link-local"],
  ["224.0.0.0", 4, "forbidden", "multicast"],
  ["240.0.0.0", 4, "forbidden", "reserved"],
  ["127.0.0.0", 8, "private", "loopback"],
  ["10.0.0.0", 8, "private", "private"],
  ["172.16.0.0", 12, "private", "private"],
  ["192.168.0.0", 16, "private", "private"],
  ["100.64.0.0", 10, "private", "shared (CGNAT)"],
  ["198.18.0.0", 15, "private", "benchmarking"],
  ["192.0.0.0", 24, "private", "IETF protocol"],
];

const V6_RULES: V6Rule[] = [
  [0xfd000ec2000000000000000000000254n, 128, "forbidden", "cloud metadata"],
  [0n, 128, "forbidden", "unspecified"],
  [0xfe80n << 112n, 10, "forbidden", "link-local"],
  [0xff00n << 112n, 8, "forbidden", "multicast"],
  [1n, 128, "private", "loopback"],
  [0xfc00n << 112n, 7, "private", "unique-local"],
  [0xfec0n << 112n, 10, "private", "site-local"],
  [0x0064ff9b0001n << 80n, 48, "private", "local NAT64"],
];

/** Host names of cloud metadata services (they resolve to link-local addresses, or may not). */
const METADATA_NAMES = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
]);

const v4Rules = V4_RULES.map(([net, bits, kind, label]) => ({
  net: parseIPv4(net)!,
  mask: bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0,
  kind,
  label,
}));
const ALL_128 = (1n << 128n) - 1n;
const v6Rules = V6_RULES.map(([net, bits, kind, label]) => ({
  net,
  mask: ALL_128 ^ ((1n << BigInt(128 - bits)) - 1n),
  kind,
  label,
}));

const PUBLIC: Classification = { kind: "public", label: "public" };

function classifyV4(n: number): Classification {
  for (const r of v4Rules) if (((n & r.mask) >>> 0) === r.net) return r;
  return PUBLIC;
}

/** The IPv4 address an IPv6 one carries (NAT64, IPv4-compatible, 6to4), or null. */
function embeddedV4(n: bigint): number | null {
  if (n >> 32n === 0x64ff9b0000000000000000n) return Number(n & 0xffffffffn);
  if (n >> 32n === 0n && n > 1n) return Number(n);
  if (n >> 112n === 0x2002n) return Number((n >> 80n) & 0xffffffffn);
  return null;
}

/** What `ip` is (an IPv4-mapped IPv6 address is already IPv4 here). */
export function classifyAddress(ip: IpAddress): Classification {
  if (ip.v === 4) return classifyV4(ip.n);
  for (const r of v6Rules) if ((ip.n & r.mask) === r.net) return r;
  const v4 = embeddedV4(ip.n);
  return v4 === null ? PUBLIC : classifyV4(v4);
}

/** A URL's host name as one spelling: lower case, no trailing dot, no IPv6 brackets. */
export function canonicalHost(hostname: string): string {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}

/**
 * What a URL host (as `new URL()` leaves it: numeric IPv4 forms already dotted) is: an address
 * by its range, a metadata name forbidden, `localhost` loopback; other names public until
 * resolved.
 */
export function classifyHost(hostname: string): Classification {
  const h = canonicalHost(hostname);
  const ip = parseClientIp(h);
  if (ip) return classifyAddress(ip);
  if (METADATA_NAMES.has(h)) return { kind: "forbidden", label: "cloud metadata" };
  if (h === "localhost" || h.endsWith(".localhost")) return { kind: "private", label: "loopback" };
  return PUBLIC;
}

/** One key per address whatever its spelling (`::ffff:127.0.0.1` is `127.0.0.1`), or null. */
export function addressKey(host: string): string | null {
  const ip = parseClientIp(canonicalHost(host));
  return ip ? `${ip.v}:${ip.n}` : null;
}
