import { b64url, fromB64url, timingSafeEqual } from "../tokens.ts";

/**
 * Admin password hashing: PBKDF2-SHA256 through Web Crypto. The stored string records the
 * iteration count and salt (`pbkdf2-sha256$<iterations>$<salt>$<hash>`), so raising the count
 * later only affects new hashes and old ones still verify.
 */

/** OWASP's current recommendation for PBKDF2-HMAC-SHA256. */
export const OWASP_PBKDF2_ITERATIONS = 600_000;

/** Module setting, not a Services field: tests lower it once so hashing stays fast. */
export const passwordSettings = { iterations: OWASP_PBKDF2_ITERATIONS };

/** Shortest accepted password. */
export const MIN_PASSWORD_LENGTH = 12;
/** Longest accepted password (a bound on work per request, not a strength rule). */
export const MAX_PASSWORD_LENGTH = 1024;

const enc = new TextEncoder();
const PREFIX = "pbkdf2-sha256";

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number) {
  const key = await crypto.subtle.importKey("raw", enc.encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}

/** Hashes a password with a fresh 128-bit salt at the configured iteration count. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const n = passwordSettings.iterations;
  return `${PREFIX}$${n}$${b64url(salt)}$${b64url(await derive(password, salt, n))}`;
}

/** Verifies a password against a stored hash (constant-time compare, stored iteration count). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [prefix, n, saltText, hashText] = stored.split("$");
  const iterations = Number(n);
  const salt = fromB64url(saltText ?? "");
  const want = fromB64url(hashText ?? "");
  if (prefix !== PREFIX || !Number.isInteger(iterations) || iterations < 1 || !salt || !want) {
    return false;
  }
  return timingSafeEqual(await derive(password, salt, iterations), want);
}

let dummy: { iterations: number; hash: string } | null = null;

/**
 * Burns the same work as a real verification, for unknown users, so the answer time does not
 * tell whether a username exists.
 */
export async function verifyDummyPassword(password: string): Promise<false> {
  if (!dummy || dummy.iterations !== passwordSettings.iterations) {
    dummy = {
      iterations: passwordSettings.iterations,
      hash: await hashPassword("tollgate-dummy-password"),
    };
  }
  await verifyPassword(password, dummy.hash);
  return false;
}
