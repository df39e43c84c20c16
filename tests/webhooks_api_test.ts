import { keys } from "../lib/store/keys.ts";
import { adminClient, loginAs, TEST_PASSWORD } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { startReceiver, verifySignature } from "./fixtures/https_receiver.ts";
import { Client, makeApp } from "./helpers.ts";

// The HTTP side of webhooks ; the sender itself is tested in webhooks_test.ts.

const SECRET = "whsec-receiver-shared-secret-42";

/** An app with a signed-in admin; the app's fetch trusts the test receiver's certificate. */
async function adminApp(
  rx: { fetch: typeof fetch },
  overrides: Parameters<typeof makeApp>[0] = {},
) {
  const t = await makeApp(overrides);
  t.services.fetch = rx.fetch;
  const { client } = await adminClient(t);
  return { t, client };
}

Deno.test("webhooks API: save, read and test-send; the secret never comes back", async () => {
  const rx = await startReceiver();
  const { t, client } = await adminApp(rx);
  try {
    for (
      const [m, p] of [["GET", "/api/admin/webhooks"], ["PUT", "/api/admin/webhooks"], [
        "POST",
        "/api/admin/webhooks/test",
      ]]
    ) {
      assertEquals(
        (await new Client(t.app).req(m, p, m === "GET" ? undefined : {})).status,
        401,
        p,
      );
    }
    const body = { enabled: true, url: rx.url, events: ["pause", "depth"], secret: SECRET };
    const put = await client.req("PUT", "/api/admin/webhooks", body);
    assertEquals(put.status, 200);
    const view = {
      enabled: true,
      url: rx.url,
      events: ["pause", "depth"],
      depthThreshold: 100,
      hasSecret: true,
    };
    assertEquals(put.json, view);
    assertEquals((await client.req("GET", "/api/admin/webhooks")).json, view);
    const state = await client.req("GET", "/api/admin/state");
    assertEquals(state.json.webhooks.hasSecret, true);
    for (const r of [put, state]) assert(!r.text.includes(SECRET), "secret in a response");

    const test = await client.req("POST", "/api/admin/webhooks/test");
    assertEquals(test.json, { delivered: true, status: 200 });
    assertEquals(rx.received.length, 1);
    const got = JSON.parse(rx.received[0].body);
    assertEquals([got.event, got.queue, got.at, got.detail], ["pause", "default", t.clock.now(), {
      paused: false,
      test: true,
    }]);
    assert(
      await verifySignature(
        SECRET,
        rx.received[0].body,
        rx.received[0].headers.get("x-service-signature"),
      ),
    );
    const audit = await client.req("GET", "/api/admin/audit");
    assert(!audit.text.includes(SECRET) && audit.text.includes("webhooks.save"), audit.text);
    const saved = audit.json.entries.find((e: { action: string }) => e.action === "webhooks.save");
    assertEquals(saved.detail.signingKeyChange, "set", "what happened to the secret is audited");

    // Keep (omitted), then clear (null).
    assertEquals(
      (await client.req("PUT", "/api/admin/webhooks", { ...body, secret: undefined })).json
        .hasSecret,
      true,
    );
    assertEquals(
      (await client.req("PUT", "/api/admin/webhooks", { ...body, secret: null })).json.hasSecret,
      false,
    );

    // The test send: another queue, an unknown queue, and no URL configured.
    assertEquals(
      (await client.req("POST", "/api/admin/webhooks/test", { queue: "nope" })).status,
      404,
    );
    assertEquals((await client.req("POST", "/api/admin/webhooks/test", { queue: 7 })).status, 400);
    await client.req("PUT", "/api/admin/webhooks", { enabled: false, url: "", events: [] });
    assertEquals((await client.req("POST", "/api/admin/webhooks/test", {})).json, {
      delivered: false,
      error: "no webhook URL configured",
    });
    assertEquals(rx.received.length, 1);
  } finally {
    t.close();
    await rx.close();
  }
});

Deno.test("webhooks API: invalid settings are 400 bad_request and change nothing", async () => {
  const rx = await startReceiver();
  const { t, client } = await adminApp(rx, { PUBLIC_URL: "https://queue.example.com" });
  try {
    const good = { enabled: true, url: rx.url, events: ["pause"] };
    // With PUBLIC_URL set, admin writes must come from its origin.
    const origin = { origin: "https://queue.example.com" };
    assertEquals((await client.req("PUT", "/api/admin/webhooks", good, origin)).status, 200);
    const before = await t.kv.get(keys.webhooks());
    for (
      const bad of [
        { ...good, url: rx.url.replace("https:", "http:") },
        { ...good, url: "" },
        { ...good, url: "https://localhost/hook" }, // the request's own host
        { ...good, url: "https://queue.example.com/hook" }, // PUBLIC_URL
        { ...good, url: "https://user:pw@hooks.example.com/" },
        { ...good, events: ["pause", "visitor"] },
        { ...good, depthThreshold: 0 },
        { ...good, depthThreshold: 1.5 },
        { ...good, secret: "" },
        { ...good, enabled: "yes" },
        { events: ["pause"] },
      ]
    ) {
      const r = await client.req("PUT", "/api/admin/webhooks", bad, origin);
      assertEquals([r.status, r.json?.error?.code], [400, "bad_request"], JSON.stringify(bad));
    }
    assertEquals((await t.kv.get(keys.webhooks())).versionstamp, before.versionstamp);
  } finally {
    t.close();
    await rx.close();
  }
});

