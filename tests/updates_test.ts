import { FakeClock } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import { keys } from "../lib/store/keys.ts";
import { checkUpdates, compareSemver, parseSemver } from "../lib/updates.ts";
import { VERSION } from "../lib/version.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

const HOUR = 3600_000;

/** A fake "latest release" feed on loopback; `answer` decides each response, `hits` counts. */
function startFeed() {
  const feed = {
    hits: 0,
    answer: (): Response =>
      Response.json({
        tag_name: "v99.1.0",
        html_url: "https://github.com/tollgate-dev/tollgate/releases/tag/v99.1.0",
        published_at: "2026-01-01T00:00:00Z",
      }),
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    feed.hits++;
    return feed.answer();
  });
  return { feed, url: `http://127.0.0.1:${server.addr.port}/releases/latest`, server };
}

async function setup() {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const { feed, url, server } = startFeed();
  const deps = { kv, clock, fetch: globalThis.fetch, config: testConfig({ UPDATE_FEED_URL: url }) };
  return {
    kv,
    clock,
    feed,
    deps,
    async close() {
      await server.shutdown();
      kv.close();
    },
  };
}

Deno.test("updates: semver precedence (leading v, pre-releases, build metadata)", () => {
  assert(compareSemver("v1.2.3", "1.2.3") === 0);
  assert(compareSemver("1.10.0", "1.9.9") > 0);
  assert(compareSemver("2.0.0", "10.0.0") < 0);
  assert(compareSemver("1.0.0-rc.1", "1.0.0") < 0);
  assert(compareSemver("1.0.0-rc.2", "1.0.0-rc.10") < 0);
  assert(compareSemver("1.0.0-alpha", "1.0.0-alpha.1") < 0);
  assert(compareSemver("1.0.0-alpha.beta", "1.0.0-beta") < 0);
  assert(compareSemver("1.0.0-1", "1.0.0-alpha") < 0);
  assert(compareSemver("1.0.0+build.7", "1.0.0") === 0);
  assertEquals(parseSemver("release-1"), null);
  assertEquals(parseSemver("1.2"), null);
});

