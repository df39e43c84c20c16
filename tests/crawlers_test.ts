/**
 * Search engine crawlers: a user agent alone is never believed (reverse DNS of the address must
 * name the crawler's published domain and that name must resolve back to the address); the
 * queue's rule decides what a verified one gets (a place, the site, or 503 with Retry-After); a
 * resolver that hangs falls back to queueing within the timeout; people never cause a lookup.
 * DNS comes from an injected resolver.
 */
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { startOrigin } from "./origin_helpers.ts";
import { FakeClock } from "../lib/clock.ts";
import { CrawlerVerifier, type DnsResolver, reverseName } from "../lib/crawlers/verify.ts";
import { writeCrawlerSettings } from "../lib/crawlers/settings.ts";

const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const PERSON = "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36";

/** A resolver over a fixed table, counting its lookups. */
function fakeDns(table: Record<string, string[]>) {
  const asked: string[] = [];
  const resolver: DnsResolver = (q, type) => {
    asked.push(`${type} ${q}`);
    const v = table[`${type} ${q}`];
    return v ? Promise.resolve(v) : Promise.reject(new Error(`NXDOMAIN ${q}`));
  };
  return { resolver, asked };
}

/** 127.0.0.1 (the test client's address) as Googlebot's, both ways. */
const GOOGLE_LOOPBACK = {
  "PTR 1.0.0.127.in-addr.arpa": ["crawl-127-0-0-1.googlebot.com."],
  "A crawl-127-0-0-1.googlebot.com": ["127.0.0.1"],
};

Deno.test("reverse names: IPv4 octets and IPv6 nibbles, reversed", () => {
  assertEquals(reverseName("66.249.66.1"), "1.66.249.66.in-addr.arpa");
  assertEquals(
    reverseName("2001:4860:4801:10::1"),
    "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.1.0.0.1.0.8.4.0.6.8.4.1.0.0.2.ip6.arpa",
  );
  assertEquals(reverseName("not an address"), null);
});

Deno.test("verification: reverse then forward DNS against the published suffixes, cached", async () => {
  const clock = new FakeClock();
  const dns = fakeDns({
    "PTR 1.66.249.66.in-addr.arpa": ["crawl-66-249-66-1.googlebot.com."],
    "A crawl-66-249-66-1.googlebot.com": ["66.249.66.1"],
    // Claims a Google name in its reverse zone, but the name does not point back.
    "PTR 9.9.9.203.in-addr.arpa": ["crawl-66-249-66-1.googlebot.com."],
    // A look-alike domain.
    "PTR 7.7.7.198.in-addr.arpa": ["crawl.googlebot.com.evil.example."],
    "A crawl.googlebot.com.evil.example": ["198.7.7.7"],
    "PTR 2.157.55.40.in-addr.arpa": ["msnbot-40-55-157-2.search.msn.com."],
    "A msnbot-40-55-157-2.search.msn.com": ["40.55.157.2"],
  });
  const v = new CrawlerVerifier({ clock, resolver: dns.resolver, timeoutMs: 500 });
  assertEquals(await v.verify("66.249.66.1", GOOGLEBOT), "googlebot");
  assertEquals(await v.verify("203.9.9.9", GOOGLEBOT), null, "forward DNS must match");
  assertEquals(await v.verify("198.7.7.7", GOOGLEBOT), null, "suffix, not substring");
  assertEquals(await v.verify("8.8.4.4", GOOGLEBOT), null, "no reverse name at all");
  assertEquals(await v.verify("40.55.157.2", "Mozilla/5.0 (compatible; bingbot/2.0)"), "bingbot");
  assertEquals(await v.verify("40.55.157.2", GOOGLEBOT), null, "Bing's address is no Googlebot");
  const before = dns.asked.length;
  assertEquals(await v.verify("66.249.66.1", PERSON), null, "people are not looked up");
  assertEquals(await v.verify("66.249.66.1", GOOGLEBOT), "googlebot");
  assertEquals(await v.verify("203.9.9.9", GOOGLEBOT), null);
  assertEquals(dns.asked.length, before, "answers are cached");
  clock.advance(3_600_001);
  await v.verify("66.249.66.1", GOOGLEBOT);
  assert(dns.asked.length > before, "a verified address is checked again after an hour");
});

