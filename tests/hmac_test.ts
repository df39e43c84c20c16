import { createHash, createHmac } from "node:crypto";
import { HmacSha256, sha256 } from "../lib/hmac.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

function assertEquals(actual: string, expected: string, msg: string): void {
  if (actual !== expected) throw new Error(`${msg}: expected ${expected}, got ${actual}`);
}

function randomBytes(n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(b.subarray(i, i + 65536));
  return b;
}

/** Random printable ASCII of length `n`. */
function asciiString(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(0x20 + Math.floor(Math.random() * 95));
  return s;
}

const nodeHmac = (key: Uint8Array, msg: string | Uint8Array) =>
  createHmac("sha256", key).update(msg).digest("hex");

const KEY_LENGTHS = [0, 1, 31, 32, 63, 64, 65, 100, 200];

Deno.test("sha256 matches node for lengths 0..300", () => {
  for (let n = 0; n <= 300; n++) {
    const b = randomBytes(n);
    assertEquals(hex(sha256(b)), createHash("sha256").update(b).digest("hex"), `length ${n}`);
  }
});

Deno.test("sha256 of a subarray view hashes only the view", () => {
  const big = randomBytes(200);
  const view = big.subarray(7, 150);
  assertEquals(hex(sha256(view)), createHash("sha256").update(view).digest("hex"), "view");
});

Deno.test("HMAC matches node: key lengths × ASCII messages 0..200", () => {
  for (const kl of KEY_LENGTHS) {
    const key = randomBytes(kl);
    const h = new HmacSha256(key);
    for (let n = 0; n <= 200; n++) {
      const msg = asciiString(n);
      const want = nodeHmac(key, msg);
      assertEquals(hex(h.mac(msg)), want, `key ${kl}, msg ${n} (mac)`);
      assertEquals(hex(h.macBytes(new TextEncoder().encode(msg))), want, `key ${kl}, msg ${n}`);
    }
  }
});

Deno.test("HMAC matches node: random binary messages via macBytes", () => {
  for (const kl of KEY_LENGTHS) {
    const key = randomBytes(kl);
    const h = new HmacSha256(key);
    for (let n = 0; n <= 200; n += 7) {
      const msg = randomBytes(n);
      assertEquals(hex(h.macBytes(msg)), nodeHmac(key, msg), `key ${kl}, bytes ${n}`);
    }
  }
});

Deno.test("HMAC matches node: non-ASCII messages", () => {
  const messages = [
    "é",
    "日本語",
    "🎟️",
    "\ud800",
    "a\udc00b",
    "tail \ud83c",
    "x".repeat(60) + "é",
    "é" + "y".repeat(100),
    asciiString(63) + "日本語" + asciiString(70),
    "🎟️".repeat(40),
  ];
  for (const kl of KEY_LENGTHS) {
    const key = randomBytes(kl);
    const h = new HmacSha256(key);
    for (const msg of messages) {
      assertEquals(hex(h.mac(msg)), nodeHmac(key, msg), `key ${kl}, msg ${JSON.stringify(msg)}`);
    }
  }
});

Deno.test("HMAC matches node: long messages grow the buffer", () => {
  const key = randomBytes(32);
  const h = new HmacSha256(key);
  const ascii = asciiString(5000);
  assertEquals(hex(h.mac(ascii)), nodeHmac(key, ascii), "5000 ASCII chars");
  const mixed = asciiString(2500) + "日本語🎟️".repeat(500) + asciiString(1000);
  assertEquals(hex(h.mac(mixed)), nodeHmac(key, mixed), "long non-ASCII");
  const short = "after growth";
  assertEquals(hex(h.mac(short)), nodeHmac(key, short), "short after growth");
});

Deno.test("HMAC: one instance reused across lengths leaks no state", () => {
  const key = randomBytes(48);
  const h = new HmacSha256(key);
  const lengths = [200, 0, 55, 56, 64, 1, 119, 120, 3, 5000, 2, 63, 64, 65, 0];
  for (let round = 0; round < 3; round++) {
    for (const n of lengths) {
      const msg = round === 1 && n > 0 ? "é" + asciiString(n - 1) : asciiString(n);
      assertEquals(hex(h.mac(msg)), nodeHmac(key, msg), `round ${round}, length ${n}`);
    }
  }
  // The same message twice in a row gives the same MAC, and results are independent arrays.
  const a = h.mac("same"), b = h.mac("same");
  assertEquals(hex(a), hex(b), "repeat");
  if (a === b || a.buffer === b.buffer) throw new Error("results share storage");
});

Deno.test("HMAC: RFC 4231 test cases 1 and 2", () => {
  const key1 = new Uint8Array(20).fill(0x0b);
  assertEquals(
    hex(new HmacSha256(key1).mac("Hi There")),
    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
    "RFC 4231 case 1",
  );
  assertEquals(
    hex(new HmacSha256(new TextEncoder().encode("Jefe")).mac("what do ya want for nothing?")),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    "RFC 4231 case 2",
  );
});
