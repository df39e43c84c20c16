/** The proof-of-work module: issue, solve, verify, and each refusal reason; spent once in KV. */
import { createHash } from "node:crypto";
import { cryptoRandom, FakeClock } from "../lib/clock.ts";
import {
  addSpentRecord,
  isSpent,
  type PowChallenge,
  ProofOfWork,
  spendSolution,
} from "../lib/challenge/pow.ts";
import { ChallengeFailedError } from "../lib/challenge/errors.ts";
import { PowHasher, thresholdOf } from "../lib/challenge/pow_hash.ts";
import { assert, assertEquals } from "./assert.ts";

const SECRET = "test-secret-test-secret-test-secret-0123";
const to = { purpose: "join", scope: "default", client: "203.0.113.7" };

/** Solves with node's SHA-256 (an independent implementation of the documented rule). */
function solveWithNode(ch: PowChallenge): string {
  for (let n = 0;; n++) {
    const d = createHash("sha256").update(ch.seed + n).digest();
    if (d.readUInt32BE(0) < ch.threshold) return String(n);
  }
}

function reasonOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert(e instanceof ChallengeFailedError, `not a ChallengeFailedError: ${e}`);
    assertEquals(e.code, "challenge_failed");
    assertEquals(e.status, 403);
    return e.reason;
  }
  throw new Error("verify accepted");
}

Deno.test("a challenge solved by the documented rule verifies; its fields are bound", () => {
  const clock = new FakeClock();
  const pow = new ProofOfWork(SECRET, clock, cryptoRandom);
  const ch = pow.issue(to, 2000);
  assertEquals(ch.difficulty, 2000);
  assertEquals(ch.threshold, Math.floor(2 ** 32 / 2000));
  assertEquals(ch.expiresAt, clock.now() + 600_000);
  const nonce = solveWithNode(ch);
  const v = pow.verify({ challenge: ch.challenge, nonce }, to);
  assertEquals(v.seed, ch.seed);
  assertEquals(v.difficulty, 2000);
  // Our hasher agrees with node's on the solving nonce and on others.
  const h = new PowHasher(ch.seed);
  for (const n of [nonce, "0", "999999999999"]) {
    assertEquals(h.word(n), createHash("sha256").update(ch.seed + n).digest().readUInt32BE(0));
  }
});

Deno.test("each refusal has its own reason", () => {
  const clock = new FakeClock();
  const pow = new ProofOfWork(SECRET, clock, cryptoRandom);
  const ch = pow.issue(to, 500);
  const nonce = solveWithNode(ch);
  const ok = { challenge: ch.challenge, nonce };
  assertEquals(reasonOf(() => pow.verify(null, to)), "malformed");
  assertEquals(
    reasonOf(() => pow.verify({ challenge: ch.challenge, nonce: "-1" }, to)),
    "malformed",
  );
  assertEquals(reasonOf(() => pow.verify({ challenge: "a.b", nonce }, to)), "malformed");
  // Another difficulty written into the text: the signature no longer matches.
  const easier = ch.challenge.replace(".500.", ".1.");
  assertEquals(reasonOf(() => pow.verify({ challenge: easier, nonce }, to)), "forged");
  // Another service's secret, and the same challenge sent from another address.
  const other = new ProofOfWork(SECRET + "x", clock, cryptoRandom);
  assertEquals(reasonOf(() => other.verify(ok, to)), "forged");
  assertEquals(reasonOf(() => pow.verify(ok, { ...to, client: "198.51.100.1" })), "forged");
  assertEquals(reasonOf(() => pow.verify(ok, { ...to, scope: "shop" })), "wrong_scope");
  assertEquals(reasonOf(() => pow.verify(ok, { ...to, purpose: "signin" })), "wrong_purpose");
  assertEquals(reasonOf(() => pow.verify(ok, { ...to, minDifficulty: 501 })), "too_easy");
  // A nonce that does not solve it.
  const h = new PowHasher(ch.seed);
  let bad = 0;
  while (h.solves(String(bad), thresholdOf(500))) bad++;
  assertEquals(
    reasonOf(() => pow.verify({ challenge: ch.challenge, nonce: String(bad) }, to)),
    "not_solved",
  );
  pow.verify(ok, { ...to, minDifficulty: 500 });
  clock.advance(600_000);
  assertEquals(reasonOf(() => pow.verify(ok, to)), "expired");
});

Deno.test("a solution is spent once, in a caller's op or on its own, with an expiry", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new FakeClock();
    const pow = new ProofOfWork(SECRET, clock, cryptoRandom);
    const ch = pow.issue(to, 100);
    const v = pow.verify({ challenge: ch.challenge, nonce: solveWithNode(ch) }, to);
    assert(!(await isSpent(kv, v)));
    const op = kv.atomic().set(["other"], 1);
    addSpentRecord(op, v, clock.now());
    assert((await op.commit()).ok);
    assert(await isSpent(kv, v));
    // The same solution again: the op fails as a whole, and the standalone spend says replayed.
    const again = kv.atomic().set(["other2"], 1);
    addSpentRecord(again, v, clock.now());
    assert(!(await again.commit()).ok);
    assertEquals((await kv.get(["other2"])).value, null);
    const e = await spendSolution(kv, v, clock.now()).catch((e) => e);
    assert(e instanceof ChallengeFailedError && e.reason === "replayed", String(e));
    // A fresh challenge spends on its own.
    const ch2 = pow.issue(to, 100);
    await spendSolution(
      kv,
      pow.verify({ challenge: ch2.challenge, nonce: solveWithNode(ch2) }, to),
      clock.now(),
    );
  } finally {
    kv.close();
  }
});

Deno.test("the hasher's search finds the first solving nonce", () => {
  const pow = new ProofOfWork(SECRET, new FakeClock(), cryptoRandom);
  const ch = pow.issue(to, 3000);
  const h = new PowHasher(ch.seed);
  const found = h.search(ch.threshold, 0, 1_000_000);
  assertEquals(String(found), solveWithNode(ch));
  assertEquals(h.search(ch.threshold, 0, found), -1);
});
