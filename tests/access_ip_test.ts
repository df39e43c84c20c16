import { parseCountries, visitorCountry } from "../lib/access/countries.ts";
import {
  ipText,
  parseAllowlist,
  parseClientIp,
  parseForwardedIp,
  parseIPv4,
  parseIPv6,
} from "../lib/access/ip.ts";
import { listLines } from "../lib/access/lines.ts";
import { assert, assertEquals } from "./assert.ts";

/** The allowlist of `text`, failing the test on any bad line. */
function list(text: string) {
  const { list, errors } = parseAllowlist(text);
  assertEquals(errors, [], `errors in ${JSON.stringify(text)}`);
  return list;
}

Deno.test("IP parsing: IPv4 strict dotted quads, IPv6 forms, client IP wrappers", () => {
  assertEquals(parseIPv4("0.0.0.0"), 0);
  assertEquals(parseIPv4("255.255.255.255"), 0xffffffff);
  assertEquals(parseIPv4("192.168.1.10"), 0xc0a8010a);
  for (const bad of ["256.0.0.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.-4", "a.b.c.d", ""]) {
    assertEquals(parseIPv4(bad), null, bad);
  }
  assertEquals(parseIPv6("::"), 0n);
  assertEquals(parseIPv6("::1"), 1n);
  assertEquals(parseIPv6("2001:db8::"), 0x20010db8n << 96n);
  assertEquals(parseIPv6("2001:DB8:0:0:0:0:0:1"), (0x20010db8n << 96n) | 1n);
  assertEquals(parseIPv6("::ffff:1.2.3.4"), (0xffffn << 32n) | 0x01020304n);
  for (
    const bad of [
      "1::2::3",
      ":::",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7",
      "12345::",
      "g::1",
      "::1.2.3",
    ]
  ) {
    assertEquals(parseIPv6(bad), null, bad);
  }
  assertEquals(parseClientIp("[2001:db8::1]"), { v: 6, n: (0x20010db8n << 96n) | 1n });
  assertEquals(parseClientIp("fe80::1%eth0"), { v: 6, n: (0xfe80n << 112n) | 1n });
  // A dual-stack socket reports IPv4 clients as mapped IPv6: that is the IPv4 address.
  assertEquals(parseClientIp("::ffff:10.1.2.3"), { v: 4, n: 0x0a010203 });
  assertEquals(parseClientIp("::FFFF:a01:203"), { v: 4, n: 0x0a010203 });
  assertEquals(parseClientIp("unknown"), null);
});

Deno.test("allowlist: IPv4 CIDR edges are exact (/0, /32, first, last, one outside)", () => {
  const l = list("10.1.2.0/24");
  assert(l.matches("10.1.2.0"), "first address");
  assert(l.matches("10.1.2.255"), "last address");
  assert(!l.matches("10.1.1.255"), "one below");
  assert(!l.matches("10.1.3.0"), "one above");
  const one = list("203.0.113.7/32");
  assert(one.matches("203.0.113.7"));
  assert(!one.matches("203.0.113.6") && !one.matches("203.0.113.8"));
  const bare = list("203.0.113.7");
  assert(bare.matches("203.0.113.7") && !bare.matches("203.0.113.8"), "a bare address is a /32");
  const all = list("0.0.0.0/0");
  assert(all.matches("0.0.0.0") && all.matches("255.255.255.255") && all.matches("8.8.8.8"));
  assert(!all.matches("2001:db8::1"), "IPv4 /0 does not cover IPv6");
  const top = list("128.0.0.0/1");
  assert(
    top.matches("128.0.0.0") && top.matches("255.255.255.255") && !top.matches("127.255.255.255"),
  );
  // Host bits under the prefix are ignored.
  const host = list("10.0.0.5/24");
  assert(host.matches("10.0.0.0") && host.matches("10.0.0.255") && !host.matches("10.0.1.0"));
});

