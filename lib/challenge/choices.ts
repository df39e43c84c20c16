/**
 * The setup choices that need no third party: "no edge network" (self-hosted behind a proxy, or
 * served directly) and the built-in challenge instead of Turnstile. Each is recorded as its setup
 * step (pending, like the Cloudflare steps), and replaces the other way of doing that step. Also
 * the way out when Turnstile cannot be reached: switching the live challenge to the built-in one.
 */
import { BadRequestError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { builtinChallenger, type BuiltinDeps } from "./builtin.ts";

/** The pending "no edge network" choice. */
export interface PendingEdgeNone {
  chosenAt: number;
}

/** The pending built-in challenge: chosen, with one puzzle solved. */
export interface PendingChallengeBuiltin {
  verifiedAt: number;
}

/** The live "no edge network" record: setup finished without an edge link. */
export interface EdgeNone {
  since: number;
}

/** The live built-in challenge record (sign-in, invite accept and recovery need a solution). */
export interface LiveBuiltin {
  liveAt: number;
}

/** Records "no edge network" as the edge step; a pending Cloudflare edge record is dropped. */
export async function chooseNoEdge(kv: Deno.Kv, now: number): Promise<void> {
  await kv.atomic()
    .set(keys.setupPendingEdgeNone(), { chosenAt: now } satisfies PendingEdgeNone)
    .delete(keys.setupPendingEdge())
    .commit();
}

/**
 * Records the built-in challenge as the challenge step, once `solution` solves a setup puzzle;
 * 400 `bad_request` (nothing recorded) otherwise. A pending Turnstile widget is dropped from setup.
 */
export async function chooseBuiltinChallenge(
  d: BuiltinDeps,
  solution: string,
  client: string,
): Promise<void> {
  if (!await builtinChallenger(d).check("setup", solution, client)) {
    throw new BadRequestError("the built-in challenge was not solved; solve a new one", {
      fields: [{ path: "solution", message: "does not solve the challenge" }],
    });
  }
  await d.kv.atomic()
    .set(
      keys.setupPendingChallengeBuiltin(),
      {
        verifiedAt: d.clock.now(),
      } satisfies PendingChallengeBuiltin,
    )
    .delete(keys.setupPendingChallenge())
    .commit();
}

/**
 * Makes the built-in challenge the live one and retires the Turnstile record (its widget stays
 * in the Cloudflare account until deleted there). `switched` is false when it already was live.
 */
export function switchToBuiltin(kv: Deno.Kv, now: number): Promise<{ switched: boolean }> {
  return retryCommit(async () => {
    const [ts, bi] = await kv.getMany([keys.challenge(), keys.challengeBuiltin()]);
    if (bi.value && !ts.value) return { switched: false };
    const ok = await kv.atomic().check(ts, bi)
      .set(keys.challengeBuiltin(), { liveAt: now } satisfies LiveBuiltin)
      .delete(keys.challenge())
      .commit();
    return ok.ok ? { switched: true } : null;
  }, "switch the challenge to the built-in one");
}
