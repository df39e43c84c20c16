/**
 * Sealed secrets (webhook signing secret, edge API token, challenge secret): AES-GCM 256 with a
 * key derived from `TOKEN_SECRET` by HKDF-SHA256, one key per `purpose`. Rotating `TOKEN_SECRET`
 * makes every sealed value unreadable: `unseal` then answers null.
 *
 * @example
 * const sealed = await seal(config.TOKEN_SECRET, "s3cret", "webhook-secret");
 * await unseal(config.TOKEN_SECRET, sealed, "webhook-secret"); // "s3cret"
 */
import { b64url, fromB64url } from "./tokens.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const VERSION_TAG = "v1";
// A fixed salt is fine for HKDF when the input key is already high-entropy (RFC 5869 3.1);
// it only separates Tollgate's derivations from any other use of the same secret.
const SALT = enc.encode("tollgate/seal/v1");

async function deriveKey(secret: string, purpose: string): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", enc.encode(secret), "HKDF", false, [
    "deriveKey",
  ]);
  return await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: SALT, info: enc.encode(purpose) },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** Encrypts `plaintext` under a key derived from `secret` and `purpose`: "v1.<iv>.<ciphertext>". */
export async function seal(secret: string, plaintext: string, purpose: string): Promise<string> {
  const key = await deriveKey(secret, purpose);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, enc.encode(plaintext));
  return `${VERSION_TAG}.${b64url(iv)}.${b64url(new Uint8Array(ct))}`;
}

/** Decrypts a sealed value; null when it is malformed or the key no longer fits (secret rotated). */
export async function unseal(
  secret: string,
  sealed: string,
  purpose: string,
): Promise<string | null> {
  const parts = sealed.split(".");
  if (parts.length !== 3 || parts[0] !== VERSION_TAG) return null;
  const iv = fromB64url(parts[1]);
  const ct = fromB64url(parts[2]);
  if (!iv || iv.length !== 12 || !ct || ct.length < 16) return null;
  try {
    const key = await deriveKey(secret, purpose);
    return dec.decode(await crypto.subtle.decrypt({ name: "AES-GCM", iv }, key, ct));
  } catch {
    // GCM's tag check fails for a wrong key or tampered text; both mean "unreadable".
    return null;
  }
}
