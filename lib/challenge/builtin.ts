/**
 * The built-in bot challenge as sign-in and the setup wizard use it: the shared proof-of-work
 * module (pow.ts, which also guards joins) with its own purposes (`setup`, `signin`) and scope
 * (`admin`). A puzzle is bound to the caller's address and is accepted once (its solution is
 * recorded as spent across instances).
 */
import { type Clock, cryptoRandom } from "../clock.ts";
import { ChallengeFailedError } from "./errors.ts";
import { type PowChallenge, ProofOfWork, spendSolution } from "./pow.ts";

/** What a puzzle is for: each purpose gets its own puzzles, so one cannot stand in for another. */
export type BuiltinPurpose = "setup" | "signin";

/** What the browser needs to solve a puzzle: a proof-of-work challenge. */
export type BuiltinPuzzle = { kind: "pow" } & PowChallenge;

/**
 * Expected tries of a sign-in puzzle: a few hundredths of a second on a laptop, well under a
 * second on a phone; enough to make scripted password guessing cost work per try.
 */
export const SIGNIN_DIFFICULTY = 100_000;
/** How long a fetched puzzle may take to be solved and sent (a sign-in form being filled in). */
const PUZZLE_TTL_SECONDS = 900;
const SCOPE = "admin";

/** The built-in challenge: puzzles out, solutions checked. */
export interface BuiltinChallenger {
  /** A fresh puzzle for `purpose`, bound to the caller's address `client`. */
  puzzle(purpose: BuiltinPurpose, client: string): Promise<BuiltinPuzzle>;
  /**
   * True when `solution` (JSON `{challenge, nonce}`) solves a puzzle issued for `purpose` to
   * `client`; each solution counts once.
   */
  check(purpose: BuiltinPurpose, solution: string, client: string): Promise<boolean>;
}

/** What the built-in challenge needs from the app. */
export interface BuiltinDeps {
  kv: Deno.Kv;
  clock: Clock;
  config: { TOKEN_SECRET: string };
}

/** The built-in challenge of this service. */
export function builtinChallenger(d: BuiltinDeps): BuiltinChallenger {
  const pow = new ProofOfWork(d.config.TOKEN_SECRET, d.clock, cryptoRandom);
  return {
    puzzle: (purpose, client) =>
      Promise.resolve({
        kind: "pow",
        ...pow.issue({ purpose, scope: SCOPE, client }, SIGNIN_DIFFICULTY, PUZZLE_TTL_SECONDS),
      }),
    async check(purpose, solution, client) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(solution);
      } catch {
        return false;
      }
      try {
        const v = pow.verify(parsed, {
          purpose,
          scope: SCOPE,
          client,
          minDifficulty: SIGNIN_DIFFICULTY,
        });
        await spendSolution(d.kv, v, d.clock.now());
        return true;
      } catch (e) {
        if (e instanceof ChallengeFailedError) return false;
        throw e;
      }
    },
  };
}
