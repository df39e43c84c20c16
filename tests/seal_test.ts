import { seal, unseal } from "../lib/seal.ts";
import { assert, assertEquals } from "./assert.ts";

const SECRET = "test-secret-test-secret-test-secret-0123";
const ROTATED = "rotated-secret-rotated-secret-rotated-99";

Deno.test("seal: round trip, versioned format, fresh IV each time", async () => {
  const a = await seal(SECRET, "hunter2-webhook", "webhook");
  const b = await seal(SECRET, "hunter2-webhook", "webhook");
  assert(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/.test(a), `format: ${a}`);
  assert(a !== b, "same plaintext sealed twice must differ (random IV)");
  assert(!a.includes("hunter2"), "plaintext visible in the sealed text");
  assertEquals(await unseal(SECRET, a, "webhook"), "hunter2-webhook");
  assertEquals(await unseal(SECRET, b, "webhook"), "hunter2-webhook");
  assertEquals(await unseal(SECRET, await seal(SECRET, "", "webhook"), "webhook"), "");
});

Deno.test("seal: a rotated TOKEN_SECRET or another purpose cannot unseal", async () => {
  const sealed = await seal(SECRET, "edge-api-token", "edge");
  assertEquals(await unseal(ROTATED, sealed, "edge"), null);
  assertEquals(await unseal(SECRET, sealed, "webhook"), null);
  assertEquals(await unseal(SECRET, sealed, "edge"), "edge-api-token");
});

Deno.test("seal: malformed or tampered text unseals to null, never throws", async () => {
  const sealed = await seal(SECRET, "payload", "p");
  const [v, iv, ct] = sealed.split(".");
  const flipped = (ct[0] === "A" ? "B" : "A") + ct.slice(1);
  for (
    const bad of [
      "",
      "v1",
      "v1..",
      `v2.${iv}.${ct}`,
      `${v}.${iv}.${flipped}`,
      `${v}.${iv.slice(2)}.${ct}`,
      `${v}.${iv}.${ct}.x`,
      `${v}.${iv}.!!!`,
    ]
  ) {
    assertEquals(await unseal(SECRET, bad, "p"), null, `for ${JSON.stringify(bad)}`);
  }
});
