import { checkResponse } from "../lib/challenge/check.ts";
import { hostAllowed } from "../lib/challenge/records.ts";
import { createWidget, deleteWidget, siteverify } from "../lib/challenge/turnstile.ts";
import { ProviderError, type ProviderOptions } from "../lib/edge/provider.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { fakeCloudflare } from "./fakes/cloudflare.ts";
import { type FakeTurnstile, fakeTurnstile } from "./fakes/turnstile.ts";
import { serveFakes } from "./fakes/serve.ts";

const SPEC = { name: "Tollgate sign-in", domains: ["queue.example.com"], mode: "managed" as const };

/** A fake Turnstile on loopback and the two option sets our client uses against it. */
async function withFake(
  run: (f: FakeTurnstile, api: ProviderOptions, sv: ProviderOptions) => Promise<void>,
) {
  const fake = fakeTurnstile();
  const server = serveFakes(fake.handler);
  const base = { fetch: globalThis.fetch, timeoutMs: 200 };
  try {
    await run(
      fake,
      { ...base, baseUrl: `${server.url}/client/v4` },
      { ...base, baseUrl: `${server.url}/turnstile/v0/siteverify` },
    );
  } finally {
    await server.close();
  }
}

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  const e = await assertRejects(() => p);
  assert(e instanceof ProviderError, `expected a ProviderError, got ${e}`);
  return e;
}

Deno.test("turnstile client: createWidget posts name, domains and mode with the bearer token", async () => {
  await withFake(async (fake, api) => {
    const w = await createWidget(api, "tok-ok", "acc-1", SPEC);
    assert(w.sitekey.startsWith("0x4"), "a site key");
    assertEquals(fake.widgets.get(w.sitekey)?.secret, w.secret);
    const [call] = fake.log;
    assertEquals(call.method, "POST");
    assertEquals(call.path, "/client/v4/accounts/acc-1/challenges/widgets");
    assertEquals(call.authorization, "Bearer tok-ok");
    assertEquals(call.body, { name: SPEC.name, domains: SPEC.domains, mode: "managed" });
  });
});

Deno.test("turnstile client: widget API failures become ProviderErrors with operator hints", async () => {
  await withFake(async (fake, api) => {
    const bad = await providerError(createWidget(api, "tok-nope", "acc-1", SPEC));
    assertEquals([bad.provider, bad.kind, bad.status], ["cloudflare", "bad_token", 401]);
    assert(bad.message.includes("invalid, expired or revoked"), bad.message);
    assert(!bad.message.includes("tok-nope"), "the token is never in a message");
    const perm = await providerError(createWidget(api, "tok-noperm", "acc-1", SPEC));
    assertEquals(perm.kind, "forbidden");
    assert(perm.message.includes("lacks a permission"), perm.message);
    const acct = await providerError(createWidget(api, "tok-ok", "acc-404", SPEC));
    assertEquals(acct.kind, "not_found");
    fake.fail("widgets", "rate_limited");
    const rl = await providerError(createWidget(api, "tok-ok", "acc-1", SPEC));
    assertEquals([rl.kind, rl.retryAfterSeconds], ["rate_limited", 42]);
    fake.fail("widgets", "hang");
    assertEquals((await providerError(createWidget(api, "tok-ok", "acc-1", SPEC))).kind, "timeout");
    fake.fail("widgets", "unavailable");
    const down = await providerError(createWidget(api, "tok-ok", "acc-1", SPEC));
    assertEquals(down.kind, "unavailable");
    assertEquals(fake.widgets.size, 0, "no widget was made by any failed call");
  });
});

Deno.test("turnstile client: a token the provider echoes in an error is scrubbed, as on zone calls", async () => {
  const cf = fakeCloudflare();
  const server = serveFakes(cf.handler);
  const api = { baseUrl: `${server.url}/client/v4`, fetch: globalThis.fetch, timeoutMs: 2000 };
  const token = "Zk3v9QqLx2Tn8WmB4cYp7HdR1sUe6GaJ0fKoNiVt";
  try {
    const echo = {
      status: 400,
      code: 6111,
      message: "Invalid format for Authorization header {token}",
    };
    for (
      const call of [
        () => createWidget(api, token, "acc-1", SPEC),
        () => deleteWidget(api, token, "acc-1", "0x4AAA"),
      ]
    ) {
      cf.fail(echo);
      const e = await providerError(call());
      const text = JSON.stringify([e.message, e.providerErrors]);
      assert(text.includes("[token]") && !text.includes(token), text);
    }
  } finally {
    await server.close();
  }
});

Deno.test("turnstile client: deleteWidget removes the widget; a second delete is not_found", async () => {
  await withFake(async (fake, api) => {
    const w = await createWidget(api, "tok-ok", "acc-1", SPEC);
    await deleteWidget(api, "tok-ok", "acc-1", w.sitekey);
    assertEquals(fake.widgets.size, 0);
    assertEquals(fake.log.at(-1)?.method, "DELETE");
    const again = await providerError(deleteWidget(api, "tok-ok", "acc-1", w.sitekey));
    assertEquals(again.kind, "not_found");
  });
});

