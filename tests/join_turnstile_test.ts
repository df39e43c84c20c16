/**
 * Turnstile on join, through the served handler against a fake Turnstile on loopback (our real
 * siteverify client): asked for, passed, refused, and when Turnstile cannot be reached, joins fall
 * back to the built-in proof of work.
 */
import type { PowChallenge } from "../lib/challenge/pow.ts";
import { PowHasher } from "../lib/challenge/pow_hash.ts";
import { writeJoinGuards } from "../lib/guard/settings.ts";
import { assert, assertEquals } from "./assert.ts";
import { challengeEnv, EDGE_HOST, goLive, plantPendingEdge } from "./fakes/turnstile_setup.ts";
import type { TestApp } from "./helpers.ts";

let n = 0;
/** POST /join from a fresh address (so per-address counts do not mix). */
async function join(t: TestApp, body: Record<string, unknown>) {
  const r = await t.fetch(
    new Request("http://tollgate.test/join", {
      method: "POST",
      headers: { "content-type": "application/json", "x-ip": `198.51.100.${++n}` },
      body: JSON.stringify({ queue: "default", ...body }),
    }),
  );
  return { status: r.status, json: await r.json(), cookie: r.headers.get("set-cookie") };
}

Deno.test("Turnstile on join: asked for, passed, refused; unreachable falls back to the built-in check", async () => {
  const env = await challengeEnv();
  try {
    await plantPendingEdge(env.t);
    const { siteKey } = await goLive(env);
    const t = env.t;
    await writeJoinGuards(t.kv, "default", {
      challenge: "on",
      provider: "turnstile",
      difficulty: 2000,
    });
    let r = await join(t, {});
    assertEquals([r.status, r.json.error.code], [403, "challenge_required"]);
    assertEquals(r.json.error.details.turnstile, { siteKey });
    assertEquals(r.json.error.details.challenge, null);
    r = await join(t, { turnstileResponse: "not-a-real-response" });
    assertEquals([r.status, r.json.error.code, r.json.error.details.reason], [
      403,
      "challenge_failed",
      "turnstile",
    ]);
    assertEquals(r.cookie, null);
    r = await join(t, { turnstileResponse: env.fake.solve(siteKey, EDGE_HOST) });
    assertEquals([r.status, r.json.status], [200, "admitted"]);
    // Turnstile down: the response cannot be checked, so the built-in challenge is asked for.
    env.fake.fail("siteverify", "unavailable", 4);
    r = await join(t, { turnstileResponse: env.fake.solve(siteKey, EDGE_HOST) });
    assertEquals([r.status, r.json.error.code, r.json.error.details.turnstile], [
      403,
      "challenge_required",
      null,
    ]);
    // While it is down, the built-in check alone lets visitors in.
    const ch: PowChallenge = (await join(t, {})).json.error.details.challenge;
    assert(ch !== null, "a built-in challenge while Turnstile is down");
    const nonce = String(new PowHasher(ch.seed).search(ch.threshold, 0, 1e9));
    const again = await t.fetch(
      new Request("http://tollgate.test/join", {
        method: "POST",
        headers: { "content-type": "application/json", "x-ip": `198.51.100.${n}` },
        body: JSON.stringify({ queue: "default", proof: { challenge: ch.challenge, nonce } }),
      }),
    );
    assertEquals(again.ok, true, `status ${again.status}`);
    await again.body?.cancel();
    // A minute later Turnstile is asked for again.
    t.clock.advance(61_000);
    r = await join(t, {});
    assertEquals(r.json.error.details.turnstile, { siteKey });
  } finally {
    await env.t.services.guards.stats.idle();
    await env.close();
  }
});
