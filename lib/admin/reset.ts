import { deleteListed } from "../store/delete.ts";
import { keys } from "../store/keys.ts";

/**
 * Factory reset: clears admins and their sessions, invites and recovery, the edge link,
 * the challenge, pending setup, the origin override, webhook and turn e-mail (SMTP) settings. Queue state, branding,
 * the audit log and the secret stay. Sessions go first and the "claimed" flag last, so a reset cut
 * short leaves nothing usable half-cleared and can simply be run again.
 */
export async function resetService(kv: Deno.Kv): Promise<string[]> {
  await deleteListed(kv, { prefix: keys.adminSessions() });
  await deleteListed(kv, { prefix: keys.adminPrefix() }, { keep: (k) => k[1] === "claimed" });
  const settings = [
    keys.edge(),
    keys.edgeNone(),
    keys.challenge(),
    keys.challengeBuiltin(),
    keys.origin(),
  ];
  for (const k of [...settings, keys.webhooks(), keys.mailSettings(), keys.updatesCache()]) {
    await kv.delete(k);
  }
  await deleteListed(kv, { prefix: keys.setupPendingPrefix() });
  await deleteListed(kv, { prefix: keys.depthArmedPrefix() });
  await kv.delete(keys.adminClaimed());
  return [
    "admins",
    "sessions",
    "invites",
    "edge",
    "challenge",
    "setup",
    "origin",
    "webhooks",
    "mail",
  ];
}