Deno.test("updates: a newer release is reported, cached ~6 h, then looked up again", async () => {
  const t = await setup();
  try {
    const first = await checkUpdates(t.deps);
    assertEquals(first, {
      running: VERSION,
      latest: "99.1.0",
      updateAvailable: true,
      url: "https://github.com/tollgate-dev/tollgate/releases/tag/v99.1.0",
      publishedAt: "2026-01-01T00:00:00Z",
      checkedAt: t.clock.now(),
    });
    t.clock.advance(6 * HOUR - 1000);
    assertEquals(await checkUpdates(t.deps), first, "within 6 h the cached answer");
    assertEquals(t.feed.hits, 1);

    t.feed.answer = () => Response.json({ tag_name: VERSION, html_url: "https://example.com/r" });
    t.clock.advance(2000);
    const later = await checkUpdates(t.deps);
    assertEquals(t.feed.hits, 2, "after 6 h the feed is read again");
    assertEquals([later.latest, later.updateAvailable, later.checkedAt], [
      VERSION,
      false,
      t.clock.now(),
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("updates: refresh forces a lookup; an older release is not an update", async () => {
  const t = await setup();
  try {
    await checkUpdates(t.deps);
    t.feed.answer = () => Response.json({ tag_name: "v0.0.1" });
    assertEquals((await checkUpdates(t.deps)).latest, "99.1.0", "cached");
    const forced = await checkUpdates(t.deps, { refresh: true });
    assertEquals(t.feed.hits, 2);
    assertEquals([forced.latest, forced.updateAvailable, forced.url], ["0.0.1", false, undefined]);
  } finally {
    await t.close();
  }
});

Deno.test("updates: a failing feed keeps the cached answer or reports an error, and backs off", async () => {
  const t = await setup();
  try {
    // No cache yet, feed down.
    t.feed.answer = () => new Response("rate limited", { status: 403 });
    const down = await checkUpdates(t.deps);
    assertEquals(down, {
      running: VERSION,
      latest: null,
      updateAvailable: false,
      checkedAt: t.clock.now(),
      error: "release feed answered 403",
    });
    await checkUpdates(t.deps);
    assertEquals(t.feed.hits, 1, "a failure is not retried for a while");

    // Garbage and a non-semver tag are errors too, never exceptions.
    t.feed.answer = () => new Response("<html>", { headers: { "content-type": "text/html" } });
    assert((await checkUpdates(t.deps, { refresh: true })).error?.includes("not JSON"));
    t.feed.answer = () => Response.json({ tag_name: "nightly" });
    assert((await checkUpdates(t.deps, { refresh: true })).error?.includes("not semver"));

    // A good answer, then the feed fails again: the cached release stays, with the error.
    t.feed.answer = () => Response.json({ tag_name: "v99.1.0" });
    const good = await checkUpdates(t.deps, { refresh: true });
    t.feed.answer = () => new Response("down", { status: 502 });
    t.clock.advance(7 * HOUR);
    const stale = await checkUpdates(t.deps);
    assertEquals(stale, { ...good, error: "release feed answered 502" });
    const cached = (await t.kv.get<Record<string, unknown>>(keys.updatesCache())).value!;
    assertEquals(cached.latest, "99.1.0");
  } finally {
    await t.close();
  }
});

Deno.test("updates: an unreachable feed is an error answer, not a throw", async () => {
  const t = await setup();
  try {
    // A port nothing listens on: bind one, note it, close it.
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    const deps = {
      ...t.deps,
      config: testConfig({ UPDATE_FEED_URL: `http://127.0.0.1:${port}/x` }),
    };
    const out = await checkUpdates(deps, { refresh: true });
    assertEquals([out.latest, out.updateAvailable, out.error], [
      null,
      false,
      "release feed unreachable",
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("updates route: behind the session, cached, refresh=1 forces, feed down is no 500", async () => {
  const { feed, url, server } = startFeed();
  const t = await makeApp({ UPDATE_FEED_URL: url });
  try {
    assertEquals((await new Client(t.app).req("GET", "/api/admin/updates")).status, 401);
    assertEquals(feed.hits, 0);
    const { client } = await adminClient(t);
    const first = await client.req("GET", "/api/admin/updates");
    assertEquals(first.status, 200);
    assertEquals([first.json.running, first.json.latest, first.json.updateAvailable], [
      VERSION,
      "99.1.0",
      true,
    ]);
    await client.req("GET", "/api/admin/updates");
    assertEquals(feed.hits, 1, "second read served from the cache");
    await client.req("GET", "/api/admin/updates?refresh=1");
    assertEquals(feed.hits, 2, "refresh=1 reads the feed");

    feed.answer = () => new Response("down", { status: 503 });
    const down = await client.req("GET", "/api/admin/updates?refresh=1");
    assertEquals(down.status, 200);
    assertEquals([down.json.latest, down.json.error], ["99.1.0", "release feed answered 503"]);
    const bad = await client.req("GET", "/api/admin/updates?refresh=maybe");
    assertEquals([bad.status, bad.json.error.code], [400, "bad_request"]);
  } finally {
    t.close();
    await server.shutdown();
  }
});

Deno.test("updates: only https release links are passed on (a javascript: link from the feed or an old cache is dropped)", async () => {
  const t = await setup();
  try {
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "http://example.com/r", "//x"]) {
      t.feed.answer = () => Response.json({ tag_name: "v99.2.0", html_url: bad });
      const info = await checkUpdates(t.deps, { refresh: true });
      assertEquals([info.latest, info.url], ["99.2.0", undefined], bad);
    }
    await t.kv.set(keys.updatesCache(), {
      latest: "99.3.0",
      url: "javascript:alert(1)",
      checkedAt: t.clock.now(),
    });
    assertEquals((await checkUpdates(t.deps)).url, undefined, "a cached link from before");
  } finally {
    await t.close();
  }
});
