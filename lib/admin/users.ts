import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { deleteInvitesOf } from "./invites.ts";

/** A stored admin account. Hashes never leave the store (see `publicUser`). */
export interface AdminUser {
  id: string;
  /** As typed at creation; unique case-insensitively. */
  username: string;
  /** `pbkdf2-sha256$<iterations>$<salt>$<hash>`. */
  passwordHash: string;
  /** Hash of the current recovery phrase. */
  recoveryHash: string;
  createdAt: number;
  passwordChangedAt: number;
  /** The ToS version this admin accepted last. */
  acceptedTosVersion: string;
  tosAcceptedAt: number;
}

/** What the API shows of an admin. */
export interface PublicUser {
  id: string;
  username: string;
  createdAt: number;
  acceptedTosVersion: string;
}

/** Usernames: 3 to 32 letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const USERNAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{2,31}$/;

/** The fields of a user that the API may show. */
export function publicUser(u: AdminUser): PublicUser {
  return {
    id: u.id,
    username: u.username,
    createdAt: u.createdAt,
    acceptedTosVersion: u.acceptedTosVersion,
  };
}

/** A user by id. */
export function getUser(kv: Deno.Kv, id: string): Promise<Deno.KvEntryMaybe<AdminUser>> {
  return kv.get<AdminUser>(keys.adminUser(id));
}

/** A user by username (case-insensitive), or null. */
export async function getUserByName(
  kv: Deno.Kv,
  username: string,
): Promise<Deno.KvEntry<AdminUser> | null> {
  const idx = await kv.get<string>(keys.adminUsername(username.toLowerCase()));
  if (!idx.value) return null;
  const u = await getUser(kv, idx.value);
  return u.value ? u as Deno.KvEntry<AdminUser> : null;
}

/** Every admin, oldest first (the team view and `/api/admin/state`). */
export async function listUsers(kv: Deno.Kv): Promise<PublicUser[]> {
  const out: AdminUser[] = [];
  for await (const e of kv.list<AdminUser>({ prefix: keys.adminUsers() })) out.push(e.value);
  return out.sort((a, b) => a.createdAt - b.createdAt || a.username.localeCompare(b.username)).map(
    publicUser,
  );
}

/** Adds the writes (and the free-username check) of a new user to an atomic op. */
export function addUserOps(op: Deno.AtomicOperation, user: AdminUser): Deno.AtomicOperation {
  const idx = keys.adminUsername(user.username.toLowerCase());
  return op.check({ key: idx, versionstamp: null }).check({
    key: keys.adminUser(user.id),
    versionstamp: null,
  }).set(keys.adminUser(user.id), user).set(idx, user.id);
}

/** Throws 409 `conflict` when the username is taken (after an atomic op lost its check). */
export async function assertUsernameFree(kv: Deno.Kv, username: string): Promise<void> {
  if ((await kv.get(keys.adminUsername(username.toLowerCase()))).value !== null) {
    throw new ConflictError("conflict", `username "${username}" is already taken`);
  }
}

/** Applies `change` to a user record with a check on its version; throws 404 if it is gone. */
export function updateUser(
  kv: Deno.Kv,
  id: string,
  change: (u: AdminUser) => AdminUser,
): Promise<AdminUser> {
  return retryCommit(async () => {
    const cur = await getUser(kv, id);
    if (!cur.value) throw new NotFoundError("not_found", `no admin with id "${id}"`);
    const next = change(cur.value);
    const res = await kv.atomic().check(cur).set(keys.adminUser(id), next).commit();
    return res.ok ? next : null;
  }, "update admin");
}

/** An admin just removed, with how many of their pending invites went with them. */
export interface RemovedUser {
  user: AdminUser;
  invitesDeleted: number;
}

/**
 * Removes admin `targetId` on behalf of `actorId`: never oneself (403), never the last admin
 * (409). Every user's version is checked, so two admins removing each other at once cannot
 * leave the service with none. The invites the target created die with the commit: accepting
 * one checks, in its own commit, that its creator still exists; they are deleted afterwards for
 * tidiness. The caller revokes the removed user's sessions.
 */
export async function removeUser(
  kv: Deno.Kv,
  actorId: string,
  targetId: string,
): Promise<RemovedUser> {
  if (actorId === targetId) throw new ForbiddenError("you cannot remove yourself");
  const user = await retryCommit(async () => {
    const all: Deno.KvEntry<AdminUser>[] = [];
    for await (const e of kv.list<AdminUser>({ prefix: keys.adminUsers() })) all.push(e);
    const target = all.find((e) => e.value.id === targetId);
    if (!target) throw new NotFoundError("not_found", `no admin with id "${targetId}"`);
    if (all.length <= 1) throw new ConflictError("conflict", "the last admin cannot be removed");
    let op = kv.atomic();
    // KV allows 100 checks per op; a team that large is far beyond what this service expects.
    for (const e of all.slice(0, 99)) op = op.check(e);
    const res = await op.delete(keys.adminUser(targetId))
      .delete(keys.adminUsername(target.value.username.toLowerCase())).commit();
    return res.ok ? target.value : null;
  }, "remove admin");
  return { user, invitesDeleted: await deleteInvitesOf(kv, targetId) };
}
