/**
 * Sign-in lock-out: failures on an account, from any address, make that account's sign-in need
 * the bot challenge (through `ChallengeGate.verify`'s `stepUp`), never a 429 for the right
 * password; the per-address limit stays. The gate here stands in for the built-in challenge: it
 * is configured for nobody, but asks a stepped-up sign-in for a solution.
 */
import type { ChallengeGate } from "../app.ts";
import { PowHasher } from "../lib/challenge/pow_hash.ts";
import { AdminClient, adminClient, TEST_PASSWORD } from "./admin_helpers.ts";
import { assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";

const SOLVED = "solved-puzzle";

/** A gate that challenges only stepped-up sign-ins, and counts how often it was asked to. */
function stepUpGate(t: TestApp) {
  const seen: boolean[] = [];
  const gate: ChallengeGate = {
    configured: () => Promise.resolve(false),
    verify: (response, _ip, opts) => {
      seen.push(opts?.stepUp ?? false);
      return Promise.resolve(!opts?.stepUp || response === SOLVED);
    },
  };
  t.services.challenge = gate;
  return seen;
}

Deno.test("login: 5 failures on an account from 5 addresses step its sign-in up to the challenge; the right password with a solution is 200, never 429", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-forwarded-for" });
  await adminClient(t);
  const seen = stepUpGate(t);
  const c = new AdminClient(t.app);
  let n = 0;
  // A new X-Forwarded-For value per try: the per-address limit never sees two from one address.
  const login = (password: string, username = "admin", challengeResponse?: string) =>
    c.req("POST", "/api/admin/login", { username, password, challengeResponse }, {
      "x-forwarded-for": `203.0.113.${++n}`,
    });
  for (let i = 0; i < 5; i++) assertEquals((await login("wrong password!")).status, 401);
  assertEquals(seen, [false, false, false, false, false]);
  for (let i = 0; i < 45; i++) {
    const r = await login(i % 2 ? "wrong password!" : TEST_PASSWORD);
    assertEquals([r.status, r.json.error.details], [401, {
      challenge: "required",
      kind: "builtin",
      reason: "account_failures",
    }], `try ${i}`);
  }
  const wrong = await login("wrong password!", "admin", SOLVED);
  assertEquals(wrong.status, 401, "a solution does not make a wrong password right");
  const ok = await login(TEST_PASSWORD, "admin", SOLVED);
  assertEquals(ok.status, 200);
  // The success forgets the failures: no challenge for the next sign-in.
  assertEquals((await login(TEST_PASSWORD)).status, 200);
  // Another account's failures are its own.
  for (let i = 0; i < 6; i++) await login("wrong password!", "someone-else");
  assertEquals((await login(TEST_PASSWORD)).status, 200, "admin is not stepped up");
  t.close();
});

Deno.test("login: the step-up lasts the window; the per-address limit still answers 429", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-ip" });
  await adminClient(t);
  stepUpGate(t);
  const c = new AdminClient(t.app);
  const login = (password: string, ip: string, challengeResponse?: string) =>
    c.req("POST", "/api/admin/login", { username: "admin", password, challengeResponse }, {
      "x-ip": ip,
    });
  for (let i = 0; i < 5; i++) await login("wrong password!", `198.51.100.${i}`);
  assertEquals((await login(TEST_PASSWORD, "198.51.100.9")).status, 401, "stepped up");
  t.clock.advance(15 * 60_000);
  assertEquals((await login(TEST_PASSWORD, "198.51.100.9")).status, 200, "a new window");
  // One address: 20 failures, then 429 before any check, also for the right password.
  for (let i = 0; i < 20; i++) await login("wrong password!", "192.0.2.1", SOLVED);
  const limited = await login(TEST_PASSWORD, "192.0.2.1", SOLVED);
  assertEquals([limited.status, limited.json.error.code], [429, "rate_limited"]);
  assertEquals((await login(TEST_PASSWORD, "192.0.2.2", SOLVED)).status, 200, "other address");
  t.close();
});

Deno.test("login: with no challenge set up, a stepped-up account asks the real gate for the built-in check", async () => {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-forwarded-for" });
  await adminClient(t);
  const c = new AdminClient(t.app);
  const ip = { "x-forwarded-for": "198.51.100.77" };
  const login = (password: string, challengeResponse?: string) =>
    c.req("POST", "/api/admin/login", { username: "admin", password, challengeResponse }, ip);
  for (let i = 0; i < 5; i++) assertEquals((await login("wrong password!")).status, 401);
  const asked = await login(TEST_PASSWORD);
  assertEquals([asked.status, asked.json.error.details.reason], [401, "account_failures"]);
  const puzzle = await c.req("GET", "/api/admin/challenge/puzzle?purpose=signin", undefined, ip);
  const nonce = new PowHasher(puzzle.json.seed).search(puzzle.json.threshold, 0, 1e9);
  const solution = JSON.stringify({ challenge: puzzle.json.challenge, nonce: String(nonce) });
  assertEquals((await login(TEST_PASSWORD, solution)).status, 200);
  // A success clears the account's failures: no check needed any more.
  assertEquals((await login(TEST_PASSWORD)).status, 200);
  t.close();
});

Deno.test("login: the app's retry with the check solved is not another failure of the address", async () => {
  const t = await makeApp();
  await adminClient(t);
  stepUpGate(t);
  const c = new AdminClient(t.app);
  const login = (challengeResponse?: string) =>
    c.req("POST", "/api/admin/login", {
      username: "admin",
      password: "wrong password!",
      challengeResponse,
    });
  // Five failures step the account up; each later try is a refusal for want of the check, then
  // the app's retry with it solved: one try as the operator sees it, counted once.
  for (let i = 0; i < 5; i++) assertEquals((await login()).status, 401);
  for (let i = 5; i < 20; i++) {
    assertEquals((await login()).json.error.details.challenge, "required", `try ${i + 1}`);
    assertEquals((await login(SOLVED)).status, 401, `try ${i + 1} with the check`);
  }
  const over = await login();
  assertEquals(over.status, 429, "the 21st try meets the address limit of 20");
  t.close();
});
