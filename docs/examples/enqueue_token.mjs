#!/usr/bin/env node
// The operator's side of "one place per person" in Node.js 18+ (no dependencies): your site signs
// an enqueue token for a signed-in person and sends them to the waiting room with it.
//
// Format (the access token's): base64url(JSON {queue, key, exp}) + "." +
// base64url(HMAC-SHA256(ENQUEUE_SECRET, that base64url text)). `key` names the person (an account
// or order id; at most 256 characters), `exp` is unix seconds. A key holds one place per queue.
//
// Command line:  ENQUEUE_SECRET=... node enqueue_token.mjs <queue> <key> [ttlSeconds]
//   prints the /wait link's query, e.g. ?queue=shop&enqueueToken=...
//
// In your app (Express shown):
//   import { enqueueToken } from "./enqueue_token.mjs";
//   app.get("/sale", requireLogin, (req, res) => {
//     const t = enqueueToken(process.env.ENQUEUE_SECRET, "shop", req.user.id, 900);
//     res.redirect(`https://queue.example.com/wait?queue=shop&enqueueToken=${t}`);
//   });
// API clients send it as `enqueueToken` in the POST /join body instead.

import { createHmac } from "node:crypto";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** Signs an enqueue token for `key` in `queue`, valid `ttlSeconds` from now. */
export function enqueueToken(secret, queue, key, ttlSeconds = 900) {
  const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
  const body = Buffer.from(JSON.stringify({ queue, key, exp })).toString("base64url");
  const sig = createHmac("sha256", secret).update(body).digest("base64url");
  return `${body}.${sig}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [queue, key, ttl] = process.argv.slice(2);
  const secret = process.env.ENQUEUE_SECRET;
  if (!queue || !key || !secret) {
    console.error("usage: ENQUEUE_SECRET=... node enqueue_token.mjs <queue> <key> [ttlSeconds]");
    process.exit(2);
  }
  const token = enqueueToken(secret, queue, key, ttl ? Number(ttl) : 900);
  console.log(`?queue=${encodeURIComponent(queue)}&enqueueToken=${token}`);
}
