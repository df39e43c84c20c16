/** The pooled cryptographic randomness (lib/clock.ts): every byte handed out once, floats in [0,1). */
import { assert, assertEquals } from "./assert.ts";
import { cryptoRandom } from "../lib/clock.ts";

Deno.test("cryptoRandom: ids across several pool refills are all distinct and independent copies", () => {
  const seen = new Set<string>();
  const first = cryptoRandom.bytes(16);
  const copy = first.slice();
  for (let i = 0; i < 2000; i++) { // 32,000 bytes: several 4 KB refills
    const b = cryptoRandom.bytes(16);
    assertEquals(b.length, 16);
    const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    assert(!seen.has(hex), `bytes repeated at call ${i}`);
    seen.add(hex);
  }
  assertEquals(first, copy, "a refill does not change bytes already handed out");
  assertEquals(cryptoRandom.bytes(1000).length, 1000, "large requests bypass the pool");
});

Deno.test("cryptoRandom.float: in [0, 1) and spread over the range", () => {
  let low = 0, high = 0;
  for (let i = 0; i < 4000; i++) {
    const f = cryptoRandom.float();
    assert(f >= 0 && f < 1, `float ${f}`);
    if (f < 0.5) low++;
    else high++;
  }
  assert(low > 1700 && high > 1700, `halves ${low} / ${high}`);
});
