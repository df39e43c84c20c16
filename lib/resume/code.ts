/**
 * Resume codes: 8 characters a person can read off one screen and type on another. The alphabet
 * has 32 characters and none that look alike (no 0/O, no 1/I), so a code carries 40 random bits;
 * only its HMAC is stored, so a copy of the store cannot move anyone's place.
 */
import { hmacB64url } from "../tokens.ts";
import type { Random } from "../clock.ts";

/** Digits 2 to 9 and capitals without I and O: 32 characters, 5 bits each. */
export const CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
/** Characters in a code. */
export const CODE_LENGTH = 8;

/** A fresh random code (40 bits from `random`). */
export function newResumeCode(random: Pick<Random, "bytes">): string {
  const bytes = random.bytes(CODE_LENGTH);
  let out = "";
  // 256 is a multiple of 32: the low 5 bits of a uniform byte are uniform.
  for (const b of bytes) out += CODE_ALPHABET[b & 31];
  return out;
}

/**
 * A typed code in its canonical form (capitals, no spaces or dashes), or null when it cannot be
 * one. Lower case is accepted; 0, 1, I and O are not in the alphabet, so a code with them is
 * refused rather than guessed at.
 */
export function normalizeResumeCode(typed: string): string | null {
  const c = typed.toUpperCase().replace(/[\s-]/g, "");
  if (c.length !== CODE_LENGTH) return null;
  for (const ch of c) if (!CODE_ALPHABET.includes(ch)) return null;
  return c;
}

/** The code as shown: two groups of four ("ABCD-EFGH"). */
export function showResumeCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** The stored name of a code: its HMAC under the service secret. */
export function resumeCodeHash(secret: string, code: string): string {
  return hmacB64url(secret, `resume-code:${code}`);
}
