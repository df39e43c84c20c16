import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";
import { hmac, randomToken } from "./secrets.ts";

/** What the session functions need: the store, the clock and the secret that keys session ids. */
export interface SessionDeps {
  kv: Deno.Kv;
  clock: Clock;
  config: { TOKEN_SECRET: string };
}

/** A stored admin session (the raw id lives only in the `tg_admin` cookie). */
export interface SessionRecord {
  userId: string;
  createdAt: number;
  lastSeenAt: number;
}

/** A session ends after 12 h without use... */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** ...and 7 days after sign-in, whatever happens. */
export const SESSION_ABSOLUTE_MS = 7 * 86_400_000;
/** `lastSeenAt` is written at most this often, so reads stay reads. */
export const SESSION_TOUCH_MS = 60_000;

/**
 * The store key of a session id: HMAC(TOKEN_SECRET, id). A plain hash would survive a secret
 * rotation; keyed by the secret, a rotated secret finds nothing, so every session ends.
 */
export function sessionHash(secret: string, id: string): string {
  return hmac(secret, "tollgate-admin-session", id);
}

/** KV expiry (a cleanup backstop on the real clock): when idle or absolute expiry comes first. */
function expireIn(r: SessionRecord): number {
  return Math.max(
    1000,
    Math.min(r.lastSeenAt + SESSION_IDLE_MS, r.createdAt + SESSION_ABSOLUTE_MS) - r.lastSeenAt,
  );
}

/**
 * A new session for `userId`: the raw id for the cookie and the write to add to an atomic op.
 * `createdAt` is given when an existing session only gets a new id (its absolute lifetime stays).
 */
export function newSession(
  deps: SessionDeps,
  userId: string,
  createdAt?: number,
) {
  const id = randomToken(32);
  const now = deps.clock.now();
  const hash = sessionHash(deps.config.TOKEN_SECRET, id);
  const record: SessionRecord = {
    userId,
    createdAt: createdAt ?? now,
    lastSeenAt: now,
  };
  return {
    id,
    hash,
    record,
    /** Adds the session write to `op`. */
    addTo: (op: Deno.AtomicOperation) =>
      op.set(keys.adminSession(hash), record, { expireIn: expireIn(record) }),
  };
}

/** Creates and stores a session; returns the raw id for the cookie. */
export async function createSession(
  deps: SessionDeps,
  userId: string,
): Promise<string> {
  const s = newSession(deps, userId);
  await s.addTo(deps.kv.atomic()).commit();
  return s.id;
}

/** True when the session is past its idle or absolute lifetime at `nowMs`. */
export function sessionExpired(r: SessionRecord, nowMs: number): boolean {
  return nowMs - r.lastSeenAt >= SESSION_IDLE_MS || nowMs - r.createdAt >= SESSION_ABSOLUTE_MS;
}

/**
 * Looks a cookie's session id up; null when unknown or expired (an expired one is deleted).
 * Refreshes `lastSeenAt` when it is more than a minute old.
 */
export async function readSession(
  deps: SessionDeps,
  id: string | undefined,
): Promise<{ hash: string; record: SessionRecord } | null> {
  if (!id || id.length > 128) return null;
  const hash = sessionHash(deps.config.TOKEN_SECRET, id);
  const key = keys.adminSession(hash);
  const entry = await deps.kv.get<SessionRecord>(key);
  if (!entry.value) return null;
  const now = deps.clock.now();
  if (sessionExpired(entry.value, now)) {
    await deps.kv.delete(key);
    return null;
  }
  let record = entry.value;
  if (now - record.lastSeenAt >= SESSION_TOUCH_MS) {
    record = { ...record, lastSeenAt: now };
    // Checked so a concurrent logout is not undone; losing this race only skips one touch.
    await deps.kv.atomic().check(entry).set(key, record, { expireIn: expireIn(record) }).commit();
  }
  return { hash, record };
}

/** Deletes the session behind a raw cookie id (logout). */
export async function deleteSession(deps: SessionDeps, id: string): Promise<void> {
  await deps.kv.delete(keys.adminSession(sessionHash(deps.config.TOKEN_SECRET, id)));
}

/** Deletes every session of `userId` except the one stored under `keepHash`. */
export async function revokeUserSessions(
  kv: Deno.Kv,
  userId: string,
  keepHash?: string,
): Promise<number> {
  let n = 0;
  // Admin sessions are few (a handful of admins), so a scan is cheaper than an index to maintain.
  for await (const e of kv.list<SessionRecord>({ prefix: keys.adminSessions() })) {
    if (e.value.userId !== userId || e.key[e.key.length - 1] === keepHash) continue;
    await kv.delete(e.key);
    n++;
  }
  return n;
}