Deno.test("a resolver that hangs: queue within the timeout, never longer", async () => {
  const never: DnsResolver = () => new Promise(() => {});
  const v = new CrawlerVerifier({ clock: new FakeClock(), resolver: never, timeoutMs: 150 });
  const t0 = performance.now();
  assertEquals(await v.verify("66.249.66.1", GOOGLEBOT), null);
  const took = performance.now() - t0;
  assert(took >= 140 && took < 1000, `took ${took} ms`);
});

Deno.test("/wait: a faked Googlebot is queued; a verified one passes or gets 503 by the rule", async () => {
  const dns = fakeDns(GOOGLE_LOOPBACK);
  const t = await makeApp({ ADMIT_PER_SECOND: 1 }, { resolveDns: dns.resolver });
  try {
    await t.engine.setPaused("default", true);
    const ua = { "user-agent": GOOGLEBOT };
    // Default rule `queue`: even a verified crawler takes a place, with no lookup at all.
    const c1 = new Client(t.app);
    const queued = await c1.req("GET", "/wait?return=/shop", undefined, ua);
    assertEquals(queued.status, 200);
    assert(c1.cookies.has("tg_ticket"));
    assertEquals(dns.asked.length, 0, "the `queue` rule needs no DNS");

    await writeCrawlerSettings(t.kv, "default", { crawlers: "pass" });
    t.services.crawlers.settings.invalidate("default");
    const waiting = (await t.engine.metrics("default")).waiting;
    const c2 = new Client(t.app);
    const passed = await c2.req("GET", "/wait?return=/shop", undefined, ua);
    assertEquals([passed.status, passed.headers.get("location")], [302, "/shop"]);
    assertEquals(c2.cookies.has("tg_ticket"), false, "no place");
    assertEquals((await t.engine.metrics("default")).waiting, waiting, "no count against capacity");

    // The same user agent from an address whose reverse DNS is not Google's: queued.
    const fake = fakeDns({ "PTR 1.0.0.127.in-addr.arpa": ["host.example.net."] });
    const t2 = await makeApp({ ADMIT_PER_SECOND: 1 }, { resolveDns: fake.resolver });
    await t2.engine.setPaused("default", true);
    await writeCrawlerSettings(t2.kv, "default", { crawlers: "pass" });
    const c3 = new Client(t2.app);
    const faked = await c3.req("GET", "/wait?return=/shop", undefined, ua);
    assertEquals(faked.status, 200, "a faked Googlebot waits like anyone");
    assert(c3.cookies.has("tg_ticket"));
    t2.close();

    await writeCrawlerSettings(t.kv, "default", { crawlers: "503" });
    t.services.crawlers.settings.invalidate("default");
    const busy = await new Client(t.app).req("GET", "/wait", undefined, ua);
    assertEquals([busy.status, busy.headers.get("retry-after")], [503, "3600"]);
    // A person under the same rule still queues, without a lookup.
    const asked = dns.asked.length;
    const person = await new Client(t.app).req("GET", "/wait", undefined, { "user-agent": PERSON });
    assertEquals(person.status, 200);
    assertEquals(dns.asked.length, asked);
  } finally {
    t.close();
  }
});

Deno.test("/wait: with a resolver that hangs, a claimed crawler under `pass` is queued in time", async () => {
  const never: DnsResolver = () => new Promise(() => {});
  const t = await makeApp({ ADMIT_PER_SECOND: 1 }, { resolveDns: never });
  try {
    await t.engine.setPaused("default", true);
    await writeCrawlerSettings(t.kv, "default", { crawlers: "pass" });
    const c = new Client(t.app);
    const t0 = performance.now();
    const r = await c.req("GET", "/wait", undefined, { "user-agent": GOOGLEBOT });
    const took = performance.now() - t0;
    assertEquals(r.status, 200);
    assert(c.cookies.has("tg_ticket"), "queued like anyone");
    assert(took < 3000, `took ${took} ms`);
    const p0 = performance.now();
    await new Client(t.app).req("GET", "/wait", undefined, { "user-agent": PERSON });
    assert(performance.now() - p0 < 500, "a person never waits on DNS");
  } finally {
    t.close();
  }
});

