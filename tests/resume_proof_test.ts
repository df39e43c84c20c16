/**
 * A queue over its budget of wrong resume codes asks each try for a solved proof-of-work
 * challenge instead of refusing everyone: ~120 addresses guessing could otherwise switch resume
 * (and the turn e-mail's links) off for the whole queue. A real visitor solves one and moves its
 * place; a solution works once, for its own address and queue; the per-address limit still holds.
 */
import { countAttempt, RATE_LIMITS } from "../lib/admin/rate_limit.ts";
import { PowHasher } from "../lib/challenge/pow_hash.ts";
import type { PowChallenge } from "../lib/challenge/pow.ts";
import { CATALOGUES } from "../lib/i18n/catalogues.ts";
import { RESUME_DIFFICULTY } from "../lib/resume/proof.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, type TestApp } from "./helpers.ts";

const Q = "default";

/** A nonce solving `ch` (about a million tries at the resume difficulty). */
function solved(ch: PowChallenge): { challenge: string; nonce: string } {
  const n = new PowHasher(ch.seed).search(ch.threshold, 0, 64 * ch.difficulty);
  assert(n >= 0, "no nonce found");
  return { challenge: ch.challenge, nonce: String(n) };
}

/** A paused queue (everyone waits), a place and its code. */
async function withCode(): Promise<{ t: TestApp; a: Client; code: string }> {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-client-ip" });
  await t.engine.setPaused(Q, true);
  const a = new Client(t.app);
  await a.join();
  const r = await a.req("POST", "/resume/code", { queue: Q });
  assertEquals(r.status, 200, r.text);
  return { t, a, code: r.json.code };
}

const at = (ip: string) => ({ "x-client-ip": ip });

Deno.test("over the queue's budget: a try needs a solved challenge, and a real visitor gets through", async () => {
  const { t, a, code } = await withCode();
  try {
    // The attack: 12 addresses, 10 wrong codes each (each address's own budget), 120 in a minute.
    for (let i = 0; i < RATE_LIMITS.resumeQueue.max; i++) {
      const r = await new Client(t.app).req("POST", "/resume", { queue: Q, code: "2222-2222" }, {
        "x-client-ip": `203.0.113.${Math.floor(i / 10)}`,
      });
      assertEquals(r.status, 404, r.text);
    }
    const b = new Client(t.app);
    const asked = await b.req("POST", "/resume", { queue: Q, code }, at("198.51.100.20"));
    assertEquals([asked.status, asked.json.error.code], [403, "challenge_required"], asked.text);
    const ch = asked.json.error.details.challenge as PowChallenge;
    assertEquals(ch.difficulty, RESUME_DIFFICULTY);
    assertEquals(b.cookies.has("tg_ticket"), false, "nothing moved yet");

    // A solution fetched by another address is refused (bound to the asker), with a fresh one.
    const proof = solved(ch);
    const elsewhere = await new Client(t.app).req(
      "POST",
      "/resume",
      { queue: Q, code, proof },
      at("198.51.100.99"),
    );
    assertEquals([elsewhere.status, elsewhere.json.error.details.reason], [403, "forged"]);
    assert(elsewhere.json.error.details.challenge, "a fresh challenge comes with the refusal");
    // A wrong nonce: refused, a fresh challenge.
    const bad = await b.req("POST", "/resume", {
      queue: Q,
      code,
      proof: { challenge: ch.challenge, nonce: String(Number(proof.nonce) + 1) },
    }, at("198.51.100.20"));
    if (bad.status === 403) assertEquals(bad.json.error.code, "challenge_failed");

    const moved = await b.req("POST", "/resume", { queue: Q, code, proof }, at("198.51.100.20"));
    assertEquals(moved.status, 200, moved.text);
    assertEquals(moved.json.visitorId, a.visitorId);
    // The same solution works once.
    const again = await b.req("POST", "/resume", { queue: Q, code, proof }, at("198.51.100.20"));
    assertEquals([again.status, again.json.error.details.reason], [403, "replayed"]);
  } finally {
    t.close();
  }
});

