/// <reference lib="dom" />
/**
 * The built-in bot check in the browser: fetch a puzzle (a proof-of-work challenge bound to this
 * browser's address), solve it with the shared solver, hand back the solution the server checks.
 * No widget, no third party.
 */
import { solve } from "../../islands/pow_solver.ts";
import { api } from "./api.ts";

/** Solves a fresh built-in puzzle for `purpose`; resolves with the solution to send. */
export async function solveBuiltin(purpose: "setup" | "signin"): Promise<string> {
  const puzzle = await api<{ kind: string; challenge: string; seed: string; threshold: number }>(
    "GET",
    `/api/admin/challenge/puzzle?purpose=${purpose}`,
  );
  if (puzzle.kind !== "pow") {
    throw new Error(`This page cannot solve the "${puzzle.kind}" check. Reload the page.`);
  }
  // On the page in short slices (no worker file for the admin app); it takes a moment.
  const nonce = await solve({ seed: puzzle.seed, threshold: puzzle.threshold }, undefined, () => {})
    .done;
  return JSON.stringify({ challenge: puzzle.challenge, nonce });
}
