import { FakeClock } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import { BadRequestError } from "../lib/errors.ts";
import { keys } from "../lib/store/keys.ts";
import { createWebhooks, type WebhookDeps } from "../lib/webhooks.ts";
import { OutboundGuard } from "../lib/outbound/guard.ts";
import {
  readWebhookSettings,
  saveWebhookSettings,
  type WebhookSettingsInput,
} from "../lib/webhooks_settings.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import {
  type Received,
  startReceiver,
  verifySignature,
  within,
} from "./fixtures/https_receiver.ts";

const SECRET = "whsec-receiver-shared-secret-42";
const config = testConfig();

/** In-memory KV, fake clock, a real HTTPS receiver and a sender whose log lines are kept. */
async function setup(
  respond?: (r: Received) => Response | Promise<Response>,
  extra: Partial<WebhookDeps> = {},
) {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const rx = await startReceiver(respond);
  const logs: string[] = [];
  const hooks = createWebhooks({
    kv,
    clock,
    fetch: rx.fetch,
    config,
    log: (l) => logs.push(l),
    ...extra,
  });
  const save = (input: Partial<WebhookSettingsInput> = {}) =>
    saveWebhookSettings(kv, config.TOKEN_SECRET, {
      enabled: true,
      url: rx.url,
      events: ["pause", "health", "depth"],
      secret: SECRET,
      ...input,
    });
  return {
    kv,
    clock,
    rx,
    hooks,
    logs,
    save,
    async close() {
      await hooks.idle();
      await rx.close();
      kv.close();
    },
  };
}

Deno.test("webhooks: emit returns before delivery; signed payload reaches a real HTTPS receiver", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  const t = await setup(async () => {
    await gate; // the receiver holds its answer until the test lets go
    return new Response("ok");
  });
  try {
    await t.save();
    t.clock.advance(1234);
    const at = t.clock.now();
    // Resolves although the receiver has not answered: delivery runs in the background.
    await within(
      2000,
      t.hooks.emit("pause", "default", { paused: true }),
      "emit waited for delivery",
    );
    t.clock.advance(60_000); // `at` is the emit time, not the delivery time
    release();
    await t.hooks.idle();
    assertEquals(t.rx.received.length, 1);
    const r = t.rx.received[0];
    assertEquals(r.method, "POST");
    assertEquals(r.path, "/hook");
    assert(r.headers.get("content-type")?.startsWith("application/json"), "content-type");
    assertEquals(JSON.parse(r.body), {
      event: "pause",
      queue: "default",
      at,
      detail: { paused: true },
    });
    const sig = r.headers.get("x-service-signature");
    assert(await verifySignature(SECRET, r.body, sig), "signature must verify with the secret");
    assert(!(await verifySignature("another-secret", r.body, sig)), "wrong secret must fail");
    assert(!(await verifySignature(SECRET, r.body + " ", sig)), "changed body must fail");
    assertEquals(t.logs, []);
  } finally {
    release();
    await t.close();
  }
});

Deno.test("webhooks: only subscribed events are sent; disabled sends nothing; no secret → unsigned", async () => {
  const t = await setup();
  try {
    await t.save({ events: ["health"], secret: null });
    await t.hooks.emit("pause", "default", { paused: true });
    await t.hooks.emit("health", "default", { enabled: true, url: "https://origin.example/up" });
    await t.hooks.checkDepth("default", 1000);
    await t.hooks.idle();
    assertEquals(t.rx.received.map((r) => JSON.parse(r.body).event), ["health"]);
    assertEquals(t.rx.received[0].headers.get("x-service-signature"), null);

    await t.save({ enabled: false });
    for (const e of ["pause", "health", "depth"] as const) await t.hooks.emit(e, "default", {});
    await t.hooks.checkDepth("other", 1000);
    await t.hooks.idle();
    assertEquals(t.rx.received.length, 1, "disabled webhooks sent something");
  } finally {
    await t.close();
  }
});

Deno.test("webhooks: a receiver that never answers is dropped at the timeout", async () => {
  let release!: () => void;
  const never = new Promise<void>((r) => release = r);
  const t = await setup(async () => {
    await never;
    return new Response("late");
  }, { timeoutMs: 300 });
  try {
    await t.save();
    const started = performance.now();
    await t.hooks.emit("pause", "default", { paused: false });
    await t.hooks.idle();
    const took = performance.now() - started;
    assert(took >= 250 && took < 3000, `idle after ${took} ms, expected about 300 ms`);
    assertEquals(t.rx.received.length, 1);
    assertEquals(t.logs.length, 1);
    assert(t.logs[0].includes("no answer within 300 ms"), t.logs[0]);
  } finally {
    release();
    await t.close();
  }
});

Deno.test("webhooks: a failing receiver gets exactly one request (no retries), logged without secrets", async () => {
  const t = await setup(() => new Response("boom", { status: 500 }));
  try {
    await t.save({ url: t.rx.url.replace("/hook", "/hook/tok3n-in-path") });
    await t.hooks.emit("pause", "default", { paused: true });
    await t.hooks.idle();
    assertEquals(t.rx.received.length, 1);
    assertEquals(t.logs.length, 1);
    const line = JSON.parse(t.logs[0]);
    assertEquals(line.status, 500);
    assertEquals(line.host, `127.0.0.1:${t.rx.port}`);
    assert(!t.logs[0].includes("tok3n") && !t.logs[0].includes(SECRET), t.logs[0]);
  } finally {
    await t.close();
  }
});

