/**
 * The join guards on the engine (real KV, fake clock): the proof-of-work challenge (modes,
 * refusals, spent once, concurrent replays, difficulty rising), and one place per enqueue key.
 * Every refused join leaves no row and no counter change.
 */
import type { PowChallenge } from "../lib/challenge/pow.ts";
import { PowHasher } from "../lib/challenge/pow_hash.ts";
import { AppError } from "../lib/errors.ts";
import { EnqueueTokens } from "../lib/guard/enqueue.ts";
import type { JoinGuards } from "../lib/guard/mod.ts";
import { type JoinGuardSettings, writeJoinGuards } from "../lib/guard/settings.ts";
import type { TicketClaims } from "../lib/tokens.ts";
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { commitCounter, makeApp, type TestApp } from "./helpers.ts";

const ENQUEUE_SECRET = "enqueue-secret-enqueue-secret-0123456789";
const IP = "203.0.113.9";

async function setup(guards: Partial<JoinGuardSettings> = {}) {
  const t = await makeApp({ ENQUEUE_SECRET, QUEUES: ["default", "shop"] });
  const g = t.services.guards;
  await writeJoinGuards(t.kv, "default", { challenge: "on", difficulty: 1000, ...guards });
  return { t, g };
}

/** Rows and counters of a queue: what a refused join must not change. */
async function snapshot(t: TestApp, q = "default") {
  let rows = 0;
  for await (const _ of t.kv.list({ prefix: keys.visitorPrefix(q) })) rows++;
  return { rows, counts: (await t.kv.get(keys.counts(q))).value };
}

function solve(ch: PowChallenge): string {
  return String(new PowHasher(ch.seed).search(ch.threshold, 0, 1e9));
}

/** A join through the guards, as the join path does it. */
async function join(
  g: JoinGuards,
  t: TestApp,
  body: { proof?: unknown; enqueueToken?: string; client?: string; queue?: string } = {},
  ticket: TicketClaims | null = null,
) {
  const q = body.queue ?? "default";
  const pass = await g.check({
    queue: q,
    client: body.client ?? IP,
    resuming: ticket !== null && ticket.queue === q,
    proof: body.proof,
    enqueueToken: body.enqueueToken,
  });
  return await t.engine.join(q, ticket, undefined, pass);
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(() => null, (e) => e);
  assert(e instanceof AppError, `expected a refusal, got ${e}`);
  return e;
}

Deno.test("challenge on: required, solved once, replays and foreign solutions refused", async () => {
  const { t, g } = await setup();
  try {
    const before = await snapshot(t);
    const req = await refusal(join(g, t));
    assertEquals([req.status, req.code], [403, "challenge_required"]);
    const ch = req.details.challenge as PowChallenge;
    assertEquals(ch.difficulty >= 1000, true);
    assertEquals(await snapshot(t), before, "a refused join changes nothing");
    const proof = { challenge: ch.challenge, nonce: solve(ch) };
    const out = await join(g, t, { proof });
    assertEquals(out.view.status, "admitted");
    assert((await t.kv.get(keys.powSpent(ch.seed))).value !== null, "spent record written");
    // The same solution again: replayed, with a fresh challenge to solve, and nothing written.
    const mid = await snapshot(t);
    const again = await refusal(join(g, t, { proof }));
    assertEquals([again.code, again.details.reason], ["challenge_failed", "replayed"]);
    assert((again.details.challenge as PowChallenge).challenge !== ch.challenge);
    assertEquals(await snapshot(t), mid);
    // Another queue's challenge, another client's, and a made-up nonce.
    // A queue with the challenge off (the default) asks nothing.
    assertEquals((await join(g, t, { queue: "shop" })).view.status, "admitted");
    const other = (await refusal(join(g, t))).details.challenge as PowChallenge;
    const otherProof = { challenge: other.challenge, nonce: solve(other) };
    await writeJoinGuards(t.kv, "shop", { challenge: "on", difficulty: 1000 });
    t.engine.ctx.invalidate("shop");
    assertEquals(
      (await refusal(join(g, t, { queue: "shop", proof: otherProof }))).details.reason,
      "wrong_scope",
    );
    assertEquals(
      (await refusal(join(g, t, { proof: otherProof, client: "198.51.100.4" }))).details.reason,
      "forged",
    );
    assertEquals(
      (await refusal(join(g, t, { proof: { challenge: other.challenge, nonce: "x" } }))).details
        .reason,
      "malformed",
    );
    t.clock.advance(601_000);
    assertEquals((await refusal(join(g, t, { proof: otherProof }))).details.reason, "expired");
    assertEquals(await snapshot(t), mid);
    const stats = await g.stats.lastHour("default");
    assertEquals(stats.challengesSolved, 2, "verified: the first and its replay");
    assertEquals(
      stats.challengesFailed,
      4,
      "replayed, forged, malformed, expired (wrong_scope: shop)",
    );
    assert(stats.challengesIssued >= 6, JSON.stringify(stats));
  } finally {
    await g.stats.idle();
    t.close();
  }
});

