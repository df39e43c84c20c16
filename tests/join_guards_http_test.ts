/**
 * The join guards through the served handler: the solve loop an API client runs, refusals with
 * their codes and no cookie, enqueue tokens in the body and on /wait, and the check page.
 */
import type { PowChallenge } from "../lib/challenge/pow.ts";
import { PowHasher } from "../lib/challenge/pow_hash.ts";
import { EnqueueTokens } from "../lib/guard/enqueue.ts";
import { writeJoinGuards } from "../lib/guard/settings.ts";
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";

const ENQUEUE_SECRET = "enqueue-secret-enqueue-secret-0123456789";

function post(t: TestApp, body: unknown, cookie?: string) {
  return t.fetch(
    new Request("http://tollgate.test/join", {
      method: "POST",
      headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    }),
    { remoteAddr: { transport: "tcp", hostname: "203.0.113.5", port: 1 } } as Deno.ServeHandlerInfo,
  );
}

async function rows(t: TestApp) {
  let n = 0;
  for await (const _ of t.kv.list({ prefix: keys.visitorPrefix("default") })) n++;
  return n;
}

Deno.test("HTTP join: challenge_required, solve, join; refusals set no cookie", async () => {
  const t = await makeApp();
  try {
    await writeJoinGuards(t.kv, "default", { challenge: "on", difficulty: 5000 });
    let r = await post(t, { queue: "default" });
    let body = await r.json();
    assertEquals([r.status, body.error.code], [403, "challenge_required"]);
    assertEquals(r.headers.get("set-cookie"), null);
    const ch: PowChallenge = body.error.details.challenge;
    const nonce = String(new PowHasher(ch.seed).search(ch.threshold, 0, 1e9));
    // A wrong nonce: challenge_failed, a fresh challenge, no cookie, no row.
    const h = new PowHasher(ch.seed);
    let bad = 0;
    while (h.solves(String(bad), ch.threshold)) bad++;
    r = await post(t, { queue: "default", proof: { challenge: ch.challenge, nonce: String(bad) } });
    body = await r.json();
    assertEquals([r.status, body.error.code, body.error.details.reason], [
      403,
      "challenge_failed",
      "not_solved",
    ]);
    assert(body.error.details.challenge.challenge !== ch.challenge);
    assertEquals(r.headers.get("set-cookie"), null);
    assertEquals(await rows(t), 0);
    r = await post(t, { queue: "default", proof: { challenge: ch.challenge, nonce: "x" } });
    assertEquals([r.status, (await r.json()).error.code], [400, "bad_request"]);
    r = await post(t, { queue: "default", proof: { challenge: ch.challenge, nonce } });
    body = await r.json();
    assertEquals([r.status, body.status], [200, "admitted"]);
    const cookie = r.headers.get("set-cookie")!;
    assert(cookie.includes("tg_ticket="));
    // Replayed from another client: refused, and a resume by ticket needs no solution.
    r = await post(t, { queue: "default", proof: { challenge: ch.challenge, nonce } });
    body = await r.json();
    assertEquals([r.status, body.error.details.reason], [403, "replayed"]);
    const ticket = cookie.split(";")[0];
    r = await post(t, { queue: "default" }, ticket);
    assertEquals(r.status, 200);
    assertEquals(await rows(t), 1);
  } finally {
    await t.services.guards.stats.idle();
    t.close();
  }
});

Deno.test("HTTP join and /wait: enqueue tokens, one place per key", async () => {
  const t = await makeApp({ ENQUEUE_SECRET });
  try {
    await writeJoinGuards(t.kv, "default", { requireEnqueueToken: true });
    const tokens = new EnqueueTokens(ENQUEUE_SECRET);
    const exp = Math.floor(t.clock.now() / 1000) + 600;
    let r = await post(t, { queue: "default" });
    assertEquals([r.status, (await r.json()).error.code], [403, "enqueue_token_required"]);
    r = await post(t, {
      queue: "default",
      enqueueToken: tokens.sign({ queue: "x", key: "k", exp }),
    });
    const body = await r.json();
    assertEquals([body.error.code, body.error.details.reason], [
      "enqueue_token_invalid",
      "wrong_queue",
    ]);
    assertEquals(r.headers.get("set-cookie"), null);
    const tok = tokens.sign({ queue: "default", key: "carol", exp });
    r = await post(t, { queue: "default", enqueueToken: tok });
    const first = await r.json();
    assertEquals(r.status, 200);
    // The same key on /wait from another browser: the same visitor.
    const page = await t.fetch(
      new Request(`http://tollgate.test/wait?enqueueToken=${encodeURIComponent(tok)}`),
    );
    assertEquals(page.status, 303);
    const set = page.headers.get("set-cookie") ?? "";
    const again = await post(t, { queue: "default" }, set.split(";")[0]);
    assertEquals((await again.json()).visitorId, first.visitorId);
    // /wait without a token: a plain page pointing back to the site, no cookie.
    const refused = await t.fetch(new Request("http://tollgate.test/wait"));
    assertEquals(refused.status, 403);
    assert((await refused.text()).includes("link from the site"));
    assertEquals(refused.headers.get("set-cookie"), null);
  } finally {
    await t.services.guards.stats.idle();
    t.close();
  }
});

Deno.test("/wait while the challenge is on: the check page, which says it needs JavaScript", async () => {
  const t = await makeApp();
  try {
    await writeJoinGuards(t.kv, "default", { challenge: "on" });
    const r = await t.fetch(new Request("http://tollgate.test/wait"));
    const html = await r.text();
    assertEquals(r.status, 200);
    assertEquals(r.headers.get("set-cookie"), null);
    assert(html.includes("<noscript>") && html.includes("needs JavaScript"), html);
    assert(html.includes('id="tg-check"'));
    assertEquals(await rows(t), 0);
  } finally {
    await t.services.guards.stats.idle();
    t.close();
  }
});
