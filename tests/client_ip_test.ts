import { clientIp, clientKey, peerTrusted } from "../lib/client_ip.ts";
import { requesterOf } from "../lib/access/join.ts";
import { parseEnv } from "../lib/config.ts";
import { assertEquals, assertThrows } from "./assert.ts";
import { LOOPBACK_INFO, makeApp } from "./helpers.ts";

const socket = (hostname: string) =>
  ({ remoteAddr: { transport: "tcp", hostname, port: 5000 } }) as unknown as Deno.ServeHandlerInfo;

function ipOf(
  config: { CLIENT_IP_HEADER?: string; TRUSTED_PROXIES?: string },
  headers: Record<string, string>,
  info?: Deno.ServeHandlerInfo,
): string {
  return clientIp(new Headers(headers), info, config);
}

Deno.test("client IP: the configured header, right-most entry; never X-Forwarded-For by default", () => {
  const peer = socket("10.0.0.9");
  assertEquals(ipOf({}, { "x-forwarded-for": "1.2.3.4" }, peer), "10.0.0.9");
  assertEquals(ipOf({}, {}), "unknown");
  const cf = { CLIENT_IP_HEADER: "cf-connecting-ip" };
  assertEquals(ipOf(cf, { "cf-connecting-ip": "2001:db8::1" }, peer), "2001:db8::1");
  assertEquals(ipOf(cf, {}, peer), "unknown", "a configured header is the only source");
  // The client controls everything left of what the trusted proxy appended.
  const xff = { CLIENT_IP_HEADER: "x-forwarded-for" };
  assertEquals(ipOf(xff, { "x-forwarded-for": "6.6.6.6, 203.0.113.7" }, peer), "203.0.113.7");
});