Deno.test("one solution sent by many joins at once takes one place", async () => {
  const { t, g } = await setup();
  try {
    const ch = (await refusal(join(g, t))).details.challenge as PowChallenge;
    const proof = { challenge: ch.challenge, nonce: solve(ch) };
    const all = await Promise.allSettled(Array.from({ length: 8 }, () => join(g, t, { proof })));
    assertEquals(all.filter((r) => r.status === "fulfilled").length, 1);
    for (const r of all) {
      if (r.status === "rejected") assertEquals((r.reason as AppError).details.reason, "replayed");
    }
    assertEquals((await snapshot(t)).rows, 1);
  } finally {
    await g.stats.idle();
    t.close();
  }
});

Deno.test("a resumed ticket needs no solution; off and automatic modes", async () => {
  const { t, g } = await setup({ challenge: "off" });
  try {
    const first = await join(g, t);
    const claims = (await t.services.signer.verifyTicket(first.ticket))!;
    await writeJoinGuards(t.kv, "default", { challenge: "on" });
    t.engine.ctx.invalidate("default");
    const again = await join(g, t, {}, claims);
    assertEquals(again.view.visitorId, first.view.visitorId);
    // Automatic: off below both thresholds, on once the line is over one.
    await writeJoinGuards(t.kv, "default", { challenge: "auto", autoWaiting: 3 });
    t.engine.ctx.invalidate("default");
    await t.engine.setPaused("default", true); // nobody admitted: the line grows
    for (let i = 0; i < 3; i++) await join(g, t);
    t.clock.advance(1000); // the engine's view of the line is at most a second old
    assertEquals((await refusal(join(g, t))).code, "challenge_required");
    // The join rate: a burst switches it on, and it stays on 5 minutes after the burst.
    await writeJoinGuards(t.kv, "shop", { challenge: "auto", autoJoinsPerMinute: 150 });
    t.engine.ctx.invalidate("shop");
    await join(g, t, { queue: "shop" });
    await join(g, t, { queue: "shop" }); // 2 in a second: 120 a minute
    // The third attempt in that second: 180 a minute.
    assertEquals((await refusal(join(g, t, { queue: "shop" }))).code, "challenge_required");
    t.clock.advance(4 * 60_000);
    assertEquals((await refusal(join(g, t, { queue: "shop" }))).code, "challenge_required");
    t.clock.advance(5 * 60_000 + 1000);
    assertEquals((await join(g, t, { queue: "shop" })).view.status, "admitted");
  } finally {
    await g.stats.idle();
    t.close();
  }
});

Deno.test("difficulty rises with the client's own attempts, not another client's", async () => {
  const { t, g } = await setup();
  try {
    const d = async (client: string) =>
      ((await refusal(join(g, t, { client }))).details.challenge as PowChallenge).difficulty;
    const first = await d(IP);
    for (let i = 0; i < 100; i++) await d(IP);
    // Past the join-rate window (the burst itself raised everyone's difficulty for a moment).
    t.clock.advance(3000);
    const later = await d(IP);
    assert(later >= first * 4, `${first} -> ${later}`);
    assertEquals(await d("198.51.100.77"), first);
  } finally {
    await g.stats.idle();
    t.close();
  }
});

Deno.test("free attempts do not raise the price; joins that paid do", async () => {
  const { t, g } = await setup({ autoJoinsPerMinute: 600 });
  try {
    const challenge = async (client: string) =>
      (await refusal(join(g, t, { client }))).details.challenge as PowChallenge;
    const base = (await challenge("198.51.100.1")).difficulty;
    // 200 attempts in a second from 200 addresses, none answering: 12,000 a minute, 20 times
    // the threshold, and still the base price for the next newcomer.
    for (let i = 0; i < 200; i++) await challenge(`198.51.100.${i}`);
    assertEquals((await challenge("203.0.113.200")).difficulty, base);
    // 30 paid joins in the next second (1,800 a minute, 3 times the threshold): dearer for all.
    t.clock.advance(1000);
    for (let i = 0; i < 30; i++) {
      const ch = await challenge(`192.0.2.${i}`);
      await join(g, t, {
        client: `192.0.2.${i}`,
        proof: { challenge: ch.challenge, nonce: solve(ch) },
      });
    }
    const after = (await challenge("203.0.113.201")).difficulty;
    assert(after >= base * 1.4, `${base} -> ${after}`);
  } finally {
    await g.stats.idle();
    t.close();
  }
});