Deno.test("allowlist: IPv6 CIDR edges are exact (/0, /128, first, last, one outside)", () => {
  const l = list("2001:db8:abcd::/48");
  assert(l.matches("2001:db8:abcd::"), "first");
  assert(l.matches("2001:db8:abcd:ffff:ffff:ffff:ffff:ffff"), "last");
  assert(!l.matches("2001:db8:abcc:ffff:ffff:ffff:ffff:ffff"), "one below");
  assert(!l.matches("2001:db8:abce::"), "one above");
  const one = list("2001:db8::1/128");
  assert(one.matches("2001:db8::1") && one.matches("[2001:0db8:0:0::1]"));
  assert(!one.matches("2001:db8::") && !one.matches("2001:db8::2"));
  const all = list("::/0");
  assert(all.matches("::") && all.matches("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
  assert(!all.matches("10.0.0.1"), "IPv6 /0 does not cover IPv4 clients");
  const odd = list("2001:db8::/33"); // a prefix that is not a multiple of 16
  assert(odd.matches("2001:db8:7fff::1") && !odd.matches("2001:db8:8000::"));
});

Deno.test("allowlist: IPv4-mapped IPv6 matches IPv4 entries, both ways", () => {
  const v4 = list("192.0.2.0/24");
  assert(v4.matches("::ffff:192.0.2.1") && v4.matches("::ffff:c000:2ff"));
  assert(!v4.matches("::ffff:192.0.3.0"));
  // An entry written in mapped form is the IPv4 range it covers.
  const mapped = list("::ffff:192.0.2.0/120");
  assert(
    mapped.matches("192.0.2.0") && mapped.matches("192.0.2.255") && !mapped.matches("192.0.3.0"),
  );
  assert(list("::ffff:0:0/96").matches("8.8.8.8"), "all of mapped space is all of IPv4");
  // Not an IPv4-mapped address: ::1.2.3.4 (deprecated IPv4-compatible) stays IPv6.
  assert(!list("1.2.3.4").matches("::1.2.3.4"));
});

Deno.test("allowlist: comments, blank lines, and every bad line with its number", () => {
  const l = list("# office\n\n  198.51.100.9   # VPN exit\r\n2001:db8::/32\n");
  assertEquals(l.size, 2);
  const { errors } = parseAllowlist(
    "10.0.0.1\n10.0.0.0/33\nexample.com\n\n2001:db8::/129\n1.2.3.4/08\n::1/64 # fine\n300.1.1.1",
  );
  assertEquals(errors.map((e) => e.line), [2, 3, 5, 6, 8]);
  assertEquals(errors.map((e) => e.value), [
    "10.0.0.0/33",
    "example.com",
    "2001:db8::/129",
    "1.2.3.4/08",
    "300.1.1.1",
  ]);
  assert(errors[0].message.includes("0 to 32"), errors[0].message);
  assert(errors[2].message.includes("0 to 128"), errors[2].message);
  assertEquals(listLines("a\r\nb # c\r#only\n  d  ").map((x) => [x.line, x.value]), [
    [1, "a"],
    [2, "b"],
    [4, "d"],
  ]);
  assert(!list("").matches("10.0.0.1"), "an empty list matches nobody");
});

Deno.test("countries: ISO codes any case, unknown markers refused, header normalized", () => {
  const ok = parseCountries("ru\n# a comment\nKP\nru\nxk\n");
  assertEquals(ok, { countries: ["KP", "RU", "XK"], errors: [] });
  const bad = parseCountries("DE\nUK\nXX\nt1\nGER\n");
  assertEquals(bad.errors.map((e) => [e.line, e.value]), [[2, "UK"], [3, "XX"], [4, "t1"], [
    5,
    "GER",
  ]]);
  assert(bad.errors[1].message.includes("never blocked"));
  assertEquals(visitorCountry(" de "), "DE");
  for (const unknown of [null, undefined, "", "XX", "xx", "T1", "DEU"]) {
    assertEquals(visitorCountry(unknown), null, String(unknown));
  }
});

Deno.test("forwarded entries: ports and brackets come off, one spelling comes back", () => {
  for (
    const [raw, want] of [
      ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["[::]:80", "::"],
      ["1:0:2:0:3:0:4:0", "1:0:2:0:3:0:4:0"],
      ["fe80::1%eth0", "fe80::1"],
      [" 10.0.0.1:65535 ", "10.0.0.1"],
      ["[::ffff:10.0.0.1]", "10.0.0.1"],
    ]
  ) assertEquals(ipText(parseForwardedIp(raw)!), want, raw);
  for (const junk of ["10.0.0.1:65536", "10.0.0.1:", "[10.0.0.1]x", "::1:80:", "a.b.c.d", ""]) {
    assertEquals(parseForwardedIp(junk), null, junk);
  }
});