Deno.test("trusted proxies: only their headers are believed; the right-most untrusted entry is the client", () => {
  const cfg = { CLIENT_IP_HEADER: "x-forwarded-for", TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8" };
  // A client reaching the port directly cannot claim an address: its socket address counts.
  assertEquals(
    ipOf(cfg, { "x-forwarded-for": "203.0.113.7" }, socket("198.51.100.20")),
    "198.51.100.20",
  );
  // Through our proxy: what it appended is the client.
  assertEquals(
    ipOf(cfg, { "x-forwarded-for": "203.0.113.7" }, socket("127.0.0.1")),
    "203.0.113.7",
  );
  // Two of our proxies in a chain, and a spoofed entry on the left: the chain is skipped.
  assertEquals(
    ipOf(cfg, { "x-forwarded-for": "6.6.6.6, 198.51.100.4, 10.1.2.3" }, socket("10.0.0.2")),
    "198.51.100.4",
  );
  // A trusted proxy that sent no header: its own address is all we know.
  assertEquals(ipOf(cfg, {}, socket("127.0.0.1")), "127.0.0.1");
  // IPv4-mapped peers match IPv4 ranges.
  assertEquals(peerTrusted("::ffff:127.0.0.1", cfg), true);
  assertEquals(peerTrusted("127.0.0.2", cfg), false);
});

Deno.test("trusted proxies: the country header counts only from a trusted peer", () => {
  const cfg = {
    CLIENT_IP_HEADER: undefined,
    TRUSTED_PROXIES: "127.0.0.1",
    GEO_COUNTRY_HEADER: "cf-ipcountry",
  };
  const h = new Headers({ "cf-ipcountry": "DE" });
  assertEquals(requesterOf(h, socket("203.0.113.9"), cfg).country, null);
  assertEquals(requesterOf(h, socket("127.0.0.1"), cfg).country, "DE");
  // Unset: believed from anyone (the documented default for a port only the edge can reach).
  assertEquals(
    requesterOf(h, socket("203.0.113.9"), { ...cfg, TRUSTED_PROXIES: undefined }).country,
    "DE",
  );
});

Deno.test("TRUSTED_PROXIES: a bad entry stops the start with the variable's name", () => {
  assertEquals(
    parseEnv({ TRUSTED_PROXIES: "127.0.0.1,::1,10.0.0.0/8" }).TRUSTED_PROXIES,
    "127.0.0.1,::1,10.0.0.0/8",
  );
  assertThrows(() => parseEnv({ TRUSTED_PROXIES: "127.0.0.1, nope" }), "TRUSTED_PROXIES");
});

Deno.test("client keys: IPv4 as is, IPv6 by its /64", () => {
  assertEquals(clientKey("203.0.113.7"), "203.0.113.7");
  assertEquals(clientKey("2001:db8:1:2::1"), clientKey("2001:db8:1:2:ffff::9"));
  assertEquals(clientKey("2001:db8:1:2::1") === clientKey("2001:db8:1:3::1"), false);
});

Deno.test("client IP: the header's entry is parsed; one address in any spelling, junk is the peer's own", () => {
  const cfg = { CLIENT_IP_HEADER: "x-forwarded-for", TRUSTED_PROXIES: "127.0.0.1" };
  const proxy = socket("127.0.0.1");
  for (
    const raw of [
      "203.0.113.7",
      "::ffff:203.0.113.7",
      "::FFFF:cb00:7107",
      "203.0.113.7:5555",
      "[::ffff:203.0.113.7]:80",
      " 203.0.113.7  ",
      "6.6.6.6, 203.0.113.7:1",
    ]
  ) {
    const ip = ipOf(cfg, { "x-forwarded-for": raw }, proxy);
    assertEquals(ip, "203.0.113.7", raw);
    assertEquals(clientKey(ip), "203.0.113.7", raw);
  }
  assertEquals(ipOf(cfg, { "x-forwarded-for": "[2001:DB8::1]:443" }, proxy), "2001:db8::1");
  for (const junk of ["unknown", "nonsense", "203.0.113.7x", "1.2.3.4:99999", "_hidden", "::g"]) {
    assertEquals(ipOf(cfg, { "x-forwarded-for": junk }, proxy), "127.0.0.1", junk);
  }
  // Without trusted proxies the peer is the proxy in front: junk shares its key, not one of its own.
  const edge = socket("198.51.100.1");
  assertEquals(
    ipOf({ CLIENT_IP_HEADER: "cf-connecting-ip" }, { "cf-connecting-ip": "x1" }, edge),
    "198.51.100.1",
  );
  // A dual-stack socket's mapped address is the IPv4 client.
  assertEquals(ipOf({}, {}, socket("::ffff:192.0.2.3")), "192.0.2.3");
  assertEquals(clientKey(" ::ffff:192.0.2.3 "), "192.0.2.3");
});

Deno.test("per-client limit: spellings of one address take one allowance", async () => {
  const t = await makeApp({
    CLIENT_IP_HEADER: "x-forwarded-for",
    TRUSTED_PROXIES: "127.0.0.1",
    JOINS_PER_CLIENT_PER_MINUTE: 3,
  });
  try {
    await t.engine.setPaused("default", true);
    const spellings = [
      "203.0.113.7",
      "::ffff:203.0.113.7",
      "203.0.113.7:1000",
      "203.0.113.7:1001",
      "[::ffff:203.0.113.7]:2",
      "203.0.113.7 ",
      "unknown",
      "not-an-ip",
      "junk 1",
      "junk 2",
      "junk 3",
    ];
    const statuses: number[] = [];
    for (const xff of spellings) {
      const r = await t.fetch(
        new Request("http://localhost/join", {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": xff },
          body: JSON.stringify({ queue: "default" }),
        }),
        LOOPBACK_INFO,
      );
      await r.body?.cancel();
      statuses.push(r.status);
    }
    // Three for the address, three for the proxy's own key (the junk), the rest refused.
    assertEquals(statuses, [202, 202, 202, 429, 429, 429, 202, 202, 202, 429, 429]);
  } finally {
    t.close();
  }
});
