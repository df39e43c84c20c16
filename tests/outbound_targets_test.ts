/**
 * One outbound-URL policy for every admin-configured target (webhook, health probe, origin
 * override), through the served handler: refused addresses in any spelling, the private-target
 * opt-in, never the service itself, and the resolved addresses checked again before each send
 * (a fake DNS server on loopback changes its answer between save and send).
 */
import { keys } from "../lib/store/keys.ts";
import { outboundGuard } from "../lib/outbound/guard.ts";
import { AdminClient, adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { startDnsServer } from "./fakes/dns_server.ts";
import { makeApp, type TestApp } from "./helpers.ts";

const PORT = 8123;

/** A signed-in admin whose requests go through the served `fetch`, as Deno.serve runs it. */
async function servedAdmin(t: TestApp): Promise<AdminClient> {
  const { client } = await adminClient(t);
  const served = new AdminClient({
    request: (p: string, init?: RequestInit) => t.fetch(new Request(`http://localhost${p}`, init)),
  });
  served.cookies = client.cookies;
  return served;
}

/** The three admin targets, each written with `url` (saved disabled: the check must not wait). */
const TARGETS: [string, (url: string) => Record<string, unknown>][] = [
  ["/api/admin/webhooks", (url) => ({ enabled: false, url, events: [] })],
  ["/api/admin/health", (url) => ({ enabled: false, url })],
  ["/api/admin/origin", (url) => ({ enabled: false, url })],
];
const STORED = [keys.webhooks(), keys.health(), keys.origin()];

async function storedStamps(t: TestApp) {
  return (await t.kv.getMany(STORED)).map((e) => e.versionstamp);
}

async function expectRefused(
  c: AdminClient,
  url: string,
  reason: string,
  headers: Record<string, string> = {},
) {
  for (const [path, body] of TARGETS) {
    const r = await c.req("PUT", path, body(url), headers);
    assertEquals([r.status, r.json?.error?.code], [400, "bad_request"], `${path} ${url}`);
    assertEquals(r.json.error.details.reason, reason, `${path} ${url}: ${r.json.error.message}`);
    assertEquals(r.json.error.details.fields[0].path, "url");
  }
}

Deno.test("outbound targets: metadata, link-local and (by default) private addresses are refused in every spelling", async () => {
  const t = await makeApp({ ALLOW_PRIVATE_TARGETS: false, PORT });
  const c = await servedAdmin(t);
  const before = await storedStamps(t);
  for (
    const url of [
      "https://169.254.169.254/latest/meta-data/",
      "https://[fd00:ec2::254]/",
      "https://metadata.google.internal/",
      "https://[fe80::1]/",
      "https://[::ffff:169.254.169.254]/",
      "https://0.0.0.0/",
      "https://[::]/",
    ]
  ) await expectRefused(c, url, "forbidden_address");
  for (
    const url of [
      "https://10.0.0.1/",
      "https://192.168.1.10/",
      "https://172.16.0.1/",
      "https://100.64.0.1/",
      "https://127.0.0.1:9/",
      "https://2130706433/", // 127.0.0.1 as one number
      "https://0x7f.1/", // and in hex
      "https://[::1]:9/",
      "https://[::ffff:127.0.0.1]:9/",
      "https://[fd12:3456::1]/",
      "https://[64:ff9b::a00:1]/", // NAT64 of 10.0.0.1
      "https://localhost:9/",
    ]
  ) await expectRefused(c, url, "private_address");
  assertEquals(await storedStamps(t), before, "nothing stored");
  // A public address is fine.
  for (const [path, body] of TARGETS) {
    assertEquals((await c.req("PUT", path, body("https://93.184.216.34/"))).status, 200, path);
  }
  t.close();
});

Deno.test("outbound targets: with ALLOW_PRIVATE_TARGETS private addresses are allowed, metadata and the service itself never", async () => {
  const t = await makeApp({ ALLOW_PRIVATE_TARGETS: true, PORT });
  const c = await servedAdmin(t);
  for (const url of ["https://169.254.169.254/", "https://metadata.google.internal/"]) {
    await expectRefused(c, url, "forbidden_address");
  }
  for (
    const url of [
      `https://127.0.0.1:${PORT}/`,
      `https://localhost:${PORT}/`,
      `https://[::ffff:127.0.0.1]:${PORT}/`,
      `https://[::1]:${PORT}/`,
      `https://2130706433:${PORT}/`,
      "https://localhost/", // the address this request came in on (ports 80 and 443 are one)
    ]
  ) await expectRefused(c, url, "self");
  for (const url of ["https://10.0.0.1/", "https://127.0.0.1:9/", "https://[fd12::1]/"]) {
    for (const [path, body] of TARGETS) {
      assertEquals((await c.req("PUT", path, body(url))).status, 200, `${path} ${url}`);
    }
  }
  t.close();
});

Deno.test("outbound targets: PUBLIC_URL's host is the service itself whatever the opt-in", async () => {
  const t = await makeApp({ PUBLIC_URL: "https://queue.example.com", PORT });
  const c = await servedAdmin(t);
  await expectRefused(c, "https://QUEUE.example.com./hook", "self", {
    origin: "https://queue.example.com",
  });
  t.close();
});

Deno.test("outbound targets: a name is resolved before each send; one that now points at a refused address is not sent to", async () => {
  const dns = await startDnsServer();
  const t = await makeApp({ ALLOW_PRIVATE_TARGETS: false, PORT });
  let now = 0;
  outboundGuard(t.config, { nameServer: dns.nameServer, now: () => now });
  const attempts: string[] = [];
  // Nothing may be fetched: every check below must stop the send first.
  t.services.fetch = (input) => {
    attempts.push(String(input instanceof Request ? input.url : input));
    return Promise.reject(new Error("no network in this test"));
  };
  const c = await servedAdmin(t);
  try {
    await dns.set("meta.test", ["169.254.169.254"]);
    await dns.set("lan.test", ["93.184.216.34", "10.1.2.3"]);
    await expectRefused(c, "https://meta.test/", "forbidden_address");
    await expectRefused(c, "https://lan.test/", "private_address");

    // Saved while it pointed elsewhere, then rebound.
    await dns.set("hook.test", ["93.184.216.34"]);
    const put = await c.req("PUT", "/api/admin/webhooks", {
      enabled: true,
      url: "https://hook.test/x",
      events: ["pause"],
    });
    assertEquals(put.status, 200);
    await dns.set("hook.test", ["169.254.169.254"]);
    now += 60_000; // past the answer cache
    const sent = await c.req("POST", "/api/admin/webhooks/test", {});
    assertEquals(sent.json.delivered, false);
    assert(
      /^refused: .*169\.254\.169\.254.*link-local|metadata/.test(sent.json.error),
      sent.json.error,
    );

    // The origin override: each proxied request.
    await dns.set("shop.test", ["93.184.216.34"]);
    assertEquals(
      (await c.req("PUT", "/api/admin/origin", { enabled: true, url: "https://shop.test" })).status,
      200,
    );
    await dns.set("shop.test", ["10.0.0.9"]);
    now += 60_000;
    const token = await t.services.signer.signAccessToken(
      "visitor-r1",
      "default",
      t.clock.now(),
      60,
    );
    const r = await t.fetch(
      new Request("http://localhost/shop", {
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      }),
    );
    assertEquals(r.status, 502);
    assertEquals((await r.json()).error.details.reason, "refused_target");

    // The health probe: a refused address is a failed probe, never a request.
    await dns.set("health.test", ["93.184.216.34"]);
    const h = await c.req("PUT", "/api/admin/health", {
      enabled: true,
      url: "https://health.test/up",
      intervalSeconds: 10,
    });
    assertEquals(h.status, 200);
    await dns.set("health.test", ["127.0.0.1"]);
    now += 60_000;
    assert(await t.services.access.health.maybeProbe(), "a probe round ran");
    const snap = (await c.req("GET", "/api/admin/health")).json;
    assert(JSON.stringify(snap).includes("refused"), JSON.stringify(snap));
    assertEquals(attempts, [], "no request left the service");
  } finally {
    await dns.close();
    t.close();
  }
});
