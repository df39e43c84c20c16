// The operator's side of "one place per person" in Deno (Web Crypto, no dependencies): sign an
// enqueue token for a signed-in person and send them to the waiting room with it.
//
// Format (the access token's): base64url(JSON {queue, key, exp}) + "." +
// base64url(HMAC-SHA256(ENQUEUE_SECRET, that base64url text)); `exp` in unix seconds.
//
// Command line:  ENQUEUE_SECRET=... deno run --allow-env enqueue_token.ts <queue> <key> [ttlSeconds]
//
// In your app:
//   import { enqueueToken } from "./enqueue_token.ts";
//   Deno.serve(async (req) => {
//     const user = await signedInUser(req);            // your own sign-in
//     const t = await enqueueToken(Deno.env.get("ENQUEUE_SECRET")!, "shop", user.id, 900);
//     return Response.redirect(`https://queue.example.com/wait?queue=shop&enqueueToken=${t}`, 303);
//   });

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** Signs an enqueue token for `key` in `queue`, valid `ttlSeconds` from now. */
export async function enqueueToken(
  secret: string,
  queue: string,
  key: string,
  ttlSeconds = 900,
): Promise<string> {
  const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
  const enc = new TextEncoder();
  const body = b64url(enc.encode(JSON.stringify({ queue, key, exp })));
  const k = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return `${body}.${b64url(new Uint8Array(await crypto.subtle.sign("HMAC", k, enc.encode(body))))}`;
}

if (import.meta.main) {
  const [queue, key, ttl] = Deno.args;
  const secret = Deno.env.get("ENQUEUE_SECRET");
  if (!queue || !key || !secret) {
    console.error("usage: ENQUEUE_SECRET=... deno run --allow-env enqueue_token.ts <queue> <key>");
    Deno.exit(2);
  }
  const token = await enqueueToken(secret, queue, key, ttl ? Number(ttl) : 900);
  console.log(`?queue=${encodeURIComponent(queue)}&enqueueToken=${token}`);
}
