import { createHash } from "node:crypto";
import { b64url, hmacB64url } from "../tokens.ts";

/**
 * Randomness and hashing for admin secrets. Secrets always come from the CSPRNG, never from the
 * injectable `Random` (tests seed that one, which would make session ids predictable).
 */

/** `n` random bytes as base64url (32 bytes = 256 bits). */
export function randomToken(n = 32): string {
  return b64url(crypto.getRandomValues(new Uint8Array(n)));
}

/** A random 128-bit record id. */
export function randomId(): string {
  return randomToken(16);
}

/** SHA-256 of a string, base64url. */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/** HMAC-SHA256 keyed by `secret` over a labelled message, base64url. */
export function hmac(secret: string, label: string, text: string): string {
  return hmacB64url(secret, `${label}\n${text}`);
}