Deno.test("siteverify: form-encoded, answers success with hostname; a reused response is timeout-or-duplicate", async () => {
  await withFake(async (fake, api, sv) => {
    const w = await createWidget(api, "tok-ok", "acc-1", SPEC);
    const token = fake.solve(w.sitekey, "queue.example.com", "login");
    const ok = await siteverify(sv, w.secret, token, "203.0.113.5");
    assertEquals(ok.success, true);
    assertEquals(ok.hostname, "queue.example.com");
    assertEquals(ok.action, "login");
    assertEquals(ok["error-codes"], []);
    const call = fake.verifies()[0];
    assertEquals(call.contentType, "application/x-www-form-urlencoded");
    assertEquals(call.body, { secret: w.secret, response: token, remoteip: "203.0.113.5" });
    const dup = await siteverify(sv, w.secret, token, "203.0.113.5");
    assertEquals([dup.success, dup["error-codes"]], [false, ["timeout-or-duplicate"]]);
    // The documented idempotency key makes a retry of the same response safe.
    const t2 = fake.solve(w.sitekey, "queue.example.com");
    assertEquals((await siteverify(sv, w.secret, t2, undefined, "k-1")).success, true);
    assertEquals((await siteverify(sv, w.secret, t2, undefined, "k-1")).success, true);
    assertEquals((await siteverify(sv, w.secret, t2, undefined, "k-2")).success, false);
    assertEquals(fake.verifies()[2].body?.remoteip, undefined, "no remoteip when unknown");
  });
});

Deno.test("siteverify: wrong secret, unknown and missing responses are answers, not errors", async () => {
  await withFake(async (fake, api, sv) => {
    const w = await createWidget(api, "tok-ok", "acc-1", SPEC);
    const token = fake.solve(w.sitekey, "queue.example.com");
    assertEquals((await siteverify(sv, "0xwrong", token))["error-codes"], ["invalid-input-secret"]);
    assertEquals((await siteverify(sv, w.secret, "forged"))["error-codes"], [
      "invalid-input-response",
    ]);
    assertEquals((await siteverify(sv, w.secret, ""))["error-codes"], ["missing-input-response"]);
    assertEquals(
      (await siteverify(sv, w.secret, token)).success,
      true,
      "not consumed by the above",
    );
  });
});

Deno.test("siteverify: down, slow, rate limited or garbled becomes ProviderError(turnstile)", async () => {
  await withFake(async (fake, api, sv) => {
    const w = await createWidget(api, "tok-ok", "acc-1", SPEC);
    const token = fake.solve(w.sitekey, "queue.example.com");
    const cases = [
      ["unavailable", "unavailable"],
      ["hang", "timeout"],
      ["rate_limited", "rate_limited"],
      ["garbage", "unavailable"],
    ] as const;
    for (const [failure, kind] of cases) {
      fake.fail("siteverify", failure);
      const e = await providerError(siteverify(sv, w.secret, token));
      assertEquals([e.provider, e.kind], ["turnstile", kind], failure);
      assert(!e.message.includes(w.secret), "the secret is never in a message");
    }
  });
});

Deno.test("checkResponse: hostname must be one of the widget's (or a subdomain); internal-error retried once", async () => {
  await withFake(async (fake, api, sv) => {
    const w = await createWidget(api, "tok-ok", "acc-1", SPEC);
    const check = (host: string) =>
      checkResponse(sv, w.secret, fake.solve(w.sitekey, host), "1.2.3.4", SPEC.domains);
    assertEquals(await check("queue.example.com"), { ok: true, hostname: "queue.example.com" });
    assertEquals((await check("a.queue.example.com")).ok, true);
    const other = await check("evil.example");
    assert(!other.ok && other.why === "hostname" && other.hostname === "evil.example");
    fake.fail("siteverify", "internal-error");
    assertEquals((await check("queue.example.com")).ok, true);
    const [first, retry] = fake.verifies().slice(-2);
    assert(first.body?.idempotency_key, "an idempotency key is sent");
    assertEquals(retry.body?.idempotency_key, first.body?.idempotency_key, "the same key on retry");
    fake.fail("siteverify", "internal-error", 2);
    assertEquals((await providerError(check("queue.example.com"))).kind, "unavailable");
    const secret = await checkResponse(sv, "0xwrong", "x", "", SPEC.domains);
    assert(!secret.ok && secret.why === "secret");
    const before = fake.verifies().length;
    const empty = await checkResponse(sv, w.secret, "", "", SPEC.domains);
    assert(!empty.ok && empty.why === "response");
    assertEquals(fake.verifies().length, before, "no provider call for an empty response");
  });
});

Deno.test("hostAllowed: exact or subdomain, case-insensitive, never a lookalike suffix", () => {
  const d = ["example.com", "queue.other.org"];
  assert(hostAllowed("example.com", d));
  assert(hostAllowed("WWW.Example.com", d));
  assert(hostAllowed("queue.other.org.", d));
  assert(!hostAllowed("badexample.com", d));
  assert(!hostAllowed("other.org", d));
  assert(!hostAllowed(undefined, d));
});
