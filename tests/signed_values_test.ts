/**
 * Signed values have one text each (canonical base64url: no padding, zero spare bits), and a
 * claim that no header can carry is neither signed nor answered with a 500 by the access checks.
 */
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";
import { BadRequestError } from "../lib/errors.ts";
import { fromB64url, headerSafe, Signer } from "../lib/tokens.ts";
import { HmacSha256 } from "../lib/hmac.ts";
import { ProofOfWork } from "../lib/challenge/pow.ts";
import { FakeClock, seededRandom } from "../lib/clock.ts";
import { EnqueueTokens } from "../lib/guard/enqueue.ts";

const SECRET = "test-secret-test-secret-test-secret-0123";
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** `text` with its last character replaced by the next one of the alphabet (`8` -> `9`). */
const bumpLast = (text: string) =>
  text.slice(0, -1) + ALPHABET[(ALPHABET.indexOf(text.at(-1)!) + 1) % 64];

/** Signs `payload` like the service, written here without lib/tokens.ts's encoder. */
function forge(payload: object): string {
  const enc = (b: Uint8Array) =>
    btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const body = enc(new TextEncoder().encode(JSON.stringify(payload)));
  return `${body}.${enc(new HmacSha256(new TextEncoder().encode(SECRET)).mac(body))}`;
}

Deno.test("a token whose signature's spare bits were changed does not verify (every path)", async () => {
  const t = await makeApp();
  const token = await t.services.signer.signAccessToken("visitor-m1", "default", t.clock.now(), 60);
  // 32 bytes are 43 characters: the last carries 2 spare bits, so bumping it by one keeps the
  // bytes that a lenient decoder reads.
  const sig = token.split(".")[1];
  assertEquals(sig.length, 43);
  const twin = bumpLast(token);
  assertEquals(fromB64url(bumpLast(sig)), null);
  assert(await t.services.signer.verifyAccessToken(token, t.clock.now()));
  assertEquals(await t.services.signer.verifyAccessToken(twin, t.clock.now()), null);
  assertEquals(await t.services.signer.open(twin), null);
  for (const path of ["/verify", "/verify/auth-request", "/verify/forward-auth"]) {
    const r = await t.fetch(
      new Request(`http://x${path}`, { headers: { cookie: `tg_access=${twin}` } }),
    );
    await r.body?.cancel();
    assert(r.status === 401 || r.status === 302, `${path}: ${r.status}`);
  }
  // Padding is not canonical either.
  assertEquals(await t.services.signer.open(`${token}=`), null);
  t.close();
});

Deno.test("fromB64url takes only canonical text", () => {
  assertEquals([...fromB64url("AQ")!], [1]);
  assertEquals(fromB64url("AR"), null, "spare bits set");
  assertEquals([...fromB64url("AQI")!], [1, 2]);
  assertEquals(fromB64url("AQJ"), null, "spare bits set");
  assertEquals(fromB64url("AQ=="), null, "padding");
  assertEquals(fromB64url("AQIDB"), null, "a length no bytes have");
  assertEquals([...fromB64url("AQID")!], [1, 2, 3]);
  // A tampered ticket does not verify either.
  const signer = new Signer(SECRET);
  const ticket = forge({ sub: "visitor-t1", queue: "default", iat: 1, seq: 1, nca: 1 });
  return (async () => {
    assert(await signer.verifyTicket(ticket));
    const twin = bumpLast(ticket);
    if (twin.split(".")[1].length === 43) assertEquals(await signer.verifyTicket(twin), null);
  })();
});

Deno.test("/verify never answers 500 for a signed token whose claims hold CR/LF", async () => {
  const t = await makeApp();
  const now = Math.floor(t.clock.now() / 1000);
  for (
    const claims of [
      { sub: "visitor\r\nSet-Cookie: x=1", queue: "default" },
      { sub: "visitor-ok1", queue: "default\n" },
      { sub: "visitor-\u0100", queue: "default" },
    ]
  ) {
    const token = forge({ ...claims, iat: now, exp: now + 60 });
    for (const path of ["/verify", "/verify/auth-request", "/verify/forward-auth"]) {
      const r = await t.fetch(
        new Request(`http://x${path}`, { headers: { authorization: `Bearer ${token}` } }),
      );
      await r.body?.cancel();
      assert(
        r.status === 401 || r.status === 302,
        `${path} ${JSON.stringify(claims)}: ${r.status}`,
      );
      assertEquals(r.headers.get("x-tollgate-visitor"), null);
    }
  }
  t.close();
});

Deno.test("a claim no header can carry is refused when the token is made", async () => {
  const signer = new Signer(SECRET);
  for (const [sub, queue] of [["a\r\nb", "default"], ["visitor-1", "q\n"], [" v", "q"]]) {
    let err: unknown;
    try {
      await signer.signAccessToken(sub, queue, 0, 60);
    } catch (e) {
      err = e;
    }
    assert(err instanceof BadRequestError, `${JSON.stringify([sub, queue])}`);
  }
  assert(headerSafe("visitor-1") && headerSafe("admin-a b") && !headerSafe("x\ty"));
});

Deno.test("enqueue tokens and proof-of-work challenges take only their canonical spelling too", () => {
  const clock = new FakeClock();
  const tokens = new EnqueueTokens("enqueue-secret-enqueue-secret-0123456789");
  const exp = Math.floor(clock.now() / 1000) + 60;
  const token = tokens.sign({ queue: "default", key: "person-1", exp });
  assertEquals(tokens.verify(token, "default", clock.now()).key, "person-1");
  let refused = false;
  try {
    tokens.verify(bumpLast(token), "default", clock.now());
  } catch {
    refused = true;
  }
  assert(refused, "an enqueue token with its spare bits changed");

  const pow = new ProofOfWork(SECRET, clock, seededRandom(3));
  const scope = { purpose: "join", scope: "default", client: "203.0.113.9" };
  const c = pow.issue(scope, 1);
  assert(pow.verify({ challenge: c.challenge, nonce: "0" }, scope));
  refused = false;
  try {
    pow.verify({ challenge: bumpLast(c.challenge), nonce: "0" }, scope);
  } catch {
    refused = true;
  }
  assert(refused, "a challenge with its seed's spare bits changed");
});
