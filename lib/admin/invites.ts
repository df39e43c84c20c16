import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";
import { hmac, randomId, randomToken } from "./secrets.ts";

/** Invites are valid for 72 hours. */
export const INVITE_TTL_MS = 72 * 3_600_000;

/** What the invite functions need: the store, the clock and the secret that keys tokens. */
export interface InviteDeps {
  kv: Deno.Kv;
  clock: Clock;
  config: { TOKEN_SECRET: string };
}

/** The admin who creates an invite. */
export interface InviteCreator {
  id: string;
  username: string;
}

/** A stored invite; the raw token is never stored, only its keyed hash. */
export interface InviteRecord {
  id: string;
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
  /** Username of the admin who created it (for display). */
  createdBy: string;
  /** Id of that admin: the invite dies with them. */
  createdById: string;
}

/** What the API shows of an invite (no token, no hash). */
export interface PublicInvite {
  id: string;
  createdAt: number;
  expiresAt: number;
  createdBy: string;
}

/**
 * The store key of an invite token: HMAC(TOKEN_SECRET, token), like session ids, so rotating the
 * secret leaves every pending invite unfindable (in spirit: all credentials die).
 */
export function inviteTokenHash(secret: string, token: string): string {
  return hmac(secret, "tollgate-invite", token);
}

/** The fields of an invite the API may show. */
export function publicInvite(i: InviteRecord): PublicInvite {
  return { id: i.id, createdAt: i.createdAt, expiresAt: i.expiresAt, createdBy: i.createdBy };
}

/** Creates an invite; the raw token is returned here once and never again. */
export async function createInvite(
  deps: InviteDeps,
  creator: InviteCreator,
): Promise<{ invite: PublicInvite; token: string }> {
  const token = randomToken(32);
  const now = deps.clock.now();
  const rec: InviteRecord = {
    id: randomId(),
    tokenHash: inviteTokenHash(deps.config.TOKEN_SECRET, token),
    createdAt: now,
    expiresAt: now + INVITE_TTL_MS,
    createdBy: creator.username,
    createdById: creator.id,
  };
  // KV expiry is a cleanup backstop on the real clock; validity is decided by `expiresAt`.
  const expireIn = INVITE_TTL_MS + 60_000;
  const res = await deps.kv.atomic()
    .check({ key: keys.adminInvite(rec.id), versionstamp: null })
    .set(keys.adminInvite(rec.id), rec, { expireIn })
    .set(keys.adminInviteToken(rec.tokenHash), rec.id, { expireIn })
    .commit();
  if (!res.ok) throw new Error("invite id collision");
  return { invite: publicInvite(rec), token };
}

/** Pending (unexpired) invites, oldest first, without tokens. */
export async function listInvites(kv: Deno.Kv, nowMs: number): Promise<PublicInvite[]> {
  const out: InviteRecord[] = [];
  for await (const e of kv.list<InviteRecord>({ prefix: keys.adminInvites() })) {
    if (e.value.expiresAt > nowMs) out.push(e.value);
  }
  return out.sort((a, b) => a.createdAt - b.createdAt).map(publicInvite);
}

/** Adds the deletion of an invite (record and token index) to an atomic op. */
function deleteInviteOps(op: Deno.AtomicOperation, rec: InviteRecord): Deno.AtomicOperation {
  return op.delete(keys.adminInvite(rec.id)).delete(keys.adminInviteToken(rec.tokenHash));
}

/**
 * Deletes every stored invite of the admin `creatorId` (expired ones too), in batches that stay
 * well under KV's 1000 mutations per atomic op; returns how many there were.
 */
export async function deleteInvitesOf(kv: Deno.Kv, creatorId: string): Promise<number> {
  const recs: InviteRecord[] = [];
  for await (const e of kv.list<InviteRecord>({ prefix: keys.adminInvites() })) {
    if (e.value.createdById === creatorId) recs.push(e.value);
  }
  for (let i = 0; i < recs.length; i += 250) {
    let op = kv.atomic();
    for (const r of recs.slice(i, i + 250)) op = deleteInviteOps(op, r);
    await op.commit();
  }
  return recs.length;
}

/** Revokes an invite; false when there is none with that id. */
export async function revokeInvite(kv: Deno.Kv, id: string): Promise<boolean> {
  const cur = await kv.get<InviteRecord>(keys.adminInvite(id));
  if (!cur.value) return false;
  await deleteInviteOps(kv.atomic(), cur.value).commit();
  return true;
}

/** The pending invite behind a raw token, or null (unknown, used, revoked or expired). */
export async function findInvite(
  deps: InviteDeps,
  token: string,
): Promise<Deno.KvEntry<InviteRecord> | null> {
  const idx = await deps.kv.get<string>(
    keys.adminInviteToken(inviteTokenHash(deps.config.TOKEN_SECRET, token)),
  );
  if (!idx.value) return null;
  const inv = await deps.kv.get<InviteRecord>(keys.adminInvite(idx.value));
  if (!inv.value || inv.value.expiresAt <= deps.clock.now()) return null;
  return inv as Deno.KvEntry<InviteRecord>;
}

/** Adds "use up this invite" to an atomic op, checked so it can be used only once. */
export function consumeInviteOps(
  op: Deno.AtomicOperation,
  inv: Deno.KvEntry<InviteRecord>,
): Deno.AtomicOperation {
  return deleteInviteOps(op.check(inv), inv.value);
}