Deno.test("enqueue tokens: required, each refusal its reason, one place per key", async () => {
  const { t, g } = await setup({ challenge: "off", requireEnqueueToken: true });
  try {
    const tokens = new EnqueueTokens(ENQUEUE_SECRET);
    const exp = Math.floor(t.clock.now() / 1000) + 600;
    const before = await snapshot(t);
    const reason = async (enqueueToken?: string) => {
      const e = await refusal(join(g, t, { enqueueToken }));
      return e.code === "enqueue_token_invalid" ? e.details.reason : e.code;
    };
    assertEquals(await reason(), "enqueue_token_required");
    assertEquals(await reason("nope"), "malformed");
    assertEquals(
      await reason(new EnqueueTokens("x".repeat(40)).sign({ queue: "default", key: "a", exp })),
      "forged",
    );
    assertEquals(
      await reason(tokens.sign({ queue: "default", key: "a", exp: exp - 700 })),
      "expired",
    );
    assertEquals(await reason(tokens.sign({ queue: "shop", key: "a", exp })), "wrong_queue");
    assertEquals(await snapshot(t), before);
    assertEquals((await g.stats.lastHour("default")).enqueueTokensRefused, 5);

    const alice = tokens.sign({ queue: "default", key: "alice", exp });
    const a1 = await join(g, t, { enqueueToken: alice });
    // Another browser (no ticket), same key: the same place, and a ticket for it.
    const a2 = await join(g, t, { enqueueToken: alice });
    assertEquals(a2.view.visitorId, a1.view.visitorId);
    assertEquals((await t.services.signer.verifyTicket(a2.ticket))?.sub, a1.view.visitorId);
    assertEquals((await snapshot(t)).rows, 1);
    // Many browsers at once with one new key: one place.
    const bob = tokens.sign({ queue: "default", key: "bob", exp });
    const bobs = await Promise.all(
      Array.from({ length: 6 }, () => join(g, t, { enqueueToken: bob })),
    );
    assertEquals(new Set(bobs.map((b) => b.view.visitorId)).size, 1);
    assertEquals((await snapshot(t)).rows, 2);
    // After leaving, the key joins again (a new place).
    const claims = (await t.services.signer.verifyTicket(a1.ticket))!;
    await t.engine.leave("default", claims, claims.sub);
    const a3 = await join(g, t, { enqueueToken: alice });
    assert(a3.view.visitorId !== a1.view.visitorId);
    assertEquals((await snapshot(t)).rows, 2);
  } finally {
    await g.stats.idle();
    t.close();
  }
});

Deno.test("a guarded join is one commit: its spent solution and enqueue key ride in it", async () => {
  const { t, g } = await setup({ requireEnqueueToken: true });
  try {
    const tokens = new EnqueueTokens(ENQUEUE_SECRET);
    const enqueueToken = tokens.sign({
      queue: "default",
      key: "dave",
      exp: Math.floor(t.clock.now() / 1000) + 600,
    });
    const ch = (await refusal(join(g, t, { enqueueToken }))).details.challenge as PowChallenge;
    const pass = await g.check({
      queue: "default",
      client: IP,
      resuming: false,
      proof: { challenge: ch.challenge, nonce: solve(ch) },
      enqueueToken,
    });
    assertEquals(pass.records.length, 1);
    assert(pass.enqueueKey !== undefined);
    await g.stats.idle(); // the statistics' own writes are not the join's
    const commits = commitCounter(t.kv);
    await t.engine.join("default", null, undefined, pass);
    assertEquals(commits.count, 1);
    assert((await t.kv.get(keys.powSpent(ch.seed))).value !== null);
    assertEquals(
      (await t.kv.get(keys.enqueueKey("default", pass.enqueueKey!))).versionstamp !== null,
      true,
    );
  } finally {
    await g.stats.idle();
    t.close();
  }
});
