#!/usr/bin/env node
// Verifies a Tollgate access token without Tollgate's code: Node.js 18+, no dependencies.
//
// Format: base64url(JSON payload) + "." + base64url(HMAC-SHA256(TOKEN_SECRET, payload string)).
// The HMAC is over the base64url payload text exactly as it appears in the token.
// Claims: sub (visitor id), queue, iat and exp (unix seconds).
//
// Command line:  TOKEN_SECRET=... node verify-token.mjs <token> [queue]
//   prints the claims as JSON and exits 0 when the token is valid (and for `queue`, if given);
//   prints "invalid" and exits 1 otherwise.
//
// In your app (Express shown; any framework works the same way):
//   import { verifyAccessToken } from "./verify-token.mjs";
//   app.use((req, res, next) => {
//     const token = req.cookies?.tg_access ?? req.get("authorization")?.replace(/^Bearer /i, "");
//     const claims = verifyAccessToken(token, process.env.TOKEN_SECRET);
//     if (!claims) return res.redirect(302, "/wait?return=" + encodeURIComponent(req.originalUrl));
//     req.admission = claims;
//     next();
//   });

import { Buffer } from "node:buffer";
import { createHmac, timingSafeEqual } from "node:crypto";
import process from "node:process";
import { fileURLToPath } from "node:url";

const B64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Returns the claims of a valid token, or null: bad shape, bad signature (compared in constant
 * time), expired, or (when `queue` is given) issued for another queue.
 */
export function verifyAccessToken(token, secret, { queue, nowMs = Date.now() } = {}) {
  if (typeof token !== "string" || token.length > 4096 || !secret) return null;
  const parts = token.split(".");
  if (parts.length !== 2 || !B64URL.test(parts[0]) || !B64URL.test(parts[1])) return null;
  const [payload, signature] = parts;
  const expected = createHmac("sha256", secret).update(payload).digest();
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let claims;
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (
    !claims || typeof claims.sub !== "string" || typeof claims.queue !== "string" ||
    !Number.isInteger(claims.iat) || !Number.isInteger(claims.exp)
  ) return null;
  if (claims.exp * 1000 <= nowMs) return null; // expired
  if (queue !== undefined && claims.queue !== queue) return null; // another queue's token
  return claims;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [token, queue] = process.argv.slice(2);
  const claims = verifyAccessToken(token, process.env.TOKEN_SECRET, { queue });
  if (claims) {
    console.log(JSON.stringify(claims));
  } else {
    console.log("invalid");
    process.exitCode = 1;
  }
}