Deno.test("the per-address limit still answers 429, proof or not; under the budget no proof is asked", async () => {
  const { t, code } = await withCode();
  try {
    const from = at("198.51.100.7");
    const guest = new Client(t.app);
    for (let i = 0; i < RATE_LIMITS.resumeIp.max; i++) {
      const r = await guest.req("POST", "/resume", { queue: Q, code: "2222-2222" }, from);
      assertEquals(r.status, 404, "under the queue's budget: no challenge");
    }
    for (let i = 0; i < RATE_LIMITS.resumeQueue.max; i++) {
      await countAttempt(t.kv, t.clock, "resumeQueue", Q);
    }
    const r = await guest.req("POST", "/resume", { queue: Q, code }, from);
    assertEquals(r.status, 429);
    // The next minute the queue's window starts afresh: no challenge asked.
    t.clock.advance(RATE_LIMITS.resumeQueue.windowMs);
    const ok = await new Client(t.app).req("POST", "/resume", { queue: Q, code }, at("192.0.2.1"));
    assertEquals(ok.status, 200, ok.text);
  } finally {
    t.close();
  }
});

Deno.test("the resume form (and so the turn e-mail's link) answers a check page, then moves with the solution", async () => {
  const { t, a, code } = await withCode();
  try {
    for (let i = 0; i < RATE_LIMITS.resumeQueue.max; i++) {
      await countAttempt(t.kv, t.clock, "resumeQueue", Q);
    }
    const b = new Client(t.app);
    const post = (fields: Record<string, string>) =>
      b.req("POST", "/wait/resume", new URLSearchParams({ queue: Q, code, ...fields }).toString(), {
        "content-type": "application/x-www-form-urlencoded",
        ...at("198.51.100.30"),
      });
    const page = await post({ return: "/shop?item=7" });
    assertEquals(page.status, 200, page.text.slice(0, 300));
    // The page the link asked for goes through the check with the form (it landed on "/").
    assert(page.text.includes("/shop?item=7"), "the check page keeps the page asked for");
    assert(page.text.includes(CATALOGUES.en["check.noscript"]), "the check page, not a refusal");
    assert(!page.text.includes(CATALOGUES.en["resume.tooMany"]), "not the old 'too many' stop");
    // The island sends the form again with the solution (the JSON text of proof).
    const asked = await b.req("POST", "/resume", { queue: Q, code }, at("198.51.100.30"));
    const proof = solved(asked.json.error.details.challenge);
    const moved = await post({ proof: JSON.stringify(proof), return: "/shop?item=7" });
    assertEquals(moved.status, 303, moved.text.slice(0, 300));
    assert(moved.headers.get("location")?.includes("shop"), moved.headers.get("location") ?? "");
    assert(b.cookies.has("tg_ticket"), "the place moved here");
    const view = await b.req("GET", `/status?queue=${Q}`);
    assertEquals(view.json.visitorId, a.visitorId);
  } finally {
    t.close();
  }
});

Deno.test("the per-address limit counts an IPv6 client by its /64: a fresh address per guess gains nothing", async () => {
  const { t, code } = await withCode();
  try {
    for (let i = 0; i < RATE_LIMITS.resumeIp.max; i++) {
      const r = await new Client(t.app).req("POST", "/resume", { queue: Q, code: "2222-2222" }, {
        "x-client-ip": `2001:db8:0:7::${(i + 1).toString(16)}`,
      });
      assertEquals(r.status, 404);
    }
    const sameNet = at("2001:db8:0:7:ffff:ffff:ffff:ffff");
    assertEquals(
      (await new Client(t.app).req("POST", "/resume", { queue: Q, code }, sameNet)).status,
      429,
    );
    const otherNet = at("2001:db8:0:8::1");
    assertEquals(
      (await new Client(t.app).req("POST", "/resume", { queue: Q, code }, otherNet)).status,
      200,
    );
  } finally {
    t.close();
  }
});