Deno.test("webhooks: depth fires once at the threshold, again only after dropping below", async () => {
  const t = await setup();
  try {
    await t.save({ events: ["depth"], depthThreshold: 5 });
    for (const w of [3, 4, 5, 9, 6, 5]) await t.hooks.checkDepth("default", w);
    await t.hooks.checkDepth("other", 5); // per queue
    for (const w of [4, 2, 7, 8]) await t.hooks.checkDepth("default", w);
    await t.hooks.idle();
    const sent = t.rx.received.map((r) => JSON.parse(r.body));
    // Deliveries run concurrently, so arrival order is not emission order.
    assertEquals(sent.map((p) => `${p.queue} ${p.detail.waiting}/${p.detail.threshold}`).sort(), [
      "default 5/5",
      "default 7/5",
      "other 5/5",
    ]);
    assert(sent.every((p) => p.event === "depth"));
  } finally {
    await t.close();
  }
});

Deno.test("webhooks: two instances on one KV fire a depth crossing once", async () => {
  const t = await setup();
  const other = createWebhooks({ kv: t.kv, clock: t.clock, fetch: t.rx.fetch, config });
  try {
    await t.save({ events: ["depth"], depthThreshold: 10 });
    await Promise.all([
      ...Array.from({ length: 8 }, () => t.hooks.checkDepth("default", 12)),
      ...Array.from({ length: 8 }, () => other.checkDepth("default", 12)),
    ]);
    await Promise.all([t.hooks.idle(), other.idle()]);
    assertEquals(t.rx.received.length, 1);
    assert((await t.kv.get(keys.depthArmed("default"))).versionstamp !== null);
  } finally {
    await other.idle();
    await t.close();
  }
});

Deno.test("webhooks: the secret is sealed in KV, hidden from reads, and unreadable after rotation", async () => {
  const t = await setup();
  try {
    const view = await t.save();
    assertEquals(view.hasSecret, true);
    assert(!JSON.stringify(view).includes(SECRET));
    const raw = await t.kv.get(keys.webhooks());
    const rawText = JSON.stringify(raw.value);
    assert(!rawText.includes(SECRET) && !rawText.includes(btoa(SECRET)), "secret readable in KV");
    assert(/"sealedSecret":"v1\./.test(rawText), rawText);
    assertEquals((await readWebhookSettings(t.kv, config.TOKEN_SECRET)).hasSecret, true);

    // Omitted keeps the secret; null clears it.
    assertEquals((await t.save({ secret: undefined })).hasSecret, true);
    assertEquals((await t.kv.get(keys.webhooks())).value, raw.value);
    assertEquals((await t.save({ secret: null })).hasSecret, false);
    await t.save();

    // The same KV read by an instance whose TOKEN_SECRET was rotated.
    const rotated = "rotated-secret-rotated-secret-rotated-99";
    const view2 = await readWebhookSettings(t.kv, rotated);
    assertEquals([view2.hasSecret, view2.secretUnreadable], [false, true]);
    const logs: string[] = [];
    const after = createWebhooks({
      kv: t.kv,
      clock: t.clock,
      fetch: t.rx.fetch,
      config: { ...config, TOKEN_SECRET: rotated },
      log: (l) => logs.push(l),
    });
    await after.emit("pause", "default", { paused: true });
    await after.idle();
    assertEquals(t.rx.received.length, 1);
    assertEquals(
      t.rx.received[0].headers.get("x-service-signature"),
      null,
      "signed with a bad key",
    );
    assertEquals(logs.length, 1);
    assert(logs[0].includes("unreadable") && !logs[0].includes(SECRET), logs[0]);
  } finally {
    await t.close();
  }
});

Deno.test("webhooks: settings refuse the service's own host:port and an enabled hook without URL", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const guard = new OutboundGuard(testConfig({ PUBLIC_URL: "https://queue.example.com" }));
    const own = (url: string) => guard.assertSavable(url, "http://localhost/api/admin/webhooks");
    const base = { enabled: true, events: ["pause" as const] };
    for (
      const url of [
        "https://localhost/hook", // 80 and 443 are one service behind a TLS proxy
        "https://LOCALHOST:443/x",
        "https://queue.example.com/hook",
        "https://queue.example.com:80/hook",
      ]
    ) {
      const e = await assertRejects(() =>
        saveWebhookSettings(kv, config.TOKEN_SECRET, { ...base, url }, own)
      );
      assert(e instanceof BadRequestError, `${url}: ${e}`);
    }
    await assertRejects(
      () => saveWebhookSettings(kv, config.TOKEN_SECRET, { ...base, url: "" }, own),
      "required",
    );
    assertEquals((await kv.get(keys.webhooks())).value, null, "a refused write stored something");
    for (const url of ["https://localhost:8443/hook", "https://hooks.example.com/x"]) {
      const v = await saveWebhookSettings(kv, config.TOKEN_SECRET, { ...base, url }, own);
      assertEquals([v.url, v.depthThreshold, v.hasSecret], [url, 100, false]);
    }
  } finally {
    kv.close();
  }
});
