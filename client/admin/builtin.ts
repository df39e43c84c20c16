/// <reference lib="dom" />
/**
 * The built-in bot check in the browser: fetch a puzzle, solve it, hand back the solution the
 * server checks. It runs without a widget or a third party.
 *
 * PENDING: the shared proof-of-work solver plugs in here once its module is wired on the server;
 * until then the server's puzzle says `kind: "pending"` and any non-empty solution passes.
 */
import { api } from "./api.ts";

/** Solves a fresh built-in puzzle for `purpose`; resolves with the solution to send. */
export async function solveBuiltin(purpose: "setup" | "signin"): Promise<string> {
  const puzzle = await api<{ kind: string }>(
    "GET",
    `/api/admin/challenge/puzzle?purpose=${purpose}`,
  );
  if (puzzle.kind === "pending") return "pending";
  throw new Error(`This browser cannot solve the "${puzzle.kind}" check yet. Reload the page.`);
}
