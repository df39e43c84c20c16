import { BadRequestError, ForbiddenError, UnauthorizedError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import type { NewAccount } from "./accounts.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import { generatePhrase, hashPhrase, verifyPhrase } from "./recovery.ts";
import { deleteInvitesOf } from "./invites.ts";
import {
  newSession,
  revokeUserSessions,
  type SessionDeps,
  type SessionRecord,
} from "./sessions.ts";
import { type AdminUser, getUser, getUserByName, publicUser } from "./users.ts";

/** Reads a user and checks its password; 403 `forbidden` when it is wrong (the session is fine). */
async function checkedUser(
  deps: SessionDeps,
  userId: string,
  password: string,
): Promise<Deno.KvEntry<AdminUser>> {
  const entry = await getUser(deps.kv, userId);
  if (!entry.value) throw new UnauthorizedError("admin session required");
  if (!(await verifyPassword(password, entry.value.passwordHash))) {
    throw new ForbiddenError("current password is wrong");
  }
  return entry as Deno.KvEntry<AdminUser>;
}

/**
 * Changes an admin's password after checking the current one. The current session (stored under
 * `sessionHash`) gets a new id in the same atomic op (the old id stops working, so an id that
 * leaked before the change is worthless), then every other session of that admin ends. Returns
 * the new raw session id for the cookie.
 */
export async function changePassword(
  deps: SessionDeps,
  userId: string,
  sessionHash: string,
  input: { currentPassword: string; newPassword: string },
): Promise<string> {
  if (input.currentPassword === input.newPassword) {
    throw new BadRequestError("the new password must differ from the current one", {
      fields: [{ path: "newPassword", message: "must differ from the current password" }],
    });
  }
  const passwordHash = await hashPassword(input.newPassword);
  const fresh = await retryCommit(async () => {
    const entry = await checkedUser(deps, userId, input.currentPassword);
    const oldKey = keys.adminSession(sessionHash);
    const cur = await deps.kv.get<SessionRecord>(oldKey);
    // Signed out (or revoked) while the password was being hashed.
    if (!cur.value) throw new UnauthorizedError("admin session required (sign in again)");
    const next = { ...entry.value, passwordHash, passwordChangedAt: deps.clock.now() };
    const session = newSession(deps, userId, cur.value.createdAt);
    const op = deps.kv.atomic().check(entry).check(cur).set(keys.adminUser(userId), next)
      .delete(oldKey);
    const res = await session.addTo(op).commit();
    return res.ok ? session : null;
  }, "change password");
  await revokeUserSessions(deps.kv, userId, fresh.hash);
  return fresh.id;
}

/**
 * Resets a password with the recovery phrase. The used phrase is replaced by a new one in the
 * same checked write, so it works once; all existing sessions and pending invites of the admin
 * end and a new session starts. Unknown usernames and wrong phrases answer 401 alike.
 */
export async function recoverAccount(
  deps: SessionDeps,
  input: {
    username: string;
    recoveryPhrase: string;
    newPassword: string;
  },
): Promise<NewAccount & { invitesDeleted: number }> {
  const wrong = () => new UnauthorizedError("wrong username or recovery phrase");
  const first = await getUserByName(deps.kv, input.username);
  if (!first || !verifyPhrase(first.value.id, input.recoveryPhrase, first.value.recoveryHash)) {
    throw wrong();
  }
  const passwordHash = await hashPassword(input.newPassword);
  const phrase = generatePhrase();
  const out = await retryCommit(async () => {
    const entry = await getUser(deps.kv, first.value.id);
    // Re-checked on the fresh record: a concurrent recovery may have used the phrase already.
    if (
      !entry.value || !verifyPhrase(entry.value.id, input.recoveryPhrase, entry.value.recoveryHash)
    ) {
      throw wrong();
    }
    const now = deps.clock.now();
    const next: AdminUser = {
      ...entry.value,
      passwordHash,
      passwordChangedAt: now,
      recoveryHash: hashPhrase(entry.value.id, phrase),
    };
    const session = newSession(deps, next.id);
    const op = deps.kv.atomic().check(entry).set(keys.adminUser(next.id), next);
    const res = await session.addTo(op).commit();
    return res.ok ? { user: next, session } : null;
  }, "recover account");
  await revokeUserSessions(deps.kv, out.user.id, out.session.hash);
  // A recovery often follows a lost or stolen password: links handed out meanwhile go too.
  const invitesDeleted = await deleteInvitesOf(deps.kv, out.user.id);
  return {
    user: publicUser(out.user),
    sessionId: out.session.id,
    phrase,
    invitesDeleted,
  };
}

/** Replaces an admin's recovery phrase after checking the password; returns the new one once. */
export async function regenerateRecovery(
  deps: SessionDeps,
  userId: string,
  currentPassword: string,
): Promise<string> {
  const phrase = generatePhrase();
  await retryCommit(async () => {
    const entry = await checkedUser(deps, userId, currentPassword);
    const next = { ...entry.value, recoveryHash: hashPhrase(userId, phrase) };
    const res = await deps.kv.atomic().check(entry).set(keys.adminUser(userId), next).commit();
    return res.ok ? true : null;
  }, "regenerate recovery phrase");
  return phrase;
}