Deno.test("queueStatusCode: the waiting page answers 429 or 503 with Retry-After when asked", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 });
  try {
    await t.engine.setPaused("default", true);
    const plain = await new Client(t.app).req("GET", "/wait");
    assertEquals(plain.status, 200);
    assert(plain.text.includes(`<meta name="robots" content="noindex"/>`));
    assertEquals(plain.headers.get("x-robots-tag"), "noindex");
    await writeCrawlerSettings(t.kv, "default", { queueStatusCode: 503 });
    t.services.crawlers.settings.invalidate("default");
    const r = await new Client(t.app).req("GET", "/wait");
    assertEquals(r.status, 503);
    assert(Number(r.headers.get("retry-after")) >= 1);
    assert(r.text.includes(`id="tg-props"`), "still the waiting page");
  } finally {
    t.close();
  }
});

Deno.test("origin proxy: a verified crawler reaches the site without a place under `pass`, 503 under `503`", async () => {
  const origin = startOrigin();
  const dns = fakeDns(GOOGLE_LOOPBACK);
  const t = await makeApp({ ORIGIN_URL: origin.url }, { resolveDns: dns.resolver });
  try {
    const ua = { "user-agent": GOOGLEBOT };
    const queued = await t.app.request("/shop", { headers: ua, redirect: "manual" });
    assertEquals([queued.status, queued.headers.get("x-robots-tag")], [302, "noindex"]);
    await writeCrawlerSettings(t.kv, "default", { crawlers: "pass" });
    t.services.crawlers.settings.invalidate("default");
    const passed = await t.app.request("/shop?x=1", { headers: ua });
    assertEquals(passed.status, 200);
    assertEquals((await passed.json()).path, "/shop?x=1");
    assertEquals(origin.seen.length, 1);
    const person = await t.app.request("/shop", {
      headers: { "user-agent": PERSON },
      redirect: "manual",
    });
    await person.body?.cancel();
    assertEquals(person.status, 302, "people still wait");
    await writeCrawlerSettings(t.kv, "default", { crawlers: "503" });
    t.services.crawlers.settings.invalidate("default");
    const busy = await t.app.request("/shop", { headers: ua });
    await busy.body?.cancel();
    assertEquals([busy.status, busy.headers.get("retry-after")], [503, "3600"]);
    assertEquals(origin.seen.length, 1);
  } finally {
    t.close();
    await origin.close();
  }
});

Deno.test("proxy checks: a verified crawler passes nginx's and Caddy's check under `pass`", async () => {
  const dns = fakeDns(GOOGLE_LOOPBACK);
  const t = await makeApp({}, { resolveDns: dns.resolver });
  try {
    const check = (path: string, ua: string) =>
      t.app.request(path, {
        headers: { "user-agent": ua, "x-original-uri": "/shop", "x-forwarded-uri": "/shop" },
      });
    let r = await check("/verify/auth-request", GOOGLEBOT);
    assertEquals(r.status, 401, "the `queue` rule: to the waiting room like anyone");
    await r.body?.cancel();
    await writeCrawlerSettings(t.kv, "default", { crawlers: "pass" });
    t.services.crawlers.settings.invalidate("default");
    for (const path of ["/verify/auth-request", "/verify/forward-auth"]) {
      r = await check(path, GOOGLEBOT);
      assertEquals(r.status, 204, path);
      r = await check(path, PERSON);
      assertEquals(r.status === 401 || r.status === 302, true, `${path}: people still wait`);
      await r.body?.cancel();
    }
  } finally {
    t.close();
  }
});

Deno.test("admin API: GET/PUT /api/admin/crawlers, bad values refused", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    let r = await admin.req("GET", "/api/admin/crawlers?queue=default");
    assertEquals(r.status, 200);
    assertEquals([r.json.crawlers, r.json.queueStatusCode], ["queue", 200]);
    assert(r.json.verified.includes("googlebot") && r.json.verified.includes("applebot"));
    r = await admin.req("PUT", "/api/admin/crawlers", { queue: "default", crawlers: "pass" });
    assertEquals([r.status, r.json.crawlers, r.json.queueStatusCode], [200, "pass", 200]);
    r = await admin.req("PUT", "/api/admin/crawlers", { queueStatusCode: 429 });
    assertEquals([r.json.crawlers, r.json.queueStatusCode], ["pass", 429]);
    r = await admin.req("PUT", "/api/admin/crawlers", { crawlers: "index" });
    assertEquals([r.status, r.json.error.code], [400, "bad_request"]);
    r = await admin.req("PUT", "/api/admin/crawlers", { queueStatusCode: 404 });
    assertEquals(r.status, 400);
    r = await admin.req("PUT", "/api/admin/crawlers", { queue: "nope", crawlers: "pass" });
    assertEquals(r.status, 404);
  } finally {
    t.close();
  }
});
