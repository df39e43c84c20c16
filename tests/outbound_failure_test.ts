/**
 * A failed delivery to an admin-chosen target says why, without its URL: the webhook test send
 * and its log line, and the health probe's `lastError`, name an untrusted certificate, a refused
 * connection or an unknown name, and so does the origin proxy's "origin unavailable" log line
 * (they said "fetch failed", so a receiver with a private CA's
 * certificate looked like one that was down). Real loopback servers, real `fetch`.
 */
import { FakeClock } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import { couldNotReach } from "../lib/outbound/failure.ts";
import { forward, OriginUnavailable } from "../lib/origin/forward.ts";
import { createWebhooks } from "../lib/webhooks.ts";
import { saveWebhookSettings } from "../lib/webhooks_settings.ts";
import { assert, assertEquals } from "./assert.ts";
import { startReceiver } from "./fixtures/https_receiver.ts";
import { adminClient } from "./admin_helpers.ts";
import { makeApp } from "./helpers.ts";

const config = testConfig();

/** A webhook sender over plain `fetch` (the system's trust store), with its log lines kept. */
async function sender(url: string) {
  const kv = await Deno.openKv(":memory:");
  const logs: string[] = [];
  const hooks = createWebhooks({
    kv,
    clock: new FakeClock(),
    fetch,
    config,
    timeoutMs: 3000,
    log: (l) => logs.push(l),
  });
  await saveWebhookSettings(kv, config.TOKEN_SECRET, {
    enabled: true,
    url,
    events: ["pause"],
    secret: "whsec-never-in-a-message-0001",
  });
  return { hooks, logs, kv };
}

/** A loopback port nothing listens on any more. */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("outbound failure: a receiver whose certificate is not trusted is named as such", async () => {
  const rx = await startReceiver(); // its certificate is the test CA's, unknown to plain fetch
  const s = await sender(`${rx.url}/tok3n-in-path?key=s3cret`);
  try {
    const out = await s.hooks.deliverTest("default", { paused: false, test: true });
    assertEquals(out.delivered, false);
    assert(
      out.error?.startsWith(`could not reach 127.0.0.1:${rx.port}: TLS certificate not trusted (`),
      String(out.error),
    );
    assertEquals(rx.received.length, 0, "no request got through");
    await s.hooks.idle();
    assertEquals(s.logs.length, 1);
    assertEquals(JSON.parse(s.logs[0]).error, out.error, "the log line says the same");
    for (const said of [out.error!, s.logs[0]]) {
      assert(!/tok3n|s3cret|whsec|\/hook/.test(said), `no path, query or secret: ${said}`);
    }
  } finally {
    await s.hooks.idle();
    s.kv.close();
    await rx.close();
  }
});

Deno.test("outbound failure: a closed port is a refused connection", async () => {
  const port = closedPort();
  const s = await sender(`https://127.0.0.1:${port}/hook?key=s3cret`);
  try {
    const out = await s.hooks.deliverTest("default", { paused: false, test: true });
    assert(
      out.error?.startsWith(`could not reach 127.0.0.1:${port}: connection refused (`),
      String(out.error),
    );
    assert(!out.error!.includes("s3cret"), out.error);
  } finally {
    await s.hooks.idle();
    s.kv.close();
  }
});

Deno.test("outbound failure: the test send's answer and its audit entry say why", async () => {
  const port = closedPort();
  const t = await makeApp();
  try {
    const { client } = await adminClient(t);
    const url = `https://127.0.0.1:${port}/hook/tok3n`;
    assertEquals(
      (await client.req("PUT", "/api/admin/webhooks", { enabled: true, url, events: ["pause"] }))
        .status,
      200,
    );
    const res = await client.req("POST", "/api/admin/webhooks/test", {});
    assertEquals(res.status, 200);
    assert(res.json.error.includes("connection refused"), res.text);
    const audit = await client.req("GET", "/api/admin/audit?limit=1");
    const entry = audit.json.entries[0];
    assertEquals([entry.action, entry.detail.delivered, entry.detail.error], [
      "webhooks.test",
      false,
      res.json.error,
    ]);
    assert(!JSON.stringify(entry).includes("tok3n"), JSON.stringify(entry));
  } finally {
    await t.services.webhooks.idle();
    t.close();
  }
});

Deno.test("outbound failure: the origin proxy's unreachable origin is logged with its reason", async () => {
  const port = closedPort();
  const req = new Request("http://localhost/shop/tok3n");
  const vr = { pathAndQuery: "/shop/tok3n", cookie: null, dropAuthorization: false, claims: null };
  const o = { fetch, timeoutMs: 3000, trustForwarded: false };
  const err = await forward(req, vr, `http://127.0.0.1:${port}`, null, o).catch((e) => e);
  assert(err instanceof OriginUnavailable, String(err));
  assertEquals(err.reason, "unreachable");
  assert(
    err.message.startsWith(`could not reach 127.0.0.1:${port}: connection refused (`),
    err.message,
  );
  assert(!err.message.includes("tok3n"), err.message);
});

Deno.test("outbound failure: the runtime's URL and addresses are cut, unknown reasons kept short", () => {
  const cause = new Error(
    "error sending request for url (https://h.example/p/tok3n?x=1): client error (Connect): " +
      "dns error: failed to lookup address information: Name or service not known",
  );
  assertEquals(
    couldNotReach(new TypeError("fetch failed", { cause }), "h.example"),
    "could not reach h.example: host name not found (dns error: failed to lookup address " +
      "information: Name or service not known)",
  );
  const odd = new TypeError("fetch failed", {
    cause: new Error("something new at https://h.example/secret/path\nsecond line"),
  });
  assertEquals(
    couldNotReach(odd, "h.example"),
    "could not reach h.example: something new at h.example",
  );
  assertEquals(couldNotReach(new TypeError("fetch failed"), "h"), "could not reach h");
  assert(couldNotReach(new Error("x".repeat(1000)), "h").length < 200, "bounded");
});
