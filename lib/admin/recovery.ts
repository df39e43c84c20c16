import { timingSafeEqual } from "../tokens.ts";
import { sha256 } from "./secrets.ts";
import { WORDLIST } from "./wordlist.ts";

/** Words in a recovery phrase; 12 words of a 2048-word list carry 132 bits. */
export const PHRASE_WORDS = 12;

const enc = new TextEncoder();

/** A fresh random recovery phrase: 12 words, space-separated, lower case. */
export function generatePhrase(): string {
  const words: string[] = [];
  const buf = new Uint16Array(1);
  while (words.length < PHRASE_WORDS) {
    crypto.getRandomValues(buf);
    // 65536 is a multiple of 2048, so `% 2048` is unbiased.
    words.push(WORDLIST[buf[0] % WORDLIST.length]);
  }
  return words.join(" ");
}

/** Canonical form of a typed phrase: lower case, single spaces, no surrounding blanks. */
export function normalizePhrase(phrase: string): string {
  return phrase.toLowerCase().split(/[\s,]+/).filter(Boolean).join(" ");
}

/**
 * The stored form of a phrase. A fast hash is enough: 132 random bits cannot be guessed, unlike
 * a password. The user id salts it so equal phrases (never expected) would still differ.
 */
export function hashPhrase(userId: string, phrase: string): string {
  return sha256(`tollgate-recovery\n${userId}\n${normalizePhrase(phrase)}`);
}

/** True when `phrase` matches the stored hash (constant-time compare). */
export function verifyPhrase(userId: string, phrase: string, stored: string): boolean {
  return timingSafeEqual(enc.encode(hashPhrase(userId, phrase)), enc.encode(stored));
}
