/**
 * The proof of work a resume needs while its queue is over its budget of wrong codes. A hard stop
 * there let ~120 addresses switch resume off for a whole queue (each wrong code counts for
 * everyone); instead, past the budget each try must carry a solved built-in challenge (the same
 * proof-of-work module as joins and admin sign-in, lib/challenge/pow.ts), bound to the caller's
 * address and the queue and accepted once. A real visitor's browser solves it in about a second;
 * a guesser pays that for every guess, on top of its own address's limit.
 */
import type { Clock, Random } from "../clock.ts";
import { ChallengeFailedError, ChallengeRequiredError } from "../challenge/errors.ts";
import { type PowChallenge, ProofOfWork, spendSolution } from "../challenge/pow.ts";

/**
 * Expected SHA-256 tries of a resume challenge: about a second in a laptop's browser, a few on a
 * phone; 2^40 codes then cost about 10^14 hashes per code found among 10,000 live ones.
 */
export const RESUME_DIFFICULTY = 1_000_000;

/** What checking a proof needs from the service. */
export interface ProofDeps {
  kv: Deno.Kv;
  clock: Clock;
  random: Random;
  config: { TOKEN_SECRET: string };
}

function challengeFor(pow: ProofOfWork, q: string, client: string): PowChallenge {
  return pow.issue({ purpose: "resume", scope: q, client }, RESUME_DIFFICULTY);
}

/**
 * Accepts `proof` (`{challenge, nonce}`) for one resume in `q` by `client` (the address as the
 * limits count it) and records it as used; else throws 403 `challenge_required` (none sent) or
 * `challenge_failed`, each with a fresh challenge in `details.challenge`.
 */
export async function requireResumeProof(
  d: ProofDeps,
  q: string,
  client: string,
  proof: unknown,
): Promise<void> {
  const pow = new ProofOfWork(d.config.TOKEN_SECRET, d.clock, d.random);
  if (proof === undefined || proof === null || proof === "") {
    throw new ChallengeRequiredError(
      `queue "${q}" had too many wrong resume codes this minute: moving a place needs a ` +
        "proof-of-work solution now (proof: {challenge, nonce} solving details.challenge)",
      { queue: q, challenge: challengeFor(pow, q, client), turnstile: null },
    );
  }
  try {
    const v = pow.verify(proof, {
      purpose: "resume",
      scope: q,
      client,
      minDifficulty: RESUME_DIFFICULTY,
    });
    await spendSolution(d.kv, v, d.clock.now());
  } catch (e) {
    if (!(e instanceof ChallengeFailedError)) throw e;
    throw e.with({ challenge: challengeFor(pow, q, client), turnstile: null });
  }
}
