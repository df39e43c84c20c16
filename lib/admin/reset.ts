import { keys } from "../store/keys.ts";

/** Deletes every entry under `prefix`, at most 500 per atomic op. */
async function deletePrefix(kv: Deno.Kv, prefix: Deno.KvKey): Promise<void> {
  let batch: Deno.KvKey[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const op = kv.atomic();
    for (const k of batch) op.delete(k);
    await op.commit();
    batch = [];
  };
  for await (const e of kv.list({ prefix })) {
    batch.push(e.key);
    if (batch.length >= 500) await flush();
  }
  await flush();
}

/**
 * Factory reset (SPEC 4.3): clears admins and their sessions, invites and recovery, the edge link,
 * the challenge, pending setup, the origin override and webhook settings. Queue state, branding,
 * the audit log and the secret stay. Sessions go first and the "claimed" flag last, so a reset cut
 * short leaves nothing usable half-cleared and can simply be run again.
 */
export async function resetService(kv: Deno.Kv): Promise<string[]> {
  await deletePrefix(kv, keys.adminSessions());
  for await (const e of kv.list({ prefix: keys.adminPrefix() })) {
    if (e.key[1] !== "claimed") await kv.delete(e.key);
  }
  for (
    const k of [keys.edge(), keys.challenge(), keys.setupPending(), keys.origin(), keys.webhooks()]
  ) {
    await kv.delete(k);
  }
  await deletePrefix(kv, keys.depthArmedPrefix());
  await kv.delete(keys.adminClaimed());
  return ["admins", "sessions", "invites", "edge", "challenge", "setup", "origin", "webhooks"];
}
