import { AppError, ConflictError, UnauthorizedError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { consumeInviteOps, findInvite, type InviteRecord } from "./invites.ts";
import { hashPassword, verifyDummyPassword, verifyPassword } from "./passwords.ts";
import { generatePhrase, hashPhrase } from "./recovery.ts";
import { randomId } from "./secrets.ts";
import { createSession, newSession, type SessionDeps } from "./sessions.ts";
import { TOS_VERSION } from "./tos.ts";
import {
  addUserOps,
  type AdminUser,
  assertUsernameFree,
  getUser,
  getUserByName,
  type PublicUser,
  publicUser,
  updateUser,
} from "./users.ts";

/** An admin that just signed in: the public record and the raw session id for the cookie. */
export interface SignedIn {
  user: PublicUser;
  sessionId: string;
}

/** A new account: signed in, plus its recovery phrase (shown once). */
export interface NewAccount extends SignedIn {
  phrase: string;
}

/** Wrong username or password; `userId` (never on the wire) says whether the name exists. */
export class WrongCredentialsError extends UnauthorizedError {
  constructor(readonly userId: string | null) {
    super("wrong username or password");
  }
}

/** 403 `forbidden` unless `version` is the current ToS version. */
export function assertCurrentTos(version: string): void {
  if (version !== TOS_VERSION) {
    throw new AppError(
      403,
      "forbidden",
      `the current terms of service (${TOS_VERSION}) must be accepted; got "${version}"`,
      { tosVersion: TOS_VERSION },
    );
  }
}

interface AccountInput {
  username: string;
  password: string;
  acceptedTosVersion: string;
}

async function buildUser(
  deps: SessionDeps,
  input: AccountInput,
): Promise<{ user: AdminUser; phrase: string }> {
  const id = randomId();
  const phrase = generatePhrase();
  const now = deps.clock.now();
  return {
    phrase,
    user: {
      id,
      username: input.username,
      passwordHash: await hashPassword(input.password),
      recoveryHash: hashPhrase(id, phrase),
      createdAt: now,
      passwordChangedAt: now,
      acceptedTosVersion: input.acceptedTosVersion,
      tosAcceptedAt: now,
    },
  };
}

/**
 * Creates the first admin and its session, once: the claim marker, the user, its username index
 * and the session are written in one atomic op that checks the marker is still absent.
 */
export async function claimFirstAdmin(deps: SessionDeps, input: AccountInput): Promise<NewAccount> {
  assertCurrentTos(input.acceptedTosVersion);
  const claimed = keys.adminClaimed();
  const already = () => new ConflictError("conflict", "this service has already been claimed");
  if ((await deps.kv.get(claimed)).value !== null) throw already();
  const { user, phrase } = await buildUser(deps, input);
  const session = newSession(deps, user.id);
  const op = addUserOps(deps.kv.atomic().check({ key: claimed, versionstamp: null }), user)
    .set(claimed, { at: user.createdAt, userId: user.id });
  const res = await session.addTo(op).commit();
  if (!res.ok) {
    if ((await deps.kv.get(claimed)).value !== null) throw already();
    await assertUsernameFree(deps.kv, user.username);
    throw already();
  }
  return { user: publicUser(user), sessionId: session.id, phrase };
}

/** The admin who created `inv`, while they still exist. */
async function inviteCreator(
  kv: Deno.Kv,
  inv: InviteRecord,
): Promise<Deno.KvEntry<AdminUser> | null> {
  const u = await getUser(kv, inv.createdById);
  return u.value ? u as Deno.KvEntry<AdminUser> : null;
}

/**
 * Turns an invite into an account and a session. Unknown, used, revoked and expired invites, and
 * invites whose creator is no longer an admin, all answer 401 alike. The invite is consumed in
 * the same atomic op that creates the user, and that op checks the creator is still there, so an
 * invite cannot outlive a removal that races with it.
 */
export async function acceptInvite(
  deps: SessionDeps,
  input: AccountInput & { token: string },
): Promise<NewAccount> {
  const invalid = () => new UnauthorizedError("invite is invalid, used, revoked or expired");
  const pending = async () => {
    const inv = await findInvite(deps, input.token);
    const creator = inv ? await inviteCreator(deps.kv, inv.value) : null;
    return inv && creator ? { inv, creator } : null;
  };
  if (!(await pending())) throw invalid();
  assertCurrentTos(input.acceptedTosVersion);
  await assertUsernameFree(deps.kv, input.username);
  const { user, phrase } = await buildUser(deps, input);
  const session = newSession(deps, user.id);
  return await retryCommit(async () => {
    // Read again: a concurrent accept, revoke or removal decides here, after the slow hashing.
    const cur = await pending();
    if (!cur) throw invalid();
    const op = addUserOps(consumeInviteOps(deps.kv.atomic(), cur.inv), user).check(cur.creator);
    const res = await session.addTo(op).commit();
    if (res.ok) return { user: publicUser(user), sessionId: session.id, phrase };
    await assertUsernameFree(deps.kv, user.username);
    return null;
  }, "accept invite");
}

/**
 * Checks a username and password and opens a session. Unknown names cost the same PBKDF2 work
 * and get the same answer as a wrong password.
 */
export async function login(
  deps: SessionDeps,
  input: { username: string; password: string },
): Promise<SignedIn> {
  const entry = await getUserByName(deps.kv, input.username);
  if (!entry) {
    await verifyDummyPassword(input.password);
    throw new WrongCredentialsError(null);
  }
  if (!(await verifyPassword(input.password, entry.value.passwordHash))) {
    throw new WrongCredentialsError(entry.value.id);
  }
  const sessionId = await createSession(deps, entry.value.id);
  return { user: publicUser(entry.value), sessionId };
}

/** Records that `userId` accepted the current ToS version. */
export async function acceptTos(
  deps: SessionDeps,
  userId: string,
  version: string,
): Promise<PublicUser> {
  assertCurrentTos(version);
  const now = deps.clock.now();
  const u = await updateUser(deps.kv, userId, (u) => ({
    ...u,
    acceptedTosVersion: version,
    tosAcceptedAt: now,
  }));
  return publicUser(u);
}
