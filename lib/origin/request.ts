/**
 * What a visitor's request carries for us, taken out of what the origin gets: the access token
 * (Authorization bearer when it is ours, `?accessToken=`, `tg_access`) and every `tg_*` cookie.
 */
import { cookieValues } from "../cookies.ts";
import type { AccessClaims, Signer } from "../tokens.ts";
import { normalizePath } from "./normalize_path.ts";

/** The visitor's request, split into our part and the origin's. */
export interface VisitorRequest {
  /** The path and query the origin gets: the normalised path, the query without `accessToken`. */
  pathAndQuery: string;
  /** The Cookie header without `tg_*` cookies; null when nothing is left. */
  cookie: string | null;
  /** True when the Authorization header carried one of our tokens (the origin must not get it). */
  dropAuthorization: boolean;
  /** Claims of the first valid access token (bearer, query, cookie), or null. */
  claims: AccessClaims | null;
}

const TG_COOKIE = /^\s*tg_/;

/** The path (with the query) of an absolute URL, without parsing it. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const hash = url.indexOf("#", start);
  return hash < 0 ? url.slice(start) : url.slice(start, hash);
}

function decodeName(raw: string): string {
  if (!raw.includes("%") && !raw.includes("+")) return raw;
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}

/** The query (`a=1&accessToken=…`) without any `accessToken` parameter, and that parameter. */
export function splitQuery(query: string): { rest: string; token: string | null } {
  // The usual case: no `accessToken`, not even with its name percent-encoded.
  if (!query.includes("ccess") && !query.includes("%")) return { rest: query, token: null };
  let token: string | null = null;
  const kept: string[] = [];
  for (const pair of query.split("&")) {
    const eq = pair.indexOf("=");
    const name = decodeName(eq < 0 ? pair : pair.slice(0, eq));
    if (name === "accessToken") {
      // Tokens are base64url: nothing to decode for a real one.
      token ??= eq < 0 ? "" : decodeName(pair.slice(eq + 1));
      continue;
    }
    kept.push(pair);
  }
  return { rest: kept.join("&"), token };
}

/** The Cookie header without `tg_*` cookies, and every `tg_access` value (any valid one counts). */
export function splitCookies(
  header: string | null,
): { rest: string | null; access: string[] } {
  if (!header) return { rest: null, access: [] };
  if (!header.includes("tg_")) return { rest: header, access: [] };
  const kept: string[] = [];
  for (const part of header.split(";")) {
    if (!TG_COOKIE.test(part) && part.trim()) kept.push(part.trim());
  }
  return { rest: kept.length ? kept.join("; ") : null, access: cookieValues(header, "tg_access") };
}

/** How `readVisitorRequest` reads a request. */
export interface ReadOptions {
  /** `false`: `?accessToken=` does not admit (it is still taken out of the origin's query). */
  queryToken?: boolean;
}

/**
 * Splits `req` into our part and the origin's, verifying access tokens with `signer` at `nowMs`.
 * Without `queue`, any queue's token admits (the origin proxy: one site behind every queue).
 */
export async function readVisitorRequest(
  signer: Signer,
  req: Request,
  nowMs: number,
  queue?: string,
  opts: ReadOptions = {},
): Promise<VisitorRequest> {
  const full = pathOf(req.url);
  const q = full.indexOf("?");
  // The origin gets the path the gate matched (lib/origin/normalize_path.ts), not another spelling.
  const path = normalizePath(q < 0 ? full : full.slice(0, q));
  let pathAndQuery = q < 0 ? path : path + full.slice(q);
  let queryToken: string | null = null;
  if (q >= 0) {
    const { rest, token } = splitQuery(full.slice(q + 1));
    queryToken = token;
    pathAndQuery = rest ? `${path}?${rest}` : path;
  }
  const { rest: cookie, access } = splitCookies(req.headers.get("cookie"));
  const auth = req.headers.get("authorization");
  const bearer = auth && /^bearer\s/i.test(auth) ? auth.slice(7).trim() : null;

  let claims: AccessClaims | null = null;
  let dropAuthorization = false;
  if (bearer) {
    // Ours when our key signed it (even expired): the origin has no use for it. Anything else
    // is the origin's own credential and passes.
    claims = await signer.verifyAccessToken(bearer, nowMs, queue);
    dropAuthorization = claims !== null || (await signer.open(bearer)) !== null;
  }
  if (!claims && queryToken && opts.queryToken !== false) {
    claims = await signer.verifyAccessToken(queryToken, nowMs, queue);
  }
  for (const value of access) {
    if (claims) break;
    claims = await signer.verifyAccessToken(value, nowMs, queue);
  }
  return { pathAndQuery, cookie, dropAuthorization, claims };
}