Deno.test("webhooks API: an admin pause reaches the receiver through the wired sender", async () => {
  const rx = await startReceiver();
  const { t, client } = await adminApp(rx);
  // The sender app.ts built and wired, not a new one: this is what production runs.
  const hooks = t.services.webhooks;
  assert(t.services.events === hooks);
  try {
    await client.req("PUT", "/api/admin/webhooks", {
      enabled: true,
      url: rx.url,
      events: ["pause"],
    });
    assertEquals((await client.req("POST", "/api/admin/pause", { paused: true })).status, 200);
    await hooks.idle();
    assertEquals(rx.received.map((r) => JSON.parse(r.body).detail), [{ paused: true }]);
  } finally {
    await hooks.idle();
    t.close();
    await rx.close();
  }
});

Deno.test("webhooks API: an omitted depthThreshold keeps the stored one (like the secret)", async () => {
  const rx = await startReceiver();
  const { t, client } = await adminApp(rx);
  try {
    const body = { enabled: true, url: rx.url, events: ["depth"] };
    assertEquals((await client.req("PUT", "/api/admin/webhooks", body)).json.depthThreshold, 100);
    const set = await client.req("PUT", "/api/admin/webhooks", { ...body, depthThreshold: 7 });
    assertEquals(set.json.depthThreshold, 7);
    const kept = await client.req("PUT", "/api/admin/webhooks", { ...body, enabled: false });
    assertEquals([kept.status, kept.json.depthThreshold], [200, 7]);
    assertEquals((await client.req("GET", "/api/admin/webhooks")).json.depthThreshold, 7);
    const changed = await client.req("PUT", "/api/admin/webhooks", { ...body, depthThreshold: 9 });
    assertEquals(changed.json.depthThreshold, 9);
  } finally {
    t.close();
    await rx.close();
  }
});

Deno.test("webhooks API: after a TOKEN_SECRET rotation GET shows hasSecret false", async () => {
  const rx = await startReceiver();
  const { t, client } = await adminApp(rx);
  try {
    const body = { enabled: true, url: rx.url, events: ["pause"], secret: SECRET };
    assertEquals((await client.req("PUT", "/api/admin/webhooks", body)).json.hasSecret, true);
    const rotated = await makeApp({ TOKEN_SECRET: "another-secret-another-secret-0123456" }, {
      kv: t.kv,
      clock: t.clock,
    });
    const admin = await loginAs(rotated, "admin", TEST_PASSWORD); // sessions died with the secret
    const view = await admin.req("GET", "/api/admin/webhooks");
    assertEquals(view.status, 200);
    assertEquals([view.json.hasSecret, view.json.secretUnreadable], [false, true]);
    assertEquals((await admin.req("GET", "/api/admin/state")).json.webhooks.hasSecret, false);
    // The old app still reads it: the record is intact, only the key changed.
    assertEquals((await client.req("GET", "/api/admin/webhooks")).json.hasSecret, true);
  } finally {
    t.close();
    await rx.close();
  }
});

Deno.test("webhooks API: depth end to end: joins, a tick, one event per crossing at the receiver", async () => {
  const rx = await startReceiver();
  const { t, client } = await adminApp(rx);
  const hooks = t.services.webhooks;
  // The tick hands its waiting count to the depth check, which the sender tracks: idle() waits.
  const tickAndDeliver = async () => {
    t.clock.advance(1000); // one tick per second
    const out = await t.engine.tick("default");
    assert(out.ran, "the tick ran");
    await hooks.idle();
    return out.waiting;
  };
  const visitors: Client[] = [];
  const join = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const v = new Client(t.app);
      assertEquals((await v.join()).json.status, "waiting");
      visitors.push(v);
    }
  };
  const events = () => rx.received.map((r) => JSON.parse(r.body));
  try {
    const put = await client.req("PUT", "/api/admin/webhooks", {
      enabled: true,
      url: rx.url,
      events: ["depth"],
      depthThreshold: 3,
    });
    assertEquals(put.status, 200);
    // Paused, nobody is admitted, so the line only grows.
    assertEquals((await client.req("POST", "/api/admin/pause", { paused: true })).status, 200);

    await join(2);
    assertEquals(await tickAndDeliver(), 2);
    assertEquals(events(), [], "below the threshold");
    await join(1);
    assertEquals(await tickAndDeliver(), 3);
    assertEquals(events().length, 1);
    const [first] = events();
    assertEquals([first.event, first.queue, first.at], ["depth", "default", t.clock.now()]);
    assertEquals(first.detail, { waiting: 3, threshold: 3 });
    await join(1);
    assertEquals(await tickAndDeliver(), 4);
    assertEquals(events().length, 1, "still above: no second event");

    for (const v of visitors.splice(0, 2)) {
      const left = await v.req("POST", "/leave", { queue: "default", visitorId: v.visitorId });
      assertEquals(left.status, 200);
    }
    assertEquals(await tickAndDeliver(), 2);
    assertEquals(events().length, 1, "dropping below sends nothing, it re-arms");
    await join(1);
    assertEquals(await tickAndDeliver(), 3);
    assertEquals(events().map((e) => e.detail), [
      { waiting: 3, threshold: 3 },
      { waiting: 3, threshold: 3 },
    ]);
  } finally {
    await hooks.idle();
    t.close();
    await rx.close();
  }
});
