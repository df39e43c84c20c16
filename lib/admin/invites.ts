import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";
import { randomId, randomToken, sha256 } from "./secrets.ts";

/** Invites are valid for 72 hours (SPEC 8). */
export const INVITE_TTL_MS = 72 * 3_600_000;

/** A stored invite; the raw token is never stored, only its SHA-256. */
export interface InviteRecord {
  id: string;
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
  /** Username of the admin who created it. */
  createdBy: string;
}

/** What the API shows of an invite (no token, no hash). */
export interface PublicInvite {
  id: string;
  createdAt: number;
  expiresAt: number;
  createdBy: string;
}

/** The store form of an invite token. */
export function inviteTokenHash(token: string): string {
  return sha256(`tollgate-invite\n${token}`);
}

/** The fields of an invite the API may show. */
export function publicInvite(i: InviteRecord): PublicInvite {
  return { id: i.id, createdAt: i.createdAt, expiresAt: i.expiresAt, createdBy: i.createdBy };
}

/** Creates an invite; the raw token is returned here once and never again. */
export async function createInvite(
  kv: Deno.Kv,
  clock: Clock,
  createdBy: string,
): Promise<{ invite: PublicInvite; token: string }> {
  const token = randomToken(32);
  const now = clock.now();
  const rec: InviteRecord = {
    id: randomId(),
    tokenHash: inviteTokenHash(token),
    createdAt: now,
    expiresAt: now + INVITE_TTL_MS,
    createdBy,
  };
  // KV expiry is a cleanup backstop on the real clock; validity is decided by `expiresAt`.
  const expireIn = INVITE_TTL_MS + 60_000;
  const res = await kv.atomic()
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

/** Revokes an invite; false when there is none with that id. */
export async function revokeInvite(kv: Deno.Kv, id: string): Promise<boolean> {
  const cur = await kv.get<InviteRecord>(keys.adminInvite(id));
  if (!cur.value) return false;
  await kv.atomic().delete(keys.adminInvite(id)).delete(keys.adminInviteToken(cur.value.tokenHash))
    .commit();
  return true;
}

/** The pending invite behind a raw token, or null (unknown, used, revoked or expired). */
export async function findInvite(
  kv: Deno.Kv,
  token: string,
  nowMs: number,
): Promise<Deno.KvEntry<InviteRecord> | null> {
  const idx = await kv.get<string>(keys.adminInviteToken(inviteTokenHash(token)));
  if (!idx.value) return null;
  const inv = await kv.get<InviteRecord>(keys.adminInvite(idx.value));
  if (!inv.value || inv.value.expiresAt <= nowMs) return null;
  return inv as Deno.KvEntry<InviteRecord>;
}

/** Adds "use up this invite" to an atomic op, checked so it can be used only once. */
export function consumeInviteOps(
  op: Deno.AtomicOperation,
  inv: Deno.KvEntry<InviteRecord>,
): Deno.AtomicOperation {
  return op.check(inv).delete(inv.key).delete(keys.adminInviteToken(inv.value.tokenHash));
}
