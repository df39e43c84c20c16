// Joins a Tollgate queue whose bot check is on, the way an API client does: POST /join; on 403
// `challenge_required` (or `challenge_failed`, which carries a fresh challenge) solve
// `error.details.challenge` and POST /join again with `proof: {challenge, nonce}`.
//
// The rule: find a decimal nonce such that the first 4 bytes of SHA-256(seed + nonce), read as a
// big-endian unsigned number, are below `threshold` (= floor(2^32 / difficulty)): about
// `difficulty` tries. The nonce is at most 12 digits; the challenge expires at `expiresAt` and is
// accepted once. It is bound to your address: solve it from where you fetched it.
//
// Run (no dependencies):
//   deno run --allow-net docs/examples/pow_join.ts http://localhost:8000 default
//   node --experimental-strip-types docs/examples/pow_join.ts http://localhost:8000 default
// It prints the join's answer (status, position, ...) as JSON; keep the tg_ticket cookie it got
// (printed as `ticket`) for /status, /heartbeat and /leave.

import { createHash } from "node:crypto";
import process from "node:process";

interface Challenge {
  challenge: string;
  seed: string;
  threshold: number;
  difficulty: number;
  expiresAt: number;
}

/** Tries nonces 0, 1, 2, ... until one solves the challenge. */
export function solve(ch: Challenge): string {
  for (let n = 0; n < 1e12; n++) {
    const digest = createHash("sha256").update(ch.seed + n).digest();
    if (digest.readUInt32BE(0) < ch.threshold) return String(n);
  }
  throw new Error("no solution found");
}

/** POST /join until it is answered with a place (or a refusal that solving cannot fix). */
export async function join(base: string, queue: string, extra: Record<string, unknown> = {}) {
  let proof: { challenge: string; nonce: string } | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const res = await fetch(new URL("/join", base), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ queue, ...extra, ...(proof ? { proof } : {}) }),
    });
    const body = await res.json();
    if (res.ok) {
      const ticket = (res.headers.get("set-cookie") ?? "").match(/tg_ticket=([^;]+)/)?.[1];
      return { httpStatus: res.status, ...body, ticket };
    }
    const { code, details } = body.error;
    if ((code !== "challenge_required" && code !== "challenge_failed") || !details.challenge) {
      throw new Error(`join refused: ${res.status} ${code}: ${body.error.message}`);
    }
    const ch: Challenge = details.challenge;
    const started = Date.now();
    proof = { challenge: ch.challenge, nonce: solve(ch) };
    console.error(`solved difficulty ${ch.difficulty} in ${Date.now() - started} ms`);
  }
  throw new Error("join: too many challenges in a row");
}

if (import.meta.main ?? process.argv[1]?.endsWith("pow_join.ts")) {
  const [base = "http://localhost:8000", queue = "default"] = process.argv.slice(2);
  console.log(JSON.stringify(await join(base, queue)));
}
