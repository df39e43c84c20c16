/**
 * The control room's view of the bot challenge (`GET /api/admin/state` → `challenge`): whether
 * it is live and its public site key. Never the secret.
 */
import { z } from "@hono/zod-openapi";
import type { ChallengeGate } from "../../lib/services.ts";
import { readLiveChallenge } from "../../lib/challenge/records.ts";

/** Schema of the view. */
export const ChallengeState = z.object({
  configured: z.boolean().openapi({
    description: "live: login, invite accept and recovery need a challenge response",
  }),
  siteKey: z.string().nullable().openapi({ description: "the live widget's public site key" }),
}).openapi("ChallengeState");

/** Reads the view: `configured` from the gate, the site key from the live record. */
export async function challengeState(
  s: { kv: Deno.Kv; challenge: ChallengeGate },
): Promise<z.infer<typeof ChallengeState>> {
  const [configured, live] = await Promise.all([
    s.challenge.configured(),
    readLiveChallenge(s.kv),
  ]);
  return { configured, siteKey: live?.siteKey ?? null };
}
