/**
 * The built-in bot challenge as sign-in and the setup wizard use it: a puzzle the browser solves
 * and a server-side check of the solution. It is the seam to the shared proof-of-work module that
 * also guards joins; nothing here knows how a puzzle is made.
 *
 * PENDING: until that module is wired in here, `puzzle` answers `{ kind: "pending" }` and `check`
 * accepts any non-empty solution, so choosing the built-in challenge protects sign-in no more
 * than having no challenge at all (as before setup). The wire shapes stay the same once wired.
 */
import type { Clock } from "../clock.ts";

/** What a puzzle is for: each purpose gets its own puzzles, so one cannot stand in for another. */
export type BuiltinPurpose = "setup" | "signin";

/** What the browser needs to solve a puzzle (opaque JSON to everything but the solver). */
export type BuiltinPuzzle = { kind: string } & Record<string, unknown>;

/** The built-in challenge: puzzles out, solutions checked. */
export interface BuiltinChallenger {
  /** A fresh puzzle for `purpose`, bound to the caller's address `client`. */
  puzzle(purpose: BuiltinPurpose, client: string): Promise<BuiltinPuzzle>;
  /**
   * True when `solution` solves a puzzle issued for `purpose` to `client` (each solution counts
   * once).
   */
  check(purpose: BuiltinPurpose, solution: string, client: string): Promise<boolean>;
}

/** What the built-in challenge needs from the app. */
export interface BuiltinDeps {
  kv: Deno.Kv;
  clock: Clock;
  config: { TOKEN_SECRET: string };
}

/** The built-in challenge of this service (see the PENDING note above). */
export function builtinChallenger(_deps: BuiltinDeps): BuiltinChallenger {
  return {
    puzzle: () => Promise.resolve({ kind: "pending" }),
    check: (_purpose, solution) => Promise.resolve(solution.trim().length > 0),
  };
}
